#!/usr/bin/env bats
# pi_stress (Debian's rt-tests 2.4), unmodified, as the unprivileged test user against the real
# rtkit stack with rtkit's DEFAULT limits.  pi_stress blocks every signal in every thread and
# runs one priority-inversion group (three SCHED_FIFO threads) per CPU: with -g $(nproc) a
# realtime thread is busy on every CPU.  The runaway guard must demote the thread that runs out of
# RLIMIT_RTTIME (on its own CPU: no thread of the shim's could run), never let the kernel kill it.

load ../bats/common
load apps

setup_file() { tb_start; }
teardown_file() { tb_stop; }
setup() { apps_setup; }
teardown() { apps_teardown; }

@test "pi_stress -g NPROC without rtrun: refuses to run ('boosting to max priority'), exit 1" {
	run as_user timeout 60 pi_stress -g "$(nproc)" -D 3 -q
	echo "status $status: $output"
	[ "$status" -eq 1 ]
	[[ $output == *"boosting to max priority"* ]]
}

@test "rtrun pi_stress -g NPROC -D 3: runs its inversions realtime and ends normally, never killed at the hard RLIMIT_RTTIME" {
	local i
	for i in 1 2; do
		run as_user timeout 60 "$RTRUN" pi_stress -g "$(nproc)" -D 3 -q
		echo "run $i: status $status: $output"
		[ "$status" -eq 0 ]
		[[ $output == *"Total inversion performed: "[1-9]* ]]
	done
}

@test "rtrun pi_stress: its inversion threads are SCHED_RR|SCHED_RESET_ON_FORK while it runs" {
	spawn --rtrun "$APP_TMP/pi_stress.log" pi_stress -g "$(nproc)" -D 4 -q
	local pid
	pid=$(find_prog "$SPAWNED" pi_stress)
	wait_until 20 has_rt "$pid" 3
	local rt
	rt=$(rt_threads "$pid")
	echo "$rt"
	[[ $rt == *"SCHED_RR|SCHED_RESET_ON_FORK"* ]]
	local status=0
	wait "$SPAWNED" || status=$?
	cat "$APP_TMP/pi_stress.log"
	[ "$status" -eq 0 ]
}
