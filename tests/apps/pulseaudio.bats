#!/usr/bin/env bats
# PulseAudio (Debian's pulseaudio 16), unmodified, as the unprivileged test user against the real
# rtkit stack with rtkit's DEFAULT limits: a program that carries its own rtkit client.  With
# --high-priority its main thread calls setpriority(PRIO_PROCESS, 0, -11) and, refused, asks rtkit
# for that nice level itself; with --realtime each I/O thread (here the null sink's) calls
# pthread_setschedparam(pthread_self(), SCHED_RR|SCHED_RESET_ON_FORK, 5), then without the flag,
# then asks rtkit itself after setting RLIMIT_RTTIME to rtkit's maximum.  Plain, its own client
# gets both; under rtrun the shim answers the first call and PulseAudio's client is not needed: the
# outcome must be the same, with the shim's runaway guard (soft RLIMIT_RTTIME at 80 %) on top.

load ../bats/common
load apps

setup_file() { tb_start; }
teardown_file() { tb_stop; }
setup() { apps_setup; }
teardown() { apps_teardown; }

NICE_OK='Successfully gained nice level -11'
RT_OK='Successfully enabled SCHED_RR scheduling for thread, with priority 5'

# start_pulse [--rtrun]: a PulseAudio daemon with a null sink, its runtime directory in the
# test's own directory (it must belong to the user).  Sets PULSE.
start_pulse() {
	local dir=$APP_TMP/pulse
	install -d -m 700 -o "$TEST_USER" "$dir"
	spawn "$@" "$APP_TMP/pulseaudio.log" HOME="$dir" XDG_RUNTIME_DIR="$dir" \
		pulseaudio -n --daemonize=no --realtime=yes --high-priority=yes --exit-idle-time=-1 \
		--log-target=stderr --log-level=debug -L module-null-sink -L module-native-protocol-unix
	PULSE=$(find_prog "$SPAWNED" pulseaudio)
	wait_until 20 grep -q 'Daemon startup complete' "$APP_TMP/pulseaudio.log"
}

# pulse_granted: the main thread at nice -11 (rtkit's high priority keeps SCHED_OTHER), the sink
# thread an rtkit grant at 5, nothing else realtime.  Sets SINK.
pulse_granted() {
	wait_until 10 thread_named "$PULSE" null-sink
	SINK=$(thread_named "$PULSE" null-sink)
	threads "$PULSE"
	[ "$(nice_of "$PULSE" "$PULSE")" -eq -11 ]
	[[ $(policy_of "$PULSE") == SCHED_OTHER* ]]
	assert_granted "$SINK" "the null sink's I/O thread"
	[ "$(prio_of "$SINK")" -eq 5 ]
	[ "$(count_rt "$PULSE")" -eq 1 ]
	log_has "$APP_TMP/pulseaudio.log" "$NICE_OK"
	log_has "$APP_TMP/pulseaudio.log" "$RT_OK"
}

@test "pulseaudio --realtime --high-priority without rtrun: its own rtkit client gets nice -11 and the sink thread RR 5" {
	start_pulse
	pulse_granted
	# both through PulseAudio's own rtkit client, which also set RLIMIT_RTTIME: soft = hard
	[ "$(grep -c 'RealtimeKit worked' "$APP_TMP/pulseaudio.log")" -eq 2 ]
	[ "$(soft_rttime "$PULSE")" = "$(hard_rttime "$PULSE")" ]
}

@test "rtrun pulseaudio --realtime --high-priority: the same nice level and grant, through the shim, runaway guard armed" {
	start_pulse --rtrun
	pulse_granted
	# the shim answered PulseAudio's first calls (it says which one worked), its own client was
	# not needed ...
	log_has "$APP_TMP/pulseaudio.log" 'setpriority\(\) worked'
	log_has "$APP_TMP/pulseaudio.log" 'SCHED_RR\|SCHED_RESET_ON_FORK worked'
	log_lacks "$APP_TMP/pulseaudio.log" 'RealtimeKit worked'
	# ... and its soft RLIMIT_RTTIME is 80 % of the hard one (the demoting guard), not PulseAudio's
	local soft hard
	soft=$(soft_rttime "$PULSE")
	hard=$(hard_rttime "$PULSE")
	echo "RLIMIT_RTTIME soft $soft hard $hard"
	[ "$soft" -eq $((hard * 8 / 10)) ]
	log_lacks "$APP_TMP/pulseaudio.log" '^E: '
}
