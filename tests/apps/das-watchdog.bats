#!/usr/bin/env bats
# das_watchdog (Debian's das-watchdog), unmodified, as the unprivileged test user against the real
# rtkit stack with rtkit's DEFAULT limits.  A watchdog process for realtime lock-ups: its main
# thread makes itself realtime at the top, sched_setscheduler(0, SCHED_FIFO, 99), and exits when
# that fails; then it starts a counter thread that makes itself SCHED_FIFO 1 (its own
# sched_setscheduler(0, ...)) and counts every second; every -ct seconds the main thread checks
# that the counter moved (if it stood still, realtime threads starved it: it demotes them).
# Under rtrun the order of the two must survive rtkit's cap: the watchdog above the counter.

load ../bats/common
load apps

setup_file() { tb_start; }
teardown_file() { tb_stop; }
setup() { apps_setup; }
teardown() { apps_teardown; }

NO_RT='Unable to set SCHED_FIFO realtime priority'

@test "das_watchdog without rtrun: 'Unable to set SCHED_FIFO realtime priority ... Exiting.' and it exits at once" {
	run as_user timeout 30 das_watchdog -v -ct 1
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"$NO_RT for 0 "*"(Operation not permitted). Exiting."* ]]
	[[ $output != *"counter set to"* ]]
}

# With Debian's 8 MiB memlock, das_watchdog's mlockall(MCL_CURRENT|MCL_FUTURE) succeeds under rtrun
# (5.9 MiB locked: the shim's client is built in), and then the 8 MiB stack of its counter thread
# cannot be locked: pthread_create fails with EAGAIN, as for any user whose rlimits allow realtime
# at that memlock.  It needs 16 MiB of memlock (README); where the suite cannot raise it (no
# CAP_SYS_RESOURCE), the test pins what happens at 8 MiB.
@test "rtrun das_watchdog: watchdog thread RR at rtkit's max (99 asked); with 16 MiB of memlock its counter thread RR 1, at 8 MiB its mlockall holds and only its 8 MiB thread stack is refused" {
	local log=$APP_TMP/das_watchdog.log pid tid rest counter="" memlock
	memlock=$(ulimit -H -l)
	spawn --rtrun "$log" das_watchdog -v -ct 1
	pid=$(find_prog "$SPAWNED" das_watchdog)
	if [[ $memlock != unlimited ]] && ((memlock < 16384)); then
		wait_until 20 has_rt "$pid" 1
		assert_granted "$pid" "the watchdog (main) thread"
		[ "$(prio_of "$pid")" -eq "$RTKIT_MAX" ]
		# its mlockall succeeded: everything it maps is locked
		wait_until 10 awk '$1 == "VmLck:" && $2 > 4096 { f = 1 } END { exit !f }' "/proc/$pid/status"
		wait_until 10 grep -q "counter read to be 0 " "$log"
		local tasks=("/proc/$pid/task"/*)
		[ "${#tasks[@]}" -eq 1 ]
		return 0
	fi
	wait_until 20 has_rt "$pid" 2
	threads "$pid"
	assert_all_rt_granted "$pid"
	# the main thread asked 99: clamped to rtkit's maximum
	assert_granted "$pid" "the watchdog (main) thread"
	[ "$(prio_of "$pid")" -eq "$RTKIT_MAX" ]
	while read -r tid rest; do
		[[ $tid == "$pid" ]] || counter=$tid
	done < <(threads "$pid")
	assert_granted "$counter" "the counter thread"
	[ "$(prio_of "$counter")" -eq 1 ]
	# the watchdog reads the counter every second and finds it moving: no false alarm
	wait_until 10 grep -q "counter read to be 3 " "$log"
	log_lacks "$log" "$NO_RT|Die Uhr Hund stossen"
	# still running, both threads still granted
	assert_granted "$pid" "the watchdog (main) thread"
	assert_granted "$counter" "the counter thread"
}
