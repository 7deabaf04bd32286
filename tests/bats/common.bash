# tests/bats/common.bash — loaded by every suite (`load common`).
# Paths of what `make tests` built, the real stack (scripts/testbed) and readers of kernel state.

RTSHIM_ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
# tests/run copies build/ to a world-readable place so the unprivileged user can load it.
B=${RTSHIM_BUILD:-$RTSHIM_ROOT/build}
# PFX: the installed tree under test (rtrun, the shim, the client): the build tree, or with
# RTSHIM_PREFIX=/usr an installed rtshim (debian/tests).  Probes always come from $B.
PFX=${RTSHIM_PREFIX:-$B}
MULTIARCH=${MULTIARCH:-$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)}
LIBOUT=$PFX/lib/$MULTIARCH/rtshim
SHIM=$LIBOUT/librtshim.so
CLIENT=$LIBOUT/librtshim-client.so
RTRUN=$PFX/bin/rtrun
PROBES=$B/tests/probes
TESTBED=$RTSHIM_ROOT/scripts/testbed
# SCRIPTS: scripts/ as the test user can run them (tests/run publishes a readable copy).
SCRIPTS=${RTSHIM_SCRIPTS:-$RTSHIM_ROOT/scripts}
TEST_USER=${RTSHIM_TEST_USER:-rtshim-test}
# SHIM_PRELOAD: the LD_PRELOAD value that loads the shim under test.  An ASan-built shim needs
# the ASan runtime first (tests/run's ASan pass sets RTSHIM_ASAN_RUNTIME).
SHIM_PRELOAD=${RTSHIM_ASAN_RUNTIME:+$RTSHIM_ASAN_RUNTIME }$SHIM
export RTSHIM_ROOT B PFX MULTIARCH LIBOUT SHIM CLIENT RTRUN PROBES TESTBED SCRIPTS TEST_USER SHIM_PRELOAD
# Every request that is not a test's subject gets a long timeout (the shim and rtrun read it from
# the environment): on a busy machine, or in the sanitizer and valgrind passes, a grant may take
# longer than the default 500 ms.  A test of the timeout sets its own (RTSHIM_TIMEOUT_MS=300, or
# env -u RTSHIM_TIMEOUT_MS for the default).
export RTSHIM_TIMEOUT_MS=${RTSHIM_TIMEOUT_MS:-10000}

# tb_start [--deny] [--fifo] [-- RTKIT-DAEMON-ARGS...]: a private stack for this suite.
tb_start() {
	if [[ -z ${TB_DIR:-} ]]; then
		TB_DIR=$(mktemp -d /tmp/rtshim-tb.XXXXXX)
		export TB_DIR
	fi
	"$TESTBED" stop --dir "$TB_DIR" >/dev/null 2>&1 || true
	"$TESTBED" start --dir "$TB_DIR" "$@"
}

tb_stop() {
	[[ -n ${TB_DIR:-} ]] || return 0
	"$TESTBED" stop --dir "$TB_DIR"
	rm -rf "$TB_DIR"
	unset TB_DIR
}

tb_pid() { "$TESTBED" pid --dir "$TB_DIR" "$1"; }
tb_restart_rtkit() { "$TESTBED" restart-rtkit --dir "$TB_DIR"; }
tb_polkit() { "$TESTBED" polkit --dir "$TB_DIR" "$1"; }
tb_rtkit_log() { cat "$TB_DIR/rtkit.log"; }

# simulate_suspend CHECK...: what a suspend and resume is to rtkit's watchdog (its canary on:
# testbed start --canary), no CPU for 4 s (SIGSTOP, SIGCONT), until CHECK (which waits a few
# seconds for the demotion) succeeds.  rtkit's canary thread and its watchdog both wake at
# SIGCONT; when the canary cheeps first (a loaded machine), the watchdog sees nothing: then
# again, three times at most.
simulate_suspend() {
	local n
	for ((n = 0; n < 3; n++)); do
		kill -STOP "$(tb_pid rtkit)"
		sleep 4
		kill -CONT "$(tb_pid rtkit)"
		"$@" >/dev/null && return 0
	done
	echo "rtkit's canary never fired"
	return 1
}

# tb_report_failure: after a failed test (in teardown), whether each daemon of the stack still
# runs and the end of its log: a refusal the test did not expect is told apart from a dead daemon.
tb_report_failure() {
	[[ -z ${BATS_TEST_COMPLETED:-} && -n ${TB_DIR:-} ]] || return 0
	local name
	for name in bus polkit rtkit; do
		echo "--- $name: pid $(tb_pid "$name" 2>&1)"
		[[ -s $TB_DIR/$name.log ]] && tail -n 8 "$TB_DIR/$name.log"
	done
	return 0
}

# tb_resume: SIGCONT the bus, polkit and rtkit, so that no test leaves a daemon stopped.
tb_resume() {
	local name pid
	for name in rtkit polkit bus; do
		pid=$(tb_pid "$name" 2>/dev/null) && kill -CONT "$pid" 2>/dev/null || true
	done
}
# tb_resume_rtkit: SIGCONT rtkit and return once it has answered everything queued while it was
# stopped (it answers in order: a call of our own, answered, comes after them).  A client whose
# call timed out then has rtkit's late answer on its socket.
tb_resume_rtkit() {
	kill -CONT "$(tb_pid rtkit)"
	as_root timeout 10 dbus-send --system --print-reply --dest=org.freedesktop.RealtimeKit1 \
		/org/freedesktop/RealtimeKit1 org.freedesktop.DBus.Properties.Get \
		string:org.freedesktop.RealtimeKit1 string:MaxRealtimePriority >/dev/null
}
# rtkit_grants: how many grants rtkit logged so far (its log restarts with each tb_start).
rtkit_grants() { grep -c "Successfully made thread" "$TB_DIR/rtkit.log" || true; }

# tb_kill NAME [SIGNAL]: signal one daemon of the stack (TERM), wait until it is really gone.
tb_kill() {
	local pid i
	pid=$(tb_pid "$1")
	kill "-${2:-TERM}" "$pid"
	for ((i = 0; i < 200; i++)); do
		[[ -d /proc/$pid && $(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null) != Z ]] || return 0
		sleep 0.05
	done
	echo "$1 ($pid) did not exit"
	return 1
}

# as_user CMD...: CMD as the unprivileged test user (RLIMIT_RTPRIO 0, no capabilities) on the
# private bus.  as_root CMD...: CMD as root on the private bus.
as_user() { "$TESTBED" run --dir "$TB_DIR" -- "$@"; }
as_root() { "$TESTBED" run --dir "$TB_DIR" --root -- "$@"; }

# sched_of [PID] TID: the thread's policy and priority as the kernel reports them (chrt -p),
# e.g. "SCHED_RR|SCHED_RESET_ON_FORK 20" or "SCHED_OTHER 0".
sched_of() {
	local tid=${2:-$1}
	chrt -p "$tid" | awk -F': ' '/policy/ { p = $2 } /priority/ { print p, $2 }'
}

# nice_of PID TID: the thread's nice value as the kernel reports it (/proc/PID/task/TID/stat,
# field 19).
nice_of() { awk '{ sub(/^.*\) /, ""); print $17 }' "/proc/$1/task/$2/stat"; }

# hard_rttime PID / soft_rttime PID: RLIMIT_RTTIME from /proc/PID/limits ("unlimited" or µs).
hard_rttime() { awk '/^Max realtime timeout/ { print $5 }' "/proc/$1/limits"; }
soft_rttime() { awk '/^Max realtime timeout/ { print $4 }' "/proc/$1/limits"; }

# wait_for_file FILE [SECONDS]: poll until FILE exists and is not empty.
wait_for_file() {
	local i
	for ((i = 0; i < ${2:-10} * 20; i++)); do
		[[ -s $1 ]] && return 0
		sleep 0.05
	done
	echo "timed out waiting for $1" >&2
	return 1
}

# wait_ready OUT BGPID: wait (10 s at most) until a probe started in the background has printed
# "ready" to OUT, or has exited; then set PID from its "pid N" line (empty if it printed none).
# fresh_outputs FILE...: empty output files for a background program, made before it starts.
# It opens them only once its FIFO has a writer: until then a poll would read the previous
# program's "ready" and "pid" from the same files.
fresh_outputs() {
	local f
	for f; do : >"$f"; done
}

wait_ready() {
	local out=$1 bg=$2 i
	for ((i = 0; i < 200; i++)); do
		grep -q '^ready' "$out" 2>/dev/null && break
		kill -0 "$bg" 2>/dev/null || break
		sleep 0.05
	done
	# shellcheck disable=SC2034 # the result: the callers (bg_run) and their tests read PID
	PID=$(awk '/^pid /{ print $2; exit }' "$out")
}
