#!/usr/bin/env bats
# jnoise (Debian's jnoise, Fons Adriaensen's white and pink noise generator), unmodified, as a JACK
# client of the test's own jackd, as the unprivileged test user against the real rtkit stack with
# rtkit's DEFAULT limits.  It asks for nothing itself: its only realtime request is libjack's, the
# process thread's own pthread_setschedparam(pthread_self(), SCHED_FIFO, 65) (server's 70 - 5).
# rtrun must reach a program through the JACK library alone.

load ../bats/common
load apps

setup_file() { tb_start; }
teardown_file() { tb_stop; }
setup() { apps_setup; }
teardown() { apps_teardown; }

NO_RT='Cannot use real-time scheduling'

@test "jnoise without rtrun: libjack says 'Cannot use real-time scheduling (RR/65)', process thread SCHED_OTHER" {
	start_jackd "$APP_TMP/jackd.log" -R -P 70 -d dummy
	start_jack_client "$APP_TMP/jnoise.log" jnoise jnoise
	assert_jack_refused "$APP_TMP/jnoise.log"
}

@test "rtrun jnoise: libjack's process thread is an rtkit grant (65 asked: rtkit's max), nothing else RT, no error" {
	start_jackd --rtrun "$APP_TMP/jackd.log" -R -P 70 -d dummy
	wait_until 20 has_rt "$JACKD"
	start_jack_client --rtrun "$APP_TMP/jnoise.log" jnoise jnoise
	wait_until 20 has_rt "$CLIENT"
	local proc
	proc=$(jack_process_thread "$CLIENT")
	assert_granted "$proc" "jnoise's JACK process thread"
	echo "process thread $proc: $(sched_of "$proc") (rtkit max $RTKIT_MAX)"
	[ "$(prio_of "$proc")" -eq "$RTKIT_MAX" ]
	[ "$(count_rt "$CLIENT")" -eq 1 ]
	assert_all_rt_granted "$CLIENT"
	log_lacks "$APP_TMP/jnoise.log" "$NO_RT|AcquireSelfRealTime error"
}
