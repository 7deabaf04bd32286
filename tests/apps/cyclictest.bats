#!/usr/bin/env bats
# cyclictest (Debian's rt-tests), unmodified, as the unprivileged test user against the real rtkit
# stack with rtkit's DEFAULT limits.  Each measuring thread calls sched_setscheduler(0, SCHED_FIFO,
# 80) itself; the main thread first probes with SCHED_FIFO 1 and drops back.

load ../bats/common
load apps

setup_file() { tb_start; }
teardown_file() { tb_stop; }
setup() { apps_setup; }
teardown() { apps_teardown; }

NTHREADS=4

@test "cyclictest -p 80 without rtrun: refuses to run ('Unable to change scheduling policy')" {
	run as_user timeout 30 cyclictest -p 80 -t "$NTHREADS" -D 3 -q
	echo "$output"
	[ "$status" -ne 0 ]
	[[ $output == *"Unable to change scheduling policy"* ]]
}

@test "rtrun cyclictest -p 80 -t $NTHREADS: every measuring thread SCHED_RR|SCHED_RESET_ON_FORK while it runs" {
	local log=$APP_TMP/cyclictest.log
	spawn --rtrun "$log" cyclictest -p 80 -t "$NTHREADS" -q
	local root=$SPAWNED pid
	pid=$(find_prog "$root" cyclictest)
	wait_until 20 has_threads "$pid" $((NTHREADS + 1))
	wait_until 10 has_rt "$pid" "$NTHREADS"
	# sample three times while it runs: the grants hold, every measuring thread has one
	local tid rest n
	for _ in 1 2 3; do
		n=0
		while read -r tid rest; do
			[[ $tid == "$pid" ]] && continue # the main thread only waits
			assert_granted "$tid" "measuring thread"
			n=$((n + 1))
		done < <(threads "$pid")
		[ "$n" -eq "$NTHREADS" ]
		sleep 0.5
	done
	threads "$pid"
	assert_all_rt_granted "$pid"
	# SIGTERM ends the run normally: exit 0 and one summary line per thread
	kill -TERM "$pid"
	local status=0
	wait "$root" || status=$?
	cat "$log"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^T: *[0-9]' "$log")" -eq "$NTHREADS" ]
	log_lacks "$log" "Unable to change scheduling policy|failed to set priority"
}

@test "rtrun cyclictest -m (mlockall) under Debian's default 8 MiB RLIMIT_MEMLOCK: runs realtime and ends normally" {
	run as_user prlimit --memlock=8388608 timeout 30 cyclictest -m -p 80 -t 2 -D 2 -q
	echo "without rtrun: status $status: $output"
	[ "$status" -ne 0 ]
	[[ $output == *"Unable to change scheduling policy"* ]]
	run as_user prlimit --memlock=8388608 timeout 30 "$RTRUN" cyclictest -m -p 80 -t 2 -D 2 -q
	echo "status $status: $output"
	[ "$status" -eq 0 ]
	[[ $output != *mlockall* ]]
	[ "$(grep -c '^T: *[0-9]' <<<"$output")" -eq 2 ]
}
