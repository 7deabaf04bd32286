#!/usr/bin/env bats
# signaltest (Debian's rt-tests 2.4-1), unmodified, as the unprivileged test user against the real
# rtkit stack with rtkit's DEFAULT limits: rt-tests' check_privs() first sets the main thread to
# SCHED_FIFO and back (exit 1 if that fails), then each of its threads, which signal one another
# round-robin, asks sched_setscheduler(0, SCHED_FIFO, 80) itself.  Without -m (its mlockall, which
# ptsematest, pmqtest, sigwaittest and svsematest always call) it locks no memory.

load ../bats/common
load apps

setup_file() { tb_start; }
teardown_file() { tb_stop; }
setup() { apps_setup; }
teardown() { apps_teardown; }

@test "signaltest -p 80 without rtrun: exits 1, 'Unable to change scheduling policy!'" {
	run as_user timeout 30 signaltest -p 80 -t 3 -D 2 -q
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == "Unable to change scheduling policy!"* ]]
}

@test "rtrun signaltest -p 80 -t 3: its 3 signalling threads RR at rtkit's maximum, the main thread back to SCHED_OTHER; it measures and exits 0" {
	spawn --rtrun "$APP_TMP/signaltest.log" signaltest -p 80 -t 3 -D 8 -q
	local st
	st=$(find_prog "$SPAWNED" signaltest)
	wait_until 20 has_rt "$st" 3
	threads "$st"
	[ "$(count_rt "$st")" -eq 3 ]
	assert_all_rt_granted "$st"
	local tid
	for tid in $(rt_threads "$st" | awk '{ print $1 }'); do
		[ "$(prio_of "$tid")" -eq "$RTKIT_MAX" ]
	done
	# check_privs() set it FIFO and back: SCHED_OTHER, with rtkit's SCHED_RESET_ON_FORK kept
	[ "$(sched_of "$st")" = "SCHED_OTHER|SCHED_RESET_ON_FORK 0" ]
	# -D 8: it ends by itself and prints one summary line per thread
	local rc=0
	wait "$SPAWNED" || rc=$?
	cat "$APP_TMP/signaltest.log"
	[ "$rc" -eq 0 ]
	[ "$(grep -c '^T: [0-2] ' "$APP_TMP/signaltest.log")" -eq 3 ]
	log_lacks "$APP_TMP/signaltest.log" "Unable to change|Operation not permitted"
}
