#!/usr/bin/env bats
# The daemon client (daemon-client/) end to end: tests/probes/rtkit-call, linked with the client,
# runs as the unprivileged test user against the real stack (dbus-daemon, polkitd, rtkit-daemon).
# Grants are read from the kernel (chrt -p, and the probe's own sched_getscheduler syscall).
# rtkit's defaults: MaxRealtimePriority 20, MinNiceLevel -15, RTTimeUSecMax 200000,
# 25 threads per user, 25 requests per 20 s burst.

load common

RTKIT_CALL=$PROBES/rtkit-call

setup_file() { tb_start; } # rtkit's default limits
teardown_file() { tb_stop; }

# Every test starts with an empty rtkit (per-user tables and burst counter are per daemon);
# a test that changed the stack (other limits, deny rule, stopped bus) gets a new stack.
setup() {
	if [[ -e $TB_DIR/client-custom ]]; then
		rm -f "$TB_DIR/client-custom"
		tb_start
	else
		tb_restart_rtkit
	fi
}

teardown() {
	tb_report_failure
	tb_resume
	bg_finish
	[[ -n ${TARGET:-} ]] && kill "$TARGET" 2>/dev/null && wait "$TARGET" 2>/dev/null
	unset TARGET
	return 0
}

# custom_stack [TB_START-ARGS...]: a stack of this test's own; the next test gets a fresh one.
custom_stack() {
	tb_start "$@"
	touch "$TB_DIR/client-custom"
}

# call ARGS / call_nolimit ARGS: rtkit-call as the test user, with the bounded hard
# RLIMIT_RTTIME rtkit requires, or with the user's default (unlimited).
call() { as_user prlimit --rttime=200000 "$RTKIT_CALL" "$@"; }
call_nolimit() { as_user "$RTKIT_CALL" "$@"; }

# elapsed: the client's own measure of the last `run call ...`, in ms.
elapsed() { sed -n 's/^.*elapsed_ms=//p' <<<"$output" | head -n 1; }

# bg_start ARGS: rtkit-call ARGS in the background as the user (bounded RLIMIT_RTTIME), stdin a
# FIFO held open on fd 8, output in $BG_OUT.  bg_send LINE: one line to its stdin.
bg_start() {
	BG_OUT=$BATS_TEST_TMPDIR/bg.out
	local fifo=$BATS_TEST_TMPDIR/bg.in
	rm -f "$fifo"
	mkfifo "$fifo"
	fresh_outputs "$BG_OUT"
	"$TESTBED" run --dir "$TB_DIR" -- prlimit --rttime=200000 "$RTKIT_CALL" "$@" \
		<"$fifo" >"$BG_OUT" 2>&1 3>&- &
	BG=$!
	exec 8>"$fifo"
}
bg_send() { echo "$*" >&8; }

# bg_wait PATTERN [N]: until $BG_OUT has N (1) lines matching PATTERN (10 s at most).
bg_wait() {
	local i
	for ((i = 0; i < 200; i++)); do
		(($(grep -c -- "$1" "$BG_OUT") >= ${2:-1})) && return 0
		kill -0 "$BG" 2>/dev/null || break
		sleep 0.05
	done
	(($(grep -c -- "$1" "$BG_OUT") >= ${2:-1})) && return 0
	echo "no '$1' in:"
	cat "$BG_OUT"
	return 1
}

# bg_finish: close its stdin, wait; exit status in BG_STATUS.
bg_finish() {
	[[ -n ${BG:-} ]] || return 0
	exec 8>&-
	BG_STATUS=0
	wait "$BG" || BG_STATUS=$?
	unset BG
}

# stop_daemon NAME: SIGTERM one daemon of the stack and wait until it is really gone.
stop_daemon() {
	local pid i
	pid=$(tb_pid "$1")
	kill -TERM "$pid"
	for ((i = 0; i < 200; i++)); do
		[[ -d /proc/$pid && $(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null) != Z ]] || return 0
		sleep 0.05
	done
	echo "$1 ($pid) did not exit"
	return 1
}

ms_now() { echo $(($(date +%s%N) / 1000000)); }

# ---- limits ----------------------------------------------------------------------------------

@test "client: reads rtkit's default limits (20, -15, 200000)" {
	run call_nolimit limits
	[ "$status" -eq 0 ]
	[ "$output" = "max_realtime_priority=20 min_nice_level=-15 rttime_usec_max=200000" ]
}

# The bus takes the UID from the socket's credentials (EXTERNAL with an empty identity): a process
# that is root in a user namespace of its own is the test user to the bus, not refused for naming
# UID 0.
@test "client: in a user namespace (unshare -r) the bus still authenticates it" {
	as_user unshare -r true || skip "the test user cannot make a user namespace here"
	run as_user unshare -r "$RTKIT_CALL" limits
	[ "$status" -eq 0 ]
	[ "$output" = "max_realtime_priority=20 min_nice_level=-15 rttime_usec_max=200000" ]
}

@test "client: limits follow the daemon's command line (max priority 30)" {
	custom_stack -- --our-realtime-priority=31 --max-realtime-priority=30 --min-nice-level=-10 \
		--rttime-usec-max=100000
	run call_nolimit limits
	[ "$status" -eq 0 ]
	[ "$output" = "max_realtime_priority=30 min_nice_level=-10 rttime_usec_max=100000" ]
	# and they are the daemon's real limits: 25 is granted with RLIMIT_RTTIME 100000 ...
	run as_user prlimit --rttime=100000 "$RTKIT_CALL" self 25
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = ok ]
	[ "${lines[2]}" = "kernel=SCHED_RR|SCHED_RESET_ON_FORK 25" ]
	# ... and 200000, fine for a default daemon, is now too much
	run call self 25
	[ "$status" -eq 1 ]
	[[ ${lines[0]} == "error EPERM: "* ]]
}

# ---- grants ----------------------------------------------------------------------------------

@test "client: a grant is SCHED_RR|SCHED_RESET_ON_FORK at the priority, read from the kernel" {
	bg_start hold 1 10
	bg_wait '^ready'
	local pid tid
	pid=$(sed -n 's/^pid=\([0-9]*\) .*/\1/p' "$BG_OUT")
	tid=$(sed -n 's/^thread 1 tid=\([0-9]*\) ok$/\1/p' "$BG_OUT")
	[ -n "$pid" ] && [ -n "$tid" ] || false
	[ "$pid" != "$tid" ] # a second thread of the process, not its main thread
	[ "$(sched_of "$pid" "$tid")" = "SCHED_RR|SCHED_RESET_ON_FORK 10" ]
	[ "$(sched_of "$pid" "$pid")" = "SCHED_OTHER 0" ]
	[ "$(hard_rttime "$pid")" = 200000 ]
	bg_finish
	[ "$BG_STATUS" -eq 0 ]

	# the main thread, and the probe's own view through sched_getscheduler(2)
	run call self 20
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = ok ]
	[ "${lines[2]}" = "kernel=SCHED_RR|SCHED_RESET_ON_FORK 20" ]
}

@test "client: MakeThreadRealtimeWithPID for another process of the user" {
	"$TESTBED" run --dir "$TB_DIR" -- prlimit --rttime=200000 sleep 60 3>&- &
	TARGET=$!
	local i
	for ((i = 0; i < 100; i++)); do
		[[ $(cat "/proc/$TARGET/comm" 2>/dev/null) == sleep ]] && break
		sleep 0.05
	done
	[ "$(sched_of "$TARGET")" = "SCHED_OTHER 0" ]
	run call pid "$TARGET" "$TARGET" 8
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = ok ]
	[ "$(sched_of "$TARGET")" = "SCHED_RR|SCHED_RESET_ON_FORK 8" ]
	# a process of another user (root's init): refused
	run call pid 1 1 8
	[ "$status" -eq 1 ]
	[[ ${lines[0]} == "error EPERM: "* ]]
	[ "$(sched_of 1)" != "SCHED_RR|SCHED_RESET_ON_FORK 8" ]
}

@test "client: MakeThreadHighPriority gives SCHED_OTHER|SCHED_RESET_ON_FORK at the nice level" {
	run call nice -10
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = ok ]
	[ "${lines[2]}" = "kernel=SCHED_OTHER|SCHED_RESET_ON_FORK 0" ]
	[ "${lines[3]}" = "nice=-10" ]
	# below MinNiceLevel (-15): refused
	run call nice -20
	[ "$status" -eq 1 ]
	[[ ${lines[0]} == "error EPERM: "* ]]
	[ "${lines[3]}" = "nice=0" ]
}

# ---- refusals --------------------------------------------------------------------------------

@test "client: priority above MaxRealtimePriority -> EPERM (rtkit refuses, never clamps)" {
	run call self 21
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = "error EPERM: rtkit refused: priority above its maximum, RLIMIT_RTTIME not set or too high, or polkit denied this session" ]
	[ "${lines[2]}" = "kernel=SCHED_OTHER 0" ]
	run call self 20 # the same request within the maximum is granted
	[ "$status" -eq 0 ]
	[ "${lines[2]}" = "kernel=SCHED_RR|SCHED_RESET_ON_FORK 20" ]
}

@test "client: priority outside 1..99 -> EINVAL from rtkit" {
	local p
	for p in 0 100; do
		run call self "$p"
		[ "$status" -eq 1 ]
		[[ ${lines[0]} == "error EINVAL: "* ]]
		[ "${lines[2]}" = "kernel=SCHED_OTHER 0" ]
	done
}

@test "client: no bounded hard RLIMIT_RTTIME -> EPERM" {
	run call_nolimit self 5 # the user's default: unlimited
	[ "$status" -eq 1 ]
	[[ ${lines[0]} == "error EPERM: "* ]]
	[ "${lines[2]}" = "kernel=SCHED_OTHER 0" ]
	run as_user prlimit --rttime=200000:unlimited "$RTKIT_CALL" self 5 # soft only
	[ "$status" -eq 1 ]
	[[ ${lines[0]} == "error EPERM: "* ]]
	run as_user prlimit --rttime=200001 "$RTKIT_CALL" self 5 # above RTTimeUSecMax
	[ "$status" -eq 1 ]
	[[ ${lines[0]} == "error EPERM: "* ]]
	run call self 5 # control: bounded, granted
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = ok ]
}

@test "client: a polkit rule that says no -> EPERM" {
	custom_stack --deny
	run call self 5
	[ "$status" -eq 1 ]
	[[ ${lines[0]} == "error EPERM: "* ]]
	[ "${lines[2]}" = "kernel=SCHED_OTHER 0" ]
	tb_polkit allow # control: the same request, polkit now says yes
	run call self 5
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = ok ]
}

@test "client: a thread that is not in the process -> ENOENT" {
	run call pid 0 1 5 # TID 1 is init, not a thread of ours
	[ "$status" -eq 1 ]
	[[ ${lines[0]} == "error ENOENT: "* ]]
}

@test "client: rtkit's default limit of 25 RT threads per user -> EBUSY for the 26th" {
	# only the burst limit raised, so that it cannot be what refuses
	custom_stack -- --actions-per-burst-max=1000
	bg_start hold 26 5
	bg_wait '^ready'
	grep -q '^pid=[0-9]* granted=25 failed=1$' "$BG_OUT"
	grep -q '^thread 26 tid=[0-9]* error EBUSY: rtkit refused: a per-user limit' "$BG_OUT"
	local pid tid
	pid=$(sed -n 's/^pid=\([0-9]*\) .*/\1/p' "$BG_OUT")
	tid=$(sed -n 's/^thread 25 tid=\([0-9]*\) ok$/\1/p' "$BG_OUT")
	[ "$(sched_of "$pid" "$tid")" = "SCHED_RR|SCHED_RESET_ON_FORK 5" ]
	# the limit is per user: another program of the user is refused as well
	run call self 5
	[ "$status" -eq 1 ]
	[[ ${lines[0]} == "error EBUSY: "* ]]
	# once the 25 threads are gone, the slots are free again
	bg_finish
	run call self 5
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = ok ]
}

@test "client: rtkit's default burst limit (25 requests / 20 s) -> EBUSY" {
	run call repeat 30 5 # the same thread: one table slot, only the burst counter grows
	[ "$status" -eq 1 ]
	[[ $output =~ ^requests=30\ OK=(25|26)\ EBUSY=(5|4)\ first_failure=(26|27)$ ]]
	run call self 5 # another program of the user, in the same burst
	[ "$status" -eq 1 ]
	[[ ${lines[0]} == "error EBUSY: "* ]]
}

# ---- no daemon, hung daemon, no bus ----------------------------------------------------------

@test "client: rtkit not running -> ENOTCONN, at once" {
	stop_daemon rtkit
	run call self 5
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = "error ENOTCONN: no system bus, or rtkit-daemon is not running on it" ]
	(($(elapsed) < 1000)) # at once: not its 10 s timeout (a margin for a busy machine and the sanitizers)
	run call_nolimit limits
	[ "$status" -eq 1 ]
	[[ ${lines[0]} == "error ENOTCONN: "* ]]
}

@test "client: limits are cached per process: still known after rtkit stopped" {
	bg_start script
	bg_send limits
	bg_wait '^limits: max_realtime_priority='
	stop_daemon rtkit
	bg_send limits
	bg_send self 5
	bg_finish
	[ "$BG_STATUS" -eq 0 ]
	[ "$(grep -c '^limits: max_realtime_priority=20 min_nice_level=-15 rttime_usec_max=200000$' "$BG_OUT")" -eq 2 ]
	grep -q '^self 5: error ENOTCONN: ' "$BG_OUT"
	grep -q '^done$' "$BG_OUT"
}

@test "client: rtkit SIGSTOPped -> ETIMEDOUT within the configured timeout" {
	run call self 5 # connected and answered while it runs
	[ "$status" -eq 0 ]
	kill -STOP "$(tb_pid rtkit)"
	local t0 wall timeout
	for timeout in 300 default; do
		local want=$timeout
		t0=$(ms_now)
		if [[ $timeout == default ]]; then
			want=500
			run as_user env -u RTSHIM_TIMEOUT_MS prlimit --rttime=200000 "$RTKIT_CALL" self 5
		else
			run call --timeout "$timeout" self 5
		fi
		wall=$(($(ms_now) - t0))
		echo "timeout $want ms: client measured $(elapsed) ms, whole process $wall ms"
		[ "$status" -eq 1 ]
		[ "${lines[0]}" = "error ETIMEDOUT: no answer from rtkit-daemon or the system bus within the timeout" ]
		# margins for a busy machine and the sanitizers; far below the 10 s of every other test
		(($(elapsed) >= want && $(elapsed) <= want + 700))
		# process start-up, testbed wrapper, prlimit and setpriv included (3.7 s seen under load):
		# far below libdbus's own 25 s default, which a request that ignored its timeout waits
		((wall < 8000))
		[ "${lines[2]}" = "kernel=SCHED_OTHER 0" ]
	done
	kill -CONT "$(tb_pid rtkit)"
	run call self 5 # and it recovers
	[ "$status" -eq 0 ]
}

@test "client: system bus SIGSTOPped -> ETIMEDOUT within the timeout, connection included" {
	touch "$TB_DIR/client-custom"
	kill -STOP "$(tb_pid bus)"
	local t0 wall
	t0=$(ms_now)
	run call --timeout 300 limits
	wall=$(($(ms_now) - t0))
	echo "client measured $(elapsed) ms, whole process $wall ms"
	[ "$status" -eq 1 ]
	[[ ${lines[0]} == "error ETIMEDOUT: "* ]]
	(($(elapsed) >= 300 && $(elapsed) <= 300 + 700))
	((wall < 8000)) # (see above)
	kill -CONT "$(tb_pid bus)"
}

@test "client: bus gone -> ENOTCONN and the process lives on; a new bus -> reconnects" {
	touch "$TB_DIR/client-custom"
	bg_start script
	bg_send self 5
	bg_wait '^self 5: kernel='
	grep -q '^self 5: ok$' "$BG_OUT"
	stop_daemon bus
	bg_send self 6
	bg_wait '^self 6: kernel='
	grep -q '^self 6: error ENOTCONN: ' "$BG_OUT"
	kill -0 "$BG" # still alive: no exit-on-disconnect, no SIGPIPE
	tb_start 8>&- # a new stack: new bus on the same address (the daemons must not hold our FIFO)
	touch "$TB_DIR/client-custom"
	bg_send self 7
	bg_wait '^self 7: kernel='
	grep -q '^self 7: ok$' "$BG_OUT"
	grep -q '^self 7: kernel=SCHED_RR|SCHED_RESET_ON_FORK 7$' "$BG_OUT"
	bg_finish
	[ "$BG_STATUS" -eq 0 ]
	grep -q '^done$' "$BG_OUT"
}

@test "client: rtkit restarted -> the same process is served, and holds no socket between calls" {
	bg_start script
	bg_send self 5
	bg_wait '^self 5: kernel='
	grep -q '^self 5: ok$' "$BG_OUT"
	[ -z "$(find "/proc/$BG/fd" -lname 'socket:*')" ]
	tb_restart_rtkit 8>&- # the new daemon must not hold our FIFO open
	bg_send self 6
	bg_wait '^self 6: kernel='
	grep -q '^self 6: ok$' "$BG_OUT"
	grep -q '^self 6: kernel=SCHED_RR|SCHED_RESET_ON_FORK 6$' "$BG_OUT"
	[ -z "$(find "/proc/$BG/fd" -lname 'socket:*')" ]
	bg_finish
	[ "$BG_STATUS" -eq 0 ]
}

# ---- fork, threads, descriptors, exports -----------------------------------------------------

@test "client: after fork the child asks on a connection of its own" {
	# were it the parent's connection, rtkit would look for the child's thread in the parent
	run call fork 5
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "child ok" ]
	[ "${lines[2]}" = "child kernel=SCHED_RR|SCHED_RESET_ON_FORK 5" ]
	[ "${lines[3]}" = "parent ok" ]
	[ "${lines[5]}" = "parent kernel=SCHED_RR|SCHED_RESET_ON_FORK 5" ]
}

@test "client: forks while another thread is inside a call: no child hangs" {
	run call --timeout 10000 fork-stress 400
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output =~ ^forks=400\ child_ok=400\ child_failed=0\ child_hung=0\ bg_calls=[0-9]+\ bg_unexpected=0$ ]]
}

@test "client: no socket of the client outlives a call" {
	run call_nolimit cloexec
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "sockets=0 without_cloexec=0" ]
}

@test "client: librtshim-client.so (the doctor) exports only its versioned table" {
	run nm -D --defined-only "$CLIENT"
	[ "$status" -eq 0 ]
	local syms # (the ASan build adds its ODR indicators, __odr_asan.NAME)
	syms=$(awk '$3 !~ /^__odr_asan\./ { print $3 }' <<<"$output" | sort | tr '\n' ' ')
	[ "$syms" = "rtshim_doctor_v1 " ]
}
