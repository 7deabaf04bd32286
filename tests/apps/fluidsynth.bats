#!/usr/bin/env bats
# fluidsynth (Debian's fluidsynth 2.3), unmodified, as a JACK client of the test's own jackd, as the
# unprivileged test user against the real rtkit stack with rtkit's DEFAULT limits.  With
# synth.cpu-cores=2 it starts a mixer worker thread (a GLib thread named mixer0) whose start
# routine calls pthread_setschedparam(pthread_self(), SCHED_FIFO, 60) (audio.realtime-prio); when
# that fails it tries its own rtkit client, which asks rtkit for a property rtkit does not have
# (RTTimeNSecMax: "Unknown property"), gives up and warns.  libjack's process thread asks too.

load ../bats/common
load apps

setup_file() { tb_start; }
teardown_file() { tb_stop; }
setup() { apps_setup; }
teardown() { apps_teardown; }

NO_RT='Failed to set thread to high priority'

# play [--rtrun]: fluidsynth playing one long note (no MIDI driver, no shell, no SoundFont: the
# synth and its threads run all the same) to jackd.  Sets CLIENT.
play() {
	start_jackd "$@" "$APP_TMP/jackd.log" -R -P 70 -d dummy
	long_note "$APP_TMP/note.mid"
	start_jack_client "$@" "$APP_TMP/fluidsynth.log" fluidsynth \
		fluidsynth -a jack -r 48000 -o synth.cpu-cores=2 -n -i "$APP_TMP/note.mid"
}

@test "fluidsynth without rtrun: 'Failed to set thread to high priority' (its own rtkit client fails too), mixer thread SCHED_OTHER" {
	play
	wait_until 20 grep -q "$NO_RT" "$APP_TMP/fluidsynth.log"
	local mixer
	wait_until 10 thread_named "$CLIENT" mixer0
	mixer=$(thread_named "$CLIENT" mixer0)
	wait_until 10 grep -q 'Cannot use real-time scheduling' "$APP_TMP/fluidsynth.log"
	threads "$CLIENT"
	[[ $(policy_of "$mixer") == SCHED_OTHER ]]
	assert_none_rt "$CLIENT"
}

@test "rtrun fluidsynth: the mixer thread's own pthread_setschedparam and libjack's process thread are rtkit grants" {
	play --rtrun
	local mixer proc
	wait_until 10 thread_named "$CLIENT" mixer0
	mixer=$(thread_named "$CLIENT" mixer0)
	wait_until 20 has_rt "$CLIENT" 2
	threads "$CLIENT"
	assert_all_rt_granted "$CLIENT"
	# FIFO 60 asked, below libjack's process thread (jackd -P 70): one step below rtkit's
	# maximum, the order the kernel has as root (the shim keeps a process's order in rtkit's range)
	wait_until 10 rt_prios_are "$CLIENT" "$((RTKIT_MAX - 1)) $RTKIT_MAX"
	assert_granted "$mixer" "the mixer thread"
	[ "$(prio_of "$mixer")" -eq "$((RTKIT_MAX - 1))" ]
	proc=$(rt_threads "$CLIENT" | awk -v m="$mixer" '$1 != m { print $1; exit }')
	assert_granted "$proc" "libjack's process thread"
	log_lacks "$APP_TMP/fluidsynth.log" "$NO_RT|Cannot use real-time scheduling"
	# still playing
	[ -d "/proc/$CLIENT" ]
	assert_granted "$mixer" "the mixer thread"
}
