#!/usr/bin/env bats
# mpg123 (Debian's mpg123), unmodified, playing to a PulseAudio null sink as the unprivileged test
# user against the real rtkit stack with rtkit's DEFAULT limits.  It asks in two ways of its own,
# both on its main thread, before it opens the output: --aggressive calls
# setpriority(PRIO_PROCESS, getpid(), -20) and -T (--realtime) calls
# sched_setscheduler(0, SCHED_RR, 1) (sched_get_priority_min).  Plain, both calls fail and it
# says so; under rtrun the main thread gets rtkit's best nice level and SCHED_RR 1; it plays the
# file to its end either way.  (Not -o jack: mpg123 1.31's JACK output opens and closes a probing
# client first and now and then crashes in that close, rtrun or not.)  The PulseAudio server asks
# for nothing (--realtime=no --high-priority=no): every grant here is mpg123's.

load ../bats/common
load apps

setup_file() { tb_start; }
teardown_file() { tb_stop; }
setup() { apps_setup; }
teardown() { apps_teardown; }

NO_NICE='Failed to aggressively increase priority'
NO_RT="Can't get realtime priority"
PLAYING='Playing MPEG stream 1 of 1'

# play [--rtrun]: a PulseAudio server with a null sink, then mpg123 -T --aggressive -o pulse on
# 4 s of silence (paced by the sink's clock); sets CLIENT and ROOT.
play() {
	local dir=$APP_TMP/pulse
	install -d -m 700 -o "$TEST_USER" "$dir"
	spawn "$APP_TMP/pulseaudio.log" HOME="$dir" XDG_RUNTIME_DIR="$dir" \
		pulseaudio -n --daemonize=no --realtime=no --high-priority=no --exit-idle-time=-1 \
		--log-target=stderr -L module-null-sink -L "module-native-protocol-unix socket=$dir/native auth-anonymous=1"
	wait_until 20 test -S "$dir/native"
	make_mp3 4 "$APP_TMP/silence.mp3"
	spawn "$@" "$APP_TMP/mpg123.log" HOME="$dir" PULSE_SERVER="unix:$dir/native" \
		mpg123 -T --aggressive -o pulse "$APP_TMP/silence.mp3"
	ROOT=$SPAWNED
	CLIENT=$(find_prog "$ROOT" mpg123)
}

# played_to_the_end: mpg123 exits 0 after the whole file.
played_to_the_end() {
	local status=0
	wait "$ROOT" || status=$?
	cat "$APP_TMP/mpg123.log"
	[ "$status" -eq 0 ]
	log_has "$APP_TMP/mpg123.log" "Decoding of silence.mp3 finished"
}

@test "mpg123 -T --aggressive without rtrun: both refusals said, every thread SCHED_OTHER at nice 0, plays to the end" {
	play
	wait_until 20 grep -q "$PLAYING" "$APP_TMP/mpg123.log"
	log_has "$APP_TMP/mpg123.log" "$NO_NICE"
	log_has "$APP_TMP/mpg123.log" "$NO_RT"
	threads "$CLIENT"
	assert_none_rt "$CLIENT"
	[ "$(nice_of "$CLIENT" "$CLIENT")" -eq 0 ]
	played_to_the_end
}

@test "rtrun mpg123 -T --aggressive: main thread SCHED_RR 1 at rtkit's MinNiceLevel, nothing else RT, plays to the end" {
	play --rtrun
	local min_nice
	min_nice=$(rtkit_property MinNiceLevel)
	wait_until 20 grep -q "$PLAYING" "$APP_TMP/mpg123.log"
	wait_until 10 has_rt "$CLIENT"
	threads "$CLIENT"
	# the main thread: exactly what it asked (RR 1), nice -20 clamped to rtkit's floor
	assert_granted "$CLIENT" "mpg123's main thread"
	[ "$(prio_of "$CLIENT")" -eq 1 ]
	[ "$(nice_of "$CLIENT" "$CLIENT")" -eq "$min_nice" ]
	[ "$(count_rt "$CLIENT")" -eq 1 ]
	played_to_the_end
	log_lacks "$APP_TMP/mpg123.log" "$NO_RT|$NO_NICE"
}
