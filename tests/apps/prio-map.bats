#!/usr/bin/env bats
# Priority mapping with a real JACK2 server and client, as the unprivileged test user against
# the real rtkit stack with rtkit's DEFAULT limits (MaxRealtimePriority 20).
# `jackd -R -P 70` runs its audio thread at 70 and tells its clients to run their process
# threads at 65.  rtkit refuses anything above 20: clamping collapses both to 20; `--map scale`
# and `--map offset --top 70` keep the server's audio thread above the client's process thread.
# Priorities are read from the kernel (chrt -p) while both run.

load ../bats/common
load apps

setup_file() { tb_start; }
teardown_file() { tb_stop; }
setup() { apps_setup; }
teardown() { apps_teardown; }

# jack_pair RTRUN-OPTIONS...: jackd -R -P 70 and jack_simple_client, each under
# `rtrun RTRUN-OPTIONS`; sets AUDIO and PROC (the server's audio thread and the client's process
# thread, both rtkit grants) and prints what the kernel says.
jack_pair() {
	spawn "$APP_TMP/jackd.log" "${JACK_ENV[@]}" "$RTRUN" "$@" jackd -n "$JACK_NAME" -R -P 70 -d dummy
	JACKD=$(find_prog "$SPAWNED" jackd) || return 1
	if ! as_user env "${JACK_ENV[@]}" timeout 40 jack_wait -w -t 30 -s "$JACK_NAME" >/dev/null 2>&1; then
		echo "jackd did not come up:"; cat "$APP_TMP/jackd.log"; return 1
	fi
	wait_until 20 has_rt "$JACKD"
	spawn "$APP_TMP/client.log" "${JACK_ENV[@]}" "$RTRUN" "$@" jack_simple_client
	CLIENT=$(find_prog "$SPAWNED" jack_simple_client) || return 1
	wait_until 20 has_rt "$CLIENT"
	AUDIO=$(jack_process_thread "$JACKD")
	PROC=$(jack_process_thread "$CLIENT")
	wait_until 10 is_granted "$PROC" || true
	assert_granted "$AUDIO" "jackd's audio thread"
	assert_granted "$PROC" "the client's process thread"
	echo "rtrun $*: jackd audio thread $AUDIO: $(sched_of "$AUDIO"); client process thread $PROC: $(sched_of "$PROC")"
	log_lacks "$APP_TMP/jackd.log" "Cannot use real-time scheduling"
	log_lacks "$APP_TMP/client.log" "Cannot use real-time scheduling"
}

@test "jackd -P 70 + client, rtrun (clamp, the default): both collapse to rtkit's maximum" {
	jack_pair
	[ "$(prio_of "$AUDIO")" = "$RTKIT_MAX" ]
	[ "$(prio_of "$PROC")" = "$RTKIT_MAX" ]
}

@test "jackd -P 70 + client, rtrun --map scale: the audio thread stays above the process thread" {
	jack_pair --map scale
	(($(prio_of "$AUDIO") > $(prio_of "$PROC")))
	# 1..99 onto 1..20: 70 → 14, 65 → 13
	((RTKIT_MAX != 20)) || { [ "$(prio_of "$AUDIO")" = 14 ] && [ "$(prio_of "$PROC")" = 13 ] || false; }
}

@test "jackd -P 70 + client, rtrun --map offset --top 70: 70 → max, 65 → max-5" {
	jack_pair --map offset --top 70
	[ "$(prio_of "$AUDIO")" = "$RTKIT_MAX" ]
	[ "$(prio_of "$PROC")" = "$((RTKIT_MAX - 5))" ]
}
