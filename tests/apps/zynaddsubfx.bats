#!/usr/bin/env bats
# ZynAddSubFX (Debian's zynaddsubfx 3.0.6-5), the software synthesizer, unmodified and headless
# (-U: no user interface; JACK audio and JACK MIDI), as a JACK client of the test's own jackd, as
# the unprivileged test user against the real rtkit stack with rtkit's DEFAULT limits.  Its
# realtime thread is libjack's process thread (pthread_setschedparam(SCHED_FIFO, 65): the server's
# 70 - 5); its own mlockall fails under Debian's 8 MiB RLIMIT_MEMLOCK either way ("Warning: Can not
# lock memory").  Its OSC server listens on a port of its own choosing: parallel runs do not meet.

load ../bats/common
load apps

setup_file() { tb_start; }
teardown_file() { tb_stop; }
setup() {
	apps_setup
	# its configuration and auto-save go under HOME
	mkdir -m 700 "$APP_TMP/home"
	chown "$TEST_USER" "$APP_TMP/home"
}
teardown() { apps_teardown; }

NO_RT='Cannot use real-time scheduling'

# synth [--rtrun]: jackd (-R -P 70 -d dummy -p 128, under rtrun) and zynaddsubfx as its client;
# sets CLIENT.  A period of 128 frames (2.7 ms): the process thread wakes far more often than
# zynaddsubfx's main loop (every 20 ms, as often as the dummy driver's default 1024 frames), so
# jack_process_thread, the busiest thread, is the process thread.
synth() {
	start_jackd --rtrun "$APP_TMP/jackd.log" -R -P 70 -d dummy -p 128
	start_jack_client "$@" "$APP_TMP/zyn.log" zynaddsubfx "HOME=$APP_TMP/home" zynaddsubfx -U -O jack -I jack
	# 'MIDI Started' comes after JACK's activation (the process thread's request made, and libjack's
	# error printed if refused); not 'Main Loop...', which stays in stdout's buffer when stdout is a
	# file (seen: a minute, until the buffer filled)
	wait_until 30 grep -q 'MIDI Started' "$APP_TMP/zyn.log"
}

@test "zynaddsubfx -U without rtrun: 'Jack reports error: Cannot use real-time scheduling (RR/65)', process thread SCHED_OTHER" {
	synth
	assert_jack_refused "$APP_TMP/zyn.log"
	log_has "$APP_TMP/zyn.log" 'Warning: Can not lock memory'
}

@test "rtrun zynaddsubfx -U: libjack's process thread is an rtkit grant at rtkit's maximum, nothing else RT, no error" {
	synth --rtrun
	wait_until 20 has_rt "$CLIENT"
	local proc
	proc=$(jack_process_thread "$CLIENT")
	threads "$CLIENT"
	assert_granted "$proc" "zynaddsubfx's JACK process thread"
	[ "$(prio_of "$proc")" -eq "$RTKIT_MAX" ]
	[ "$(count_rt "$CLIENT")" -eq 1 ]
	log_lacks "$APP_TMP/zyn.log" "$NO_RT|AcquireSelfRealTime error"
	# the same memory-lock warning as without rtrun, nothing more
	log_has "$APP_TMP/zyn.log" 'Warning: Can not lock memory'
}
