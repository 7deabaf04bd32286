#!/usr/bin/env bats
# JACK2 (Debian's jackd2), unmodified, as the unprivileged test user against the real rtkit stack
# with rtkit's DEFAULT limits: plain it cannot get realtime; under rtrun its audio thread and its
# clients' process threads are rtkit grants, and freewheel on/off drops and regains them.

load ../bats/common
load apps

setup_file() { tb_start; }
teardown_file() { tb_stop; }
setup() { apps_setup; }
teardown() { apps_teardown; }

NO_RT='Cannot use real-time scheduling'
NO_DROP='Cannot switch to normal scheduling'

@test "jackd -R -P 70 without rtrun: 'Cannot use real-time scheduling', audio thread SCHED_OTHER" {
	start_jackd "$APP_TMP/jackd.log" -R -P 70 -d dummy
	wait_until 20 grep -q "$NO_RT" "$APP_TMP/jackd.log"
	log_has "$APP_TMP/jackd.log" "$NO_RT \(RR/70\) \(1: Operation not permitted\)"
	local audio
	audio=$(jack_process_thread "$JACKD")
	echo "audio thread $audio: $(sched_of "$audio")"
	[[ $(policy_of "$audio") == SCHED_OTHER ]]
	assert_none_rt "$JACKD"
}

@test "a JACK client without rtrun: 'Cannot use real-time scheduling (RR/65)', process thread SCHED_OTHER" {
	start_jackd "$APP_TMP/jackd.log" -R -P 70 -d dummy
	start_jack_client "$APP_TMP/client.log" jack_simple_client jack_simple_client
	assert_jack_refused "$APP_TMP/client.log"
}

@test "rtrun jackd -R -P 70: audio thread SCHED_RR|SCHED_RESET_ON_FORK at <= rtkit's max, no error" {
	start_jackd --rtrun "$APP_TMP/jackd.log" -R -P 70 -d dummy
	wait_until 20 has_rt "$JACKD"
	local audio
	audio=$(jack_process_thread "$JACKD")
	assert_granted "$audio" "jackd's audio thread"
	echo "audio thread $audio: $(sched_of "$audio") (rtkit max $RTKIT_MAX)"
	assert_all_rt_granted "$JACKD"
	log_lacks "$APP_TMP/jackd.log" "$NO_RT|AcquireSelfRealTime error"
	# JACK's message-buffer threads are created with an explicit RT attribute
	log_lacks "$APP_TMP/jackd.log" "Cannot create RT messagebuffer thread|Messagebuffer not realtime"
}

@test "rtrun JACK client: process thread RT; freewheel on/off drops and regains RT without errors" {
	start_jackd --rtrun "$APP_TMP/jackd.log" -R -P 70 -d dummy
	wait_until 20 has_rt "$JACKD"
	start_jack_client --rtrun "$APP_TMP/client.log" jack_simple_client jack_simple_client
	wait_until 20 has_rt "$CLIENT"
	local proc audio
	proc=$(jack_process_thread "$CLIENT")
	assert_granted "$proc" "the client's process thread"
	echo "client process thread $proc: $(sched_of "$proc")"
	assert_all_rt_granted "$CLIENT"
	log_lacks "$APP_TMP/client.log" "$NO_RT"

	# Freewheel on: JACK drops the process thread to SCHED_OTHER from another thread.
	as_user env "${JACK_ENV[@]}" timeout 20 jack_freewheel y >"$APP_TMP/fw-on.log" 2>&1
	if ! wait_until 15 eval '[[ $(policy_of '"$proc"') == SCHED_OTHER* ]]'; then
		echo "in freewheel the process thread is still '$(sched_of "$proc")'"
		false
	fi
	echo "in freewheel: $(sched_of "$proc")"

	# Freewheel off: the client regains RT for the same thread; the server for its audio thread.
	as_user env "${JACK_ENV[@]}" timeout 20 jack_freewheel n >"$APP_TMP/fw-off.log" 2>&1
	wait_until 15 is_granted "$proc" || true
	assert_granted "$proc" "the client's process thread after freewheel"
	echo "after freewheel: $(sched_of "$proc")"
	wait_until 15 has_rt "$JACKD"
	audio=$(jack_process_thread "$JACKD")
	assert_granted "$audio" "jackd's audio thread after freewheel"
	assert_all_rt_granted "$JACKD"
	log_lacks "$APP_TMP/client.log" "$NO_DROP|$NO_RT"
	log_lacks "$APP_TMP/jackd.log" "$NO_DROP|$NO_RT"
}
