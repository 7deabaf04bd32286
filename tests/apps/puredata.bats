#!/usr/bin/env bats
# Pure Data (Debian's puredata-core 0.53), unmodified, headless (-nogui -nosound -nomidi), as the
# unprivileged test user against the real rtkit stack with rtkit's DEFAULT limits.  With -rt it
# asks on its main thread, sched_setscheduler(0, SCHED_FIFO, 6), and forks a watchdog process
# whose child calls sched_setscheduler(0, SCHED_FIFO, 8) before it execs pd-watchdog (the watchdog
# must sit above Pd to stop a runaway Pd).  Plain both fail and both run SCHED_OTHER; under rtrun
# both are rtkit grants at exactly what they asked, the watchdog above Pd, and a grant made
# before exec survives into pd-watchdog.

load ../bats/common
load apps

setup_file() { tb_start; }
teardown_file() { tb_stop; }
setup() { apps_setup; }
teardown() { apps_teardown; }

# start_pd [--rtrun]: pd -rt, headless; sets PD and WATCHDOG (PIDs).
start_pd() {
	spawn "$@" "$APP_TMP/pd.log" pd -rt -nogui -nosound -nomidi -stderr
	PD=$(find_prog "$SPAWNED" pd)
	WATCHDOG=$(find_prog "$PD" pd-watchdog)
}

@test "pd -rt without rtrun: 'priority 6 scheduling failed', 'priority 8 scheduling failed', Pd and pd-watchdog SCHED_OTHER" {
	start_pd
	wait_until 10 grep -q 'priority 8 scheduling failed' "$APP_TMP/pd.log"
	log_has "$APP_TMP/pd.log" 'priority 6 scheduling failed; running at normal priority'
	threads "$PD"
	threads "$WATCHDOG"
	assert_none_rt "$PD"
	assert_none_rt "$WATCHDOG"
}

@test "rtrun pd -rt: Pd's main thread RR 6 and pd-watchdog RR 8, both rtkit grants, no message" {
	start_pd --rtrun
	wait_until 10 is_granted "$WATCHDOG"
	threads "$PD"
	threads "$WATCHDOG"
	assert_granted "$PD" "Pd's main thread"
	assert_granted "$WATCHDOG" "pd-watchdog"
	[ "$(prio_of "$PD")" -eq 6 ]
	[ "$(prio_of "$WATCHDOG")" -eq 8 ]
	assert_all_rt_granted "$PD"
	assert_all_rt_granted "$WATCHDOG"
	log_lacks "$APP_TMP/pd.log" 'scheduling failed'
	# both still there a second later: the watchdog is fed, Pd is not stopped
	sleep 1
	assert_granted "$PD" "Pd's main thread"
	assert_granted "$WATCHDOG" "pd-watchdog"
}
