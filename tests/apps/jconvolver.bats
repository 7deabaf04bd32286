#!/usr/bin/env bats
# jconvolver (Debian's jconvolver, Fons Adriaensen's zita-convolver engine), unmodified, as a JACK
# client of the test's own jackd, as the unprivileged test user against the real rtkit stack with
# rtkit's DEFAULT limits.  It reads its JACK process thread's policy and priority with
# pthread_getschedparam and creates one worker thread per convolution partition size with
# pthread_create and an EXPLICIT scheduling attribute of that policy, at priorities just below
# JACK's.  Plain, the JACK thread is SCHED_OTHER, so it quietly creates SCHED_OTHER workers; under
# rtrun the workers must become rtkit grants too (and the reader must report SCHED_RR, not
# RR|RESET_ON_FORK, or the attribute would be invalid).

load ../bats/common
load apps

setup_file() { tb_start; }
teardown_file() { tb_stop; }
setup() { apps_setup; }
teardown() { apps_teardown; }

NO_RT='Cannot use real-time scheduling'
# The demo reverb shipped by Debian: 1 in, 2 out, partitions 256..20480, its IRs beside it.
JCONV_CONF=/usr/share/jconvolver/config-files/demo-reverbs/street.conf
# main + 2 libjack threads + the JACK process thread + 2 convolution threads (period 256)
JCONV_THREADS=6

@test "jconvolver without rtrun: 'Cannot use real-time scheduling', its convolution threads SCHED_OTHER" {
	start_jackd "$APP_TMP/jackd.log" -R -P 70 -d dummy -p 256
	start_jack_client "$APP_TMP/jconvolver.log" jconvolver jconvolver "$JCONV_CONF"
	wait_until 20 has_threads "$CLIENT" "$JCONV_THREADS"
	wait_until 10 grep -q "$NO_RT" "$APP_TMP/jconvolver.log"
	log_has "$APP_TMP/jconvolver.log" "$NO_RT \(RR/65\)"
	threads "$CLIENT"
	assert_none_rt "$CLIENT"
}

@test "rtrun jconvolver: JACK thread and every convolution thread (explicit attribute) are rtkit grants" {
	start_jackd --rtrun "$APP_TMP/jackd.log" -R -P 70 -d dummy -p 256
	wait_until 20 has_rt "$JACKD"
	start_jack_client --rtrun "$APP_TMP/jconvolver.log" jconvolver jconvolver "$JCONV_CONF"
	wait_until 20 has_threads "$CLIENT" "$JCONV_THREADS"
	wait_until 10 has_rt "$CLIENT" 3 || true
	threads "$CLIENT"
	# The JACK process thread plus the two convolution threads created RT by pthread_create.
	# jconvolver reads the JACK thread's policy right after jack_activate(), while that thread
	# may still be waiting for rtkit (libjack's StartSync returns before the thread's own
	# AcquireSelfRealTime): if the read says SCHED_OTHER, the workers are created SCHED_OTHER.
	[ "$(count_rt "$CLIENT")" -ge 3 ]
	assert_all_rt_granted "$CLIENT"
	local proc
	proc=$(jack_process_thread "$CLIENT")
	assert_granted "$proc" "jconvolver's JACK process thread"
	log_lacks "$APP_TMP/jconvolver.log" "$NO_RT"
}
