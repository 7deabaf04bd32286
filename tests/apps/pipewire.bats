#!/usr/bin/env bats
# JACK programs on PipeWire through pw-jack (Debian's pipewire, pipewire-jack 0.3.65, wireplumber
# 0.4.13), headless: the test user's own PipeWire session (start_pipewire: no sound card, the
# Dummy-Driver), the real rtkit with its DEFAULT limits.  PipeWire's libjack asks for realtime
# itself: its module-rt (jack.conf) asks rtkit for the data thread (rt.prio 88, clamped to rtkit's
# maximum).  Under rtrun that module first finds that a direct pthread_setschedparam(SCHED_FIFO)
# "works" (the shim serves it through rtkit), then makes its data thread realtime that way
# ("initialized using regular realtime scheduling" instead of "using RTKit", with PIPEWIRE_DEBUG).
# What rtrun adds is the program's own requests (fluidsynth's mixer thread) and its runaway guard.

load ../bats/common
load apps

setup_file() { tb_start; }
teardown_file() { tb_stop; }
setup() {
	apps_setup
	start_pipewire
}
teardown() { apps_teardown; }

NO_RT='Failed to set thread to high priority'

# synth LOG CMD-PREFIX...: fluidsynth playing one long note to PipeWire through CMD-PREFIX (pw-jack,
# with rtrun before or after it) as a JACK client; synth.cpu-cores=2 starts its mixer thread, whose
# start routine asks pthread_setschedparam(pthread_self(), SCHED_FIFO, 60).  Sets CLIENT and MIXER.
synth() {
	local log=$1
	shift
	long_note "$APP_TMP/note.mid"
	spawn "$log" "${PW_ENV[@]}" "$@" fluidsynth -a jack -r 48000 -o synth.cpu-cores=2 -n -i "$APP_TMP/note.mid"
	CLIENT=$(find_prog "$SPAWNED" fluidsynth)
	wait_until 20 thread_named "$CLIENT" mixer0
	MIXER=$(thread_named "$CLIENT" mixer0)
	# PipeWire's data thread: libjack's realtime thread, there with or without rtrun
	wait_until 20 has_rt "$CLIENT"
}

# main_thread_policy: the policy of $CLIENT's main thread.
main_thread_policy() { policy_of "$CLIENT"; }

@test "PipeWire headless holds rtkit grants of its own: pipewire's and wireplumber's data threads, nothing above rtkit's maximum" {
	echo "pipewire:"
	assert_all_rt_granted "$PIPEWIRE"
	[ "$(count_rt "$PIPEWIRE")" -ge 1 ]
	echo "wireplumber:"
	assert_all_rt_granted "$WIREPLUMBER"
	[ "$(count_rt "$WIREPLUMBER")" -ge 1 ]
}

@test "pw-jack jnoise without rtrun: PipeWire's libjack makes its data thread an rtkit grant itself, no 'Cannot use real-time scheduling'" {
	spawn "$APP_TMP/jnoise.log" "${PW_ENV[@]}" pw-jack jnoise
	CLIENT=$(find_prog "$SPAWNED" jnoise) || { cat "$APP_TMP/jnoise.log"; false; }
	wait_until 20 has_rt "$CLIENT"
	threads "$CLIENT"
	assert_all_rt_granted "$CLIENT"
	[ "$(count_rt "$CLIENT")" -eq 1 ]
	[ "$(main_thread_policy)" = SCHED_OTHER ]
	log_lacks "$APP_TMP/jnoise.log" 'Cannot use real-time scheduling'
}

@test "pw-jack fluidsynth without rtrun: libjack's data thread is realtime, the synth's own mixer thread is not ('Failed to set thread to high priority')" {
	synth "$APP_TMP/fluidsynth.log" pw-jack
	wait_until 20 grep -q "$NO_RT" "$APP_TMP/fluidsynth.log"
	threads "$CLIENT"
	[ "$(policy_of "$MIXER")" = SCHED_OTHER ]
	[ "$(count_rt "$CLIENT")" -eq 1 ]
	assert_all_rt_granted "$CLIENT"
}

# synth_settled: module-rt's probe of $CLIENT's main thread is over and two threads are realtime.
synth_settled() {
	[[ $(main_thread_policy) == "SCHED_OTHER|SCHED_RESET_ON_FORK" ]] && has_rt "$CLIENT" 2
}

# assert_synth_under_rtrun: the mixer thread and libjack's data thread are rtkit grants, nothing
# else realtime; no warning; the shim's runaway guard holds the process (soft RLIMIT_RTTIME below
# rtkit's hard 200 ms, where PipeWire alone sets soft = hard); the main thread keeps the
# SCHED_RESET_ON_FORK of module-rt's probe (FIFO asked, granted, set back to SCHED_OTHER).
assert_synth_under_rtrun() {
	wait_until 20 synth_settled
	threads "$CLIENT"
	assert_granted "$MIXER" "the mixer thread"
	# FIFO 60 asked, below PipeWire's data thread (which asks more): one step below rtkit's
	# maximum, the order the kernel has as root
	wait_until 10 rt_prios_are "$CLIENT" "$((RTKIT_MAX - 1)) $RTKIT_MAX"
	[ "$(prio_of "$MIXER")" -eq "$((RTKIT_MAX - 1))" ]
	[ "$(count_rt "$CLIENT")" -eq 2 ]
	assert_all_rt_granted "$CLIENT"
	[ "$(main_thread_policy)" = "SCHED_OTHER|SCHED_RESET_ON_FORK" ]
	echo "RLIMIT_RTTIME soft $(soft_rttime "$CLIENT") hard $(hard_rttime "$CLIENT")"
	[ "$(hard_rttime "$CLIENT")" -eq 200000 ]
	[ "$(soft_rttime "$CLIENT")" -lt 200000 ]
	log_lacks "$1" "$NO_RT|Cannot use real-time scheduling"
}

@test "pw-jack rtrun fluidsynth: the mixer thread's own request is granted too (RR one step below the data thread, as their order is as root), beside libjack's data thread; runaway guard on" {
	synth "$APP_TMP/fluidsynth.log" pw-jack "$RTRUN"
	assert_synth_under_rtrun "$APP_TMP/fluidsynth.log"
}

@test "rtrun pw-jack fluidsynth: the same threads realtime as pw-jack rtrun (the order does not change the outcome)" {
	synth "$APP_TMP/fluidsynth.log" "$RTRUN" pw-jack
	assert_synth_under_rtrun "$APP_TMP/fluidsynth.log"
}

@test "pw-jack -p 256 rtrun -p 10 jnoise: pw-jack's -p is the period (PIPEWIRE_QUANTUM=256/48000), rtrun's -p the main thread's priority (RR 10); the data thread rtkit's grant" {
	spawn "$APP_TMP/jnoise.log" "${PW_ENV[@]}" pw-jack -p 256 "$RTRUN" -p 10 jnoise
	CLIENT=$(find_prog "$SPAWNED" jnoise) || { cat "$APP_TMP/jnoise.log"; false; }
	wait_until 20 has_rt "$CLIENT" 2
	threads "$CLIENT"
	tr '\0' '\n' <"/proc/$CLIENT/environ" | grep -x 'PIPEWIRE_QUANTUM=256/48000'
	[ "$(sched_of "$CLIENT")" = "SCHED_RR|SCHED_RESET_ON_FORK 10" ]
	[ "$(count_rt "$CLIENT")" -eq 2 ]
	assert_all_rt_granted "$CLIENT"
	local tid
	tid=$(rt_threads "$CLIENT" | awk -v m="$CLIENT" '$1 != m { print $1 }')
	[ "$(prio_of "$tid")" -eq "$RTKIT_MAX" ]
}

@test "pw-jack rtrun PROGRAM: rtrun's warnings are about PROGRAM (a static ldconfig); rtrun pw-jack PROGRAM checks the pw-jack script and says nothing" {
	local warning="rtrun: warning: /sbin/ldconfig is statically linked: LD_PRELOAD has no effect on it"
	run as_user env "${PW_ENV[@]}" timeout 30 pw-jack "$RTRUN" /sbin/ldconfig -p
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "$warning"* ]]
	run as_user env "${PW_ENV[@]}" timeout 30 "$RTRUN" pw-jack /sbin/ldconfig -p
	[ "$status" -eq 0 ]
	[[ $output != *"rtrun: warning"* ]]
	[[ ${lines[0]} == *" libs found in cache "* ]]
}
