#!/usr/bin/env bats
# ecasound (Debian's ecasound), unmodified, playing to the test's own jackd, as the unprivileged
# test user against the real rtkit stack with rtkit's DEFAULT limits.  ecasound probes with
# sched_setscheduler(getpid(), SCHED_FIFO, 1) and drops back; its engine thread asks for
# SCHED_FIFO 50 (pthread_setschedparam on itself) and then calls jack_activate(), whose libjack
# creates the JACK thread with PTHREAD_EXPLICIT_SCHED and no policy of its own: glibc gives the
# new thread the engine thread's scheduling as glibc last recorded it.  That thread asks for
# SCHED_FIFO 5 (the server's -P 10, minus 5) itself.

load ../bats/common
load apps

setup_file() { tb_start; }
teardown_file() { tb_stop; }
setup() { apps_setup; }
teardown() { apps_teardown; }

ECA_ARGS=(-i null -o jack -t:3)
# ecasound's engine thread (SCHED_FIFO 50, clamped) and libjack's thread (SCHED_FIFO 5)
ENGINE_PRIO=20
JACK_PRIO=5
FAILED='Cannot create thread|Cannot active client|Errors detected'

# run_ecasound [--rtrun]: ecasound "${ECA_ARGS[@]}" as a JACK client of the test's jackd, in the
# background; sets ECA (its PID) once it runs.
run_ecasound() {
	start_jack_client "$@" "$APP_TMP/ecasound.log" ecasound ecasound "${ECA_ARGS[@]}"
	ECA=$CLIENT
	ECA_ROOT=$SPAWNED
}

# ecasound_exits SECONDS: the run ends by itself within SECONDS with exit status 0.
ecasound_exits() {
	local i status=0
	for ((i = 0; i < $1 * 10; i++)); do
		[[ -d /proc/$ECA ]] || break
		sleep 0.1
	done
	if [[ -d /proc/$ECA ]]; then
		echo "ecasound (PID $ECA) still runs after $1 s:"
		threads "$ECA"
		cat "$APP_TMP/ecasound.log"
		return 1
	fi
	wait "$ECA_ROOT" || status=$?
	[ "$status" -eq 0 ] || { echo "ecasound exited $status"; cat "$APP_TMP/ecasound.log"; return 1; }
}

@test "ecasound -o jack without rtrun: plays its 3 s and exits 0, no thread realtime" {
	start_jackd --rtrun "$APP_TMP/jackd.log" -R -d dummy
	run_ecasound
	wait_until 10 has_threads "$ECA" 6
	threads "$ECA"
	assert_none_rt "$ECA"
	ecasound_exits 15
	log_lacks "$APP_TMP/ecasound.log" "$FAILED"
}

@test "rtrun ecasound -o jack: engine and JACK threads are rtkit grants, it plays its 3 s and exits 0" {
	start_jackd --rtrun "$APP_TMP/jackd.log" -R -d dummy
	run_ecasound --rtrun
	wait_until 10 rt_prios_are "$ECA" "$JACK_PRIO $ENGINE_PRIO" || { threads "$ECA"; false; }
	threads "$ECA"
	assert_all_rt_granted "$ECA"
	ecasound_exits 15
	log_lacks "$APP_TMP/ecasound.log" "$FAILED"
}
