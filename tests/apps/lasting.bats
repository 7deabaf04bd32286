#!/usr/bin/env bats
# Grants that last, with real programs: jackd (Debian's jackd2, dummy driver) under rtrun beside
# the test user's PipeWire session (pipewire and wireplumber, their own rtkit grants), on one
# canary-enabled rtkit (short windows, as keep.bats).  When rtkit takes realtime away from
# every thread it granted (a simulated suspend: SIGSTOP and SIGCONT; its Exit and a new rtkit),
# jackd's realtime threads are realtime again, and PipeWire's, whose own rtkit client never
# asks again, stay SCHED_OTHER.  Read from the kernel (chrt -p).

load ../bats/common
load apps

REFUSE=8
setup_file() {
	tb_start --canary -- --canary-cheep-msec=500 --canary-watchdog-msec=1500 \
		--canary-refuse-sec=$REFUSE
}
teardown_file() { tb_stop; }
setup() {
	apps_setup
	start_pipewire
	start_jackd --rtrun "$APP_TMP/jackd.log" -R -P 70 -d dummy
	wait_until 20 has_rt "$JACKD"
	JACK_RT=$(count_rt "$JACKD")
	AUDIO=$(jack_process_thread "$JACKD")
	assert_granted "$AUDIO" "jackd's audio thread"
	echo "jackd: $JACK_RT realtime threads, audio thread $AUDIO"
}
teardown() {
	tb_resume
	apps_teardown
}

# all_taken: rtkit's demotion has reached jackd's audio thread and every PipeWire thread.
all_taken() {
	[[ $(policy_of "$AUDIO") == SCHED_OTHER ]] &&
		(($(count_rt "$PIPEWIRE") + $(count_rt "$WIREPLUMBER") == 0))
}

# jack_back: jackd has as many realtime threads as before, the audio thread among them.
jack_back() {
	has_rt "$JACKD" "$JACK_RT" && is_granted "$AUDIO"
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# assert_only_jack_back: jackd's threads are rtkit's grants again; PipeWire's are not.
assert_only_jack_back() {
	threads "$JACKD"
	assert_all_rt_granted "$JACKD"
	echo "pipewire:"
	threads "$PIPEWIRE"
	[[ $(count_rt "$PIPEWIRE") == 0 ]]
	[[ $(count_rt "$WIREPLUMBER") == 0 ]]
	kill -0 "$JACKD"
}

@test "a simulated suspend: rtrun jackd's realtime threads come back after rtkit's refusal window, PipeWire's stay SCHED_OTHER" {
	simulate_suspend wait_until 5 all_taken
	local taken
	taken=$(now_ms)
	wait_until $((REFUSE + 10)) jack_back
	echo "# jackd back $(($(now_ms) - taken)) ms after the demotion was seen (window $REFUSE s)" >&3
	assert_only_jack_back
}

@test "rtkit's Exit and a new rtkit: rtrun jackd's realtime threads come back at once, PipeWire's stay SCHED_OTHER" {
	as_root dbus-send --system --print-reply --dest=org.freedesktop.RealtimeKit1 \
		/org/freedesktop/RealtimeKit1 org.freedesktop.RealtimeKit1.Exit >/dev/null || true
	wait_until 10 all_taken
	tb_restart_rtkit >/dev/null
	local up
	up=$(now_ms)
	wait_until 10 jack_back
	echo "# jackd back $(($(now_ms) - up)) ms after the new rtkit was up" >&3
	assert_only_jack_back
}
