#!/usr/bin/env bats
# Threads cancelled (pthread_cancel, deferred) while their realtime request is on its way to rtkit
# must not take the process's connection with them: the next request from another thread is
# served and fork() returns at once.  tests/probes/cancel-mid-request runs as the unprivileged
# test user with the shim preloaded against the real stack; outcomes from the kernel (chrt -p)
# and the probe's own timing of fork().

load common

setup_file() {
	tb_start -- --actions-per-burst-max=1000 --threads-per-user-max=1000 \
		--processes-per-user-max=1000
}
teardown_file() { tb_stop; }

teardown() {
	tb_resume
	if [[ -n ${PROBE_BG:-} ]]; then
		exec 8>&-
		[[ -n ${PID:-} ]] && kill -KILL "$PID" 2>/dev/null
		wait "$PROBE_BG" || true
		unset PROBE_BG
	fi
	return 0
}

# cm_start ROUNDS STEP_US PRIO: the probe in the background (stdin a FIFO on fd 8), bounded by
# timeout; waits (10 s at most) until every cancelled round is over.  Sets PID, OUT, ERR.
cm_start() {
	OUT=$BATS_TEST_TMPDIR/cm.out ERR=$BATS_TEST_TMPDIR/cm.err
	local fifo=$BATS_TEST_TMPDIR/cm.in i
	rm -f "$fifo"; mkfifo "$fifo"
	fresh_outputs "$OUT" "$ERR"
	timeout -s KILL 60 "$TESTBED" run --dir "$TB_DIR" -- env LD_PRELOAD="$SHIM_PRELOAD" \
		"$PROBES/cancel-mid-request" "$@" <"$fifo" >"$OUT" 2>"$ERR" 3>&- &
	PROBE_BG=$!
	exec 8>"$fifo"
	cm_wait '^asked$'
	PID=$(awk '/^pid /{ print $2; exit }' "$OUT")
	[ -n "$PID" ]
}

# cm_wait PATTERN [SECONDS]: until $OUT has a line matching PATTERN (10 s at most).
cm_wait() {
	local i
	for ((i = 0; i < ${2:-10} * 20; i++)); do
		grep -q -- "$1" "$OUT" && return 0
		kill -0 "$PROBE_BG" 2>/dev/null || break
		sleep 0.05
	done
	grep -q -- "$1" "$OUT" && return 0
	echo "no '$1' in:"; cat "$OUT" "$ERR"
	return 1
}

# cm_after: let the probe go on; its new thread must be granted (read from the kernel; it asks
# again while refused, 50 times at most) and its fork must return promptly.
cm_after() {
	echo go >&8
	cm_wait '^ready$' 20
	cat "$OUT"
	grep -q '^call after rc=0 err=OK$' "$OUT"
	local tid
	tid=$(awk '$1 == "tid" && $2 == "after" { print $3 }' "$OUT")
	[ -n "$tid" ]
	[ "$(sched_of "$PID" "$tid")" = "SCHED_RR|SCHED_RESET_ON_FORK 10" ]
	local ms
	ms=$(sed -n 's/^fork elapsed_ms=\([0-9]*\) exit=0$/\1/p' "$OUT")
	[ -n "$ms" ]
	((ms < 1000))
}

@test "threads cancelled mid-request, rtkit running: another thread is then granted, fork returns" {
	# cancelled 0.5, 1, 1.5 ... 10 ms after asking: during the dlopen, the connection, the
	# property reads and the grant itself
	cm_start 20 500 10
	(($(grep -c '^round [0-9]* cancelled=1$' "$OUT") == 20))
	cm_after
}

@test "a thread cancelled while rtkit hangs (SIGSTOP): after SIGCONT another thread is granted, fork returns" {
	kill -STOP "$(tb_pid rtkit)"
	# the first request of the process waits for rtkit's answer: cancelled 5 ms into it
	cm_start 1 5000 10
	grep -q '^round 0 cancelled=1$' "$OUT"
	# the shim asks rtkit again once it has answered the request that timed out
	tb_resume_rtkit
	cm_after
}
