#!/usr/bin/env bats
# stress-ng (Debian's 0.15.06), unmodified, as the unprivileged test user against the real rtkit
# stack with rtkit's DEFAULT limits.  `--sched fifo --sched-prio 10` makes each stressor process
# call sched_setscheduler(0, SCHED_FIFO, 10) itself; before that every stressor sets each soft
# resource limit to its hard one, RLIMIT_RTTIME included (as many daemons do at start).  The
# runaway guard must survive that: the stressor keeps its guard and is demoted, not killed.

load ../bats/common
load apps

setup_file() { tb_start; }
teardown_file() { tb_stop; }
setup() { apps_setup; }
teardown() { apps_teardown; }

STRESS=(stress-ng --temp-path /tmp --sched fifo --sched-prio 10 --cpu 1 -t 5)

@test "stress-ng --sched fifo --cpu 1 without rtrun: 'cannot set scheduler', exit 1" {
	run as_user timeout 60 "${STRESS[@]}"
	echo "status $status: $output"
	[ "$status" -eq 1 ]
	# stress-ng 0.15 (Debian 12) writes "'fifo': errno=1", 0.18 (Debian 13) "'fifo', errno=1"
	[[ $output == *"cannot set scheduler 'fifo'"[:,]" errno=1"* ]]
}

@test "rtrun stress-ng --sched fifo --cpu 1: the stressor (soft = hard RLIMIT_RTTIME) is demoted by the guard, never killed; 'successful run'" {
	local i
	for i in 1 2; do
		run as_user timeout 60 "$RTRUN" "${STRESS[@]}"
		echo "run $i: status $status: $output"
		[ "$status" -eq 0 ]
		[[ $output == *"successful run completed"* ]]
		[[ $output == *"demoted to SCHED_OTHER"* ]]
		[[ $output != *"unsuccessful"* ]]
	done
}
