#!/usr/bin/env bats
# A reader racing a thread's own realtime request (jconvolver's pattern: libjack's StartSync
# returns before the JACK thread asked for realtime; jconvolver reads that thread's policy at
# once and copies it into its workers' attributes).  Through rtkit a grant is a D-Bus round trip,
# so the shim makes a reader (pthread_getschedparam, sched_getscheduler) about a thread whose own
# request is in flight wait for its outcome, bounded by RTSHIM_TIMEOUT_MS.  Before that, the
# reader in tests/probes/read-race read "OTHER 0" and created its worker SCHED_OTHER.
# tests/probes/read-race as the unprivileged test user against the real stack; the thread
# states are read from the kernel.

load common

setup_file() {
	tb_start -- --actions-per-burst-max=1000 --threads-per-user-max=1000 \
		--processes-per-user-max=1000
}
teardown_file() { tb_stop; }
teardown() {
	local pid
	pid=$(tb_pid rtkit 2>/dev/null) && kill -CONT "$pid" 2>/dev/null
	race_stop
	return 0
}

# race_run [--noshim] [VAR=VALUE...] [pthread|sched]: read-race as the test user (stdin a FIFO
# held open on fd 8) until it printed "ready" and its worker reported.  Sets PID, OUT, ERR.
race_run() {
	local -a env=()
	local shim=1
	[[ ${1:-} == --noshim ]] && { shim=0; shift; }
	while [[ ${1:-} == *=* ]]; do env+=("$1"); shift; done
	((shim)) && env+=("LD_PRELOAD=$SHIM_PRELOAD")
	OUT=$BATS_TEST_TMPDIR/race.out ERR=$BATS_TEST_TMPDIR/race.err
	local fifo=$BATS_TEST_TMPDIR/race.in i
	rm -f "$fifo"; mkfifo "$fifo"
	fresh_outputs "$OUT" "$ERR"
	as_user env "${env[@]}" "$PROBES/read-race" "$@" <"$fifo" >"$OUT" 2>"$ERR" 3>&- &
	RACE_BG=$!
	exec 8>"$fifo"
	for ((i = 0; i < 300; i++)); do
		grep -q '^ready' "$OUT" && grep -q '^kernel worker' "$OUT" && grep -q '^kernel A' "$OUT" && break
		kill -0 "$RACE_BG" 2>/dev/null || break
		sleep 0.05
	done
	cat "$OUT"
	PID=$(awk '/^pid /{ print $2; exit }' "$OUT")
	[[ -n $PID ]]
}

race_stop() {
	[[ -n ${RACE_BG:-} ]] || return 0
	exec 8>&-
	wait "$RACE_BG" || true
	unset RACE_BG
}

tid_of() { awk -v l="$1" '$1 == "tid" && $2 == l { print $3; exit }' "$OUT"; }
# what the main thread read about A: "FIFO 65"
read_of() { awk '$1 == "reads" && $2 == "A" { print $3, $4; exit }' "$OUT"; }
read_ms() { awk '$1 == "reads" && $2 == "A" { print int($6); exit }' "$OUT"; }

@test "read-race without the shim: A's own request fails EPERM, the reader and the worker OTHER" {
	race_run --noshim
	grep -q '^call setschedparam-A rc=1 err=EPERM$' "$OUT"
	[ "$(read_of)" = "OTHER 0" ]
	[ "$(sched_of "$(tid_of worker)")" = "SCHED_OTHER 0" ]
}

@test "pthread_getschedparam on a thread whose rtkit request is in flight: the outcome (the FIFO asked, rtkit's RR in the kernel), worker RR too" {
	race_run
	grep -q '^call setschedparam-A rc=0 err=OK$' "$OUT"
	[ "$(sched_of "$(tid_of A)")" = "SCHED_RR|SCHED_RESET_ON_FORK 20" ]
	# before the reader waited for the request in flight, this read "OTHER 0" (a D-Bus round trip
	# after A's EPERM), and the worker was created SCHED_OTHER
	[ "$(read_of)" = "FIFO 65" ]                # what A asked (rtshim(7): readers), the flag masked
	grep -q '^call create-worker rc=0 err=OK$' "$OUT"
	# the worker asks one less than it read: 64, clamped to rtkit's 20 and kept below A's 65
	# (rtshim(7): the order of the priorities a process asked): 19
	[ "$(sched_of "$(tid_of worker)")" = "SCHED_RR|SCHED_RESET_ON_FORK 19" ]
	[ ! -s "$ERR" ]
}

@test "sched_getscheduler(TID) on a thread whose rtkit request is in flight: the outcome (the FIFO asked)" {
	race_run sched
	grep -q '^call getscheduler-A rc=1 err=OK$' "$OUT"   # SCHED_FIFO as asked, SCHED_RESET_ON_FORK masked
	[ "$(read_of)" = "FIFO 65" ]
	[ "$(sched_of "$(tid_of worker)")" = "SCHED_RR|SCHED_RESET_ON_FORK 19" ] # 64, below A's 65
}

@test "rtkit hung: the reader waits no longer than RTSHIM_TIMEOUT_MS, then reads the kernel (OTHER)" {
	kill -STOP "$(tb_pid rtkit)"
	race_run RTSHIM_TIMEOUT_MS=1000
	kill -CONT "$(tb_pid rtkit)"
	grep -q '^call setschedparam-A rc=1 err=EPERM$' "$OUT"
	[ "$(read_of)" = "OTHER 0" ]
	local ms
	ms=$(read_ms)
	echo "reader returned after $ms ms"
	((ms < 1000 + 700)) # one timeout, not two, with a margin for a busy machine and the sanitizers
}
