#!/usr/bin/env bats
# Nice levels, the Realtime portal and the trace end to end, against the real stack as the
# unprivileged test user:
#  - nice levels through rtkit: setpriority()/nice() interposed, RTSHIM_NICE_FALLBACK;
#  - sandboxed programs ($SNAP set) talk to the real xdg-desktop-portal (Realtime portal) on a
#    private session bus, which forwards to the testbed's rtkit; never on the host;
#  - RTSHIM_TRACE / RTSHIM_ONLY with a probe that asks from two different libraries.
# Results come from the kernel: /proc/PID/task/TID/stat (nice, field 19), chrt -p, /proc/PID/maps.
# rtkit's defaults: MinNiceLevel -15, MaxRealtimePriority 20.

bats_require_minimum_version 1.5.0
load common

MIN_NICE=-15
PORTAL=/usr/libexec/xdg-desktop-portal

setup_file() {
	tb_start -- --actions-per-burst-max=1000 --threads-per-user-max=1000 \
		--processes-per-user-max=1000
	portal_start
}
teardown_file() {
	portal_stop
	tb_stop
}
teardown() {
	probe_stop
	if [[ -z ${BATS_TEST_COMPLETED:-} && -s ${SESS:-/nonexistent}/portal.log ]]; then
		echo "--- xdg-desktop-portal's log"
		tail -n 30 "$SESS/portal.log"
		echo "--- rtkit's log"
		tail -n 10 "$TB_DIR/rtkit.log"
	fi
	if [[ -n ${POLKIT_CHANGED:-} ]]; then tb_polkit allow; unset POLKIT_CHANGED; fi
}

polkit_set() { tb_polkit "$1"; POLKIT_CHANGED=1; }

# probe_run [VAR=VALUE...] NAME [ARGS...]: a probe as the test user with the shim preloaded
# (unless LD_PRELOAD= is given), stdin a FIFO held open here; waits for "ready".
# Sets PID, OUT, ERR.
probe_run() {
	local -a env=("LD_PRELOAD=$SHIM")
	while [[ ${1:-} == *=* ]]; do env+=("$1"); shift; done
	local name=$1; shift
	OUT=$BATS_TEST_TMPDIR/$name.out ERR=$BATS_TEST_TMPDIR/$name.err
	local fifo=$BATS_TEST_TMPDIR/$name.in
	rm -f "$fifo"; mkfifo "$fifo"
	fresh_outputs "$OUT" "$ERR"
	# WRAP=(rtrun OPTIONS...): run the probe under a wrapper
	as_user env "${env[@]}" ${WRAP[@]+"${WRAP[@]}"} "$PROBES/$name" "$@" <"$fifo" >"$OUT" 2>"$ERR" 3>&- &
	PROBE_BG=$!
	exec 8>"$fifo"
	wait_ready "$OUT" "$PROBE_BG"
	[[ -n $PID ]] && grep -q '^ready' "$OUT" || { echo "probe $name:"; cat "$OUT" "$ERR"; return 1; }
}

probe_stop() {
	[[ -n ${PROBE_BG:-} ]] || return 0
	exec 8>&-
	wait "$PROBE_BG" || true
	unset PROBE_BG
}

tid_of() { awk -v l="$1" '$1 == "tid" && $2 == l { print $3; exit }' "$OUT"; }
call_of() { awk -v l="$1" '$1 == "call" && $2 == l { print $3, $4; exit }' "$OUT"; }

# ---- nice levels: setpriority() and nice() ----------------------------------------------------

@test "nice: setpriority(PRIO_PROCESS, 0, -10) is EACCES without the shim, the thread keeps nice 0" {
	probe_run LD_PRELOAD= nice-probe setpriority -10
	[ "$(call_of setpriority)" = "rc=-1 err=EACCES" ]
	[ "$(nice_of "$PID" "$(tid_of worker)")" = 0 ]
}

@test "nice: setpriority(PRIO_PROCESS, 0, -10) through rtkit: that thread alone gets nice -10" {
	probe_run nice-probe setpriority -10
	[ "$(call_of setpriority)" = "rc=0 err=OK" ]
	[ "$(nice_of "$PID" "$(tid_of worker)")" = -10 ]
	[ "$(nice_of "$PID" "$(tid_of main)")" = 0 ]
	# rtkit's MakeThreadHighPriority: SCHED_OTHER with SCHED_RESET_ON_FORK
	[ "$(sched_of "$(tid_of worker)")" = "SCHED_OTHER|SCHED_RESET_ON_FORK 0" ]
}

@test "nice: nice(-25) is clamped to rtkit's MinNiceLevel and returns the new value" {
	probe_run nice-probe nice -25
	[ "$(call_of nice)" = "rc=0 err=OK" ]
	grep -qx "nice-returned $MIN_NICE" "$OUT"
	[ "$(nice_of "$PID" "$(tid_of worker)")" = "$MIN_NICE" ]
	[ "$(nice_of "$PID" "$(tid_of main)")" = 0 ]
}

@test "nice: nice(-5) without the shim fails with EPERM" {
	probe_run LD_PRELOAD= nice-probe nice -5
	[ "$(call_of nice)" = "rc=-1 err=EPERM" ]
	[ "$(nice_of "$PID" "$(tid_of worker)")" = 0 ]
}

@test "nice: setpriority on another thread's TID changes that thread, not the caller" {
	probe_run nice-probe by-tid -7
	[ "$(call_of by-tid)" = "rc=0 err=OK" ]
	[ "$(nice_of "$PID" "$(tid_of worker)")" = -7 ]
	[ "$(nice_of "$PID" "$(tid_of main)")" = 0 ]
}

@test "nice: setpriority on another process of the same user (WithPID): its main thread" {
	probe_run LD_PRELOAD= nice-probe park
	run -0 as_user env LD_PRELOAD="$SHIM" "$PROBES/nice-probe" by-pid "$PID" -5 </dev/null
	grep -q '^call by-pid rc=0 err=OK' <<<"$output"
	[ "$(nice_of "$PID" "$PID")" = -5 ]
	grep -q "Successfully made thread $PID of process $PID owned by .* high priority at nice level -5" \
		"$TB_DIR/rtkit.log"
}

@test "nice: invalid and foreign targets give exactly the unshimmed errno" {
	run -0 as_user env LD_PRELOAD= "$PROBES/nice-probe" parity 1 </dev/null
	local plain
	plain=$(grep '^case' <<<"$output")
	run -0 as_user env LD_PRELOAD="$SHIM" "$PROBES/nice-probe" parity 1 </dev/null
	[ "$(grep '^case' <<<"$output")" = "$plain" ]
	grep -q '^case which-42 ret=-1 errno=EINVAL' <<<"$output"
	grep -q '^case no-such-process ret=-1 errno=ESRCH' <<<"$output"
	grep -q '^case foreign ret=-1 errno=EPERM' <<<"$output"
}

@test "nice: polkit refuses: setpriority keeps EACCES and the nice level" {
	polkit_set deny
	probe_run nice-probe setpriority -10
	[ "$(call_of setpriority)" = "rc=-1 err=EACCES" ]
	[ "$(nice_of "$PID" "$(tid_of worker)")" = 0 ]
}

# ---- RTSHIM_NICE_FALLBACK ---------------------------------------------------------------------

@test "nice fallback (default): rtkit refuses realtime → EPERM as without rtshim, thread at MinNiceLevel" {
	polkit_set nice-only
	probe_run nice-probe rt 10
	[ "$(call_of rt)" = "rc=-1 err=EPERM" ]
	grep -qx 'policy-seen OTHER' "$OUT"
	[ "$(nice_of "$PID" "$(tid_of worker)")" = "$MIN_NICE" ]
	[ "$(nice_of "$PID" "$(tid_of main)")" = 0 ]
	[[ $(sched_of "$(tid_of worker)") == *SCHED_OTHER* ]]
}

@test "nice fallback: RTSHIM_NICE_FALLBACK=off leaves the refused thread alone" {
	polkit_set nice-only
	probe_run RTSHIM_NICE_FALLBACK=off nice-probe rt 10
	[ "$(call_of rt)" = "rc=-1 err=EPERM" ]
	[ "$(nice_of "$PID" "$(tid_of worker)")" = 0 ]
}

@test "nice fallback: rtrun --nice-fallback (always) never asks for realtime, gives the nice level" {
	local -a WRAP=("$RTRUN" --nice-fallback)
	probe_run nice-probe rt 10
	[ "$(call_of rt)" = "rc=-1 err=EPERM" ]
	[ "$(nice_of "$PID" "$(tid_of worker)")" = "$MIN_NICE" ]
	[ "$(sched_of "$(tid_of worker)")" = "SCHED_OTHER|SCHED_RESET_ON_FORK 0" ]
	# rtkit was asked for a nice level for that thread, never for realtime
	grep -q "Successfully made thread $(tid_of worker) of process $PID .* high priority" "$TB_DIR/rtkit.log"
	! grep -q "thread $(tid_of worker) of process $PID .* RT at priority" "$TB_DIR/rtkit.log"
}

# ---- RTSHIM_TRACE and RTSHIM_ONLY -------------------------------------------------------------


@test "only: RTSHIM_ONLY=libaska* forwards the request from libaska.so, passes libaskb.so's through" {
	probe_run 'RTSHIM_ONLY=libaska*' two-libs 10
	[ "$(call_of a)" = "rc=0 err=OK" ]
	[ "$(call_of b)" = "rc=1 err=EPERM" ]
	[[ $(sched_of "$(tid_of a)") == "SCHED_RR|SCHED_RESET_ON_FORK 10" ]]
	[ "$(sched_of "$(tid_of b)")" = "SCHED_OTHER 0" ]
}

@test "only: rtrun --only 'nomatch,libaskb.so*' selects the other library" {
	run -0 as_user "$RTRUN" --only 'nomatch,libaskb.so*' "$PROBES/two-libs" 10 </dev/null
	grep -q '^call a rc=1 err=EPERM' <<<"$output"
	grep -q '^call b rc=0 err=OK' <<<"$output"
	grep -q '^kernel b RR|RESET 10' <<<"$output"
	grep -q '^kernel a OTHER 0' <<<"$output"
}

@test "trace: RTSHIM_TRACE=1 logs each request, its decision and both libraries' frames" {
	probe_run RTSHIM_TRACE=1 two-libs 10
	[ "$(call_of a)" = "rc=0 err=OK" ]
	[ "$(call_of b)" = "rc=0 err=OK" ]
	grep -Eq "trace: thread $(tid_of a): pthread_setschedparam\(self, FIFO, 10\), called from:" "$ERR"
	grep -Eq 'trace:   #0 libaska\.so aska_realtime\+0x' "$ERR"
	grep -Eq 'trace:   #0 libaskb\.so askb_realtime\+0x' "$ERR"
	# a function the executable does not export is named from its symbol table, as gdb does
	grep -Eq 'trace:   #1 two-libs via_a\+0x' "$ERR"
	grep -Eq "thread $(tid_of b): FIFO/10 requested → rtkit RR/10" "$ERR"
	grep -Eq "trace: thread $(tid_of b): pthread_setschedparam\(self, FIFO, 10\) → OK" "$ERR"
	# libunwind was loaded for it
	grep -q 'libunwind' "/proc/$PID/maps"
}

@test "trace: libunwind is not loaded without RTSHIM_TRACE/RTSHIM_ONLY; rtrun --trace turns it on" {
	probe_run two-libs 10
	[ "$(call_of a)" = "rc=0 err=OK" ]
	! grep -q 'libunwind' "/proc/$PID/maps" || false
	[ ! -s "$ERR" ]
	probe_stop
	run -0 as_user "$RTRUN" --trace "$PROBES/two-libs" 10 </dev/null
	grep -Eq 'trace:   #0 libaska\.so aska_realtime\+0x' <<<"$output"
}

@test "only/trace: pthread_create with an explicit FIFO attribute is traced and filtered in the creating thread" {
	probe_run RTSHIM_TRACE=1 jack2-create 10
	[ "$(call_of create-t0)" = "rc=0 err=OK" ]
	[[ $(sched_of "$(tid_of t0)") == "SCHED_RR|SCHED_RESET_ON_FORK 10" ]]
	grep -q 'pthread_create(EXPLICIT FIFO, 10), called from:' "$ERR"
	grep -q 'pthread_create(EXPLICIT FIFO, 10) → OK' "$ERR"
	probe_stop
	# not from a matching library: exactly what pthread_create does without rtshim
	probe_run 'RTSHIM_ONLY=libjack*' jack2-create 10
	[ "$(call_of create-t0)" = "rc=1 err=EPERM" ]
	! grep -q '^started' "$OUT"
}

# ---- the Realtime portal in a sandbox ---------------------------------------------------------

# A private session bus and the real xdg-desktop-portal on it, both as the test user; the portal
# reaches the testbed's rtkit on the private system bus.  Started once (setup_file); a failure
# is reported by the portal tests (portal_ready), not by the whole suite.
portal_start() {
	if [[ ! -x $PORTAL ]]; then
		export PORTAL_ERROR="xdg-desktop-portal is not installed (scripts/install-deps)"
		return 0
	fi
	SESS=$(mktemp -d /tmp/rtshim-session.XXXXXX)
	chmod 755 "$SESS"
	chown "$TEST_USER" "$SESS"
	cat >"$SESS/session.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=$SESS/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
EOF
	SESSION_ADDR=unix:path=$SESS/bus
	export SESS SESSION_ADDR
	as_user dbus-daemon --config-file="$SESS/session.conf" --fork --print-pid \
		>"$SESS/bus.pid" </dev/null 3>&-
	as_user env DBUS_SESSION_BUS_ADDRESS="$SESSION_ADDR" XDG_RUNTIME_DIR="$SESS" "$PORTAL" -v -r \
		>"$SESS/portal.log" 2>&1 </dev/null 3>&- &
	local i pid=
	for ((i = 0; i < 200; i++)); do
		pid=$(as_user dbus-send --bus="$SESSION_ADDR" --print-reply=literal \
			--dest=org.freedesktop.DBus /org/freedesktop/DBus \
			org.freedesktop.DBus.GetConnectionUnixProcessID \
			string:org.freedesktop.portal.Desktop 2>/dev/null | awk '{ print $2 }')
		[[ -n $pid ]] && break
		sleep 0.05
	done
	if [[ -n $pid ]]; then
		echo "$pid" >"$SESS/portal.pid"
	else
		PORTAL_ERROR="xdg-desktop-portal did not appear on the session bus: $(tail -n 5 "$SESS/portal.log")"
		export PORTAL_ERROR
		return 0
	fi
	portal_serves_hosts
}

# Can this xdg-desktop-portal make any caller's thread realtime?  A plain program (no shim, the
# bounded RLIMIT_RTTIME rtkit wants) asks it for its own main thread.  xdg-desktop-portal 1.20
# (Debian 13) cannot map a host caller's PID ("Could not get pidns for pid N: Could not fstatat
# ns/pid: Not a directory": upstream issues 1653, 1756 and 1856 of flatpak/xdg-desktop-portal), so
# its Realtime portal grants nothing to anyone: the tests of a grant through it say so as a skip.
# Any other refusal fails them.
portal_serves_hosts() {
	as_user env DBUS_SESSION_BUS_ADDRESS="$SESSION_ADDR" sh -c 'exec prlimit --rttime=200000 dbus-send --session \
		--print-reply --dest=org.freedesktop.portal.Desktop /org/freedesktop/portal/desktop \
		org.freedesktop.portal.Realtime.MakeThreadRealtimeWithPID uint64:$$ uint64:$$ uint32:1' \
		>/dev/null 2>&1 && return 0
	if grep -q 'Could not get pidns for pid [0-9]*: Could not fstatat ns/pid' "$SESS/portal.log"; then
		PORTAL_SKIP="$("$PORTAL" --version 2>/dev/null) cannot map the PID of a host caller (its log: Could not get pidns ... Not a directory; flatpak/xdg-desktop-portal issues 1653, 1756), so its Realtime portal grants no program here"
		export PORTAL_SKIP
	fi
}

portal_ready() {
	[[ -z ${PORTAL_ERROR:-} ]] || { echo "$PORTAL_ERROR"; return 1; }
}

# portal_grants: portal_ready, and a test of a grant through the portal skips where the portal
# grants no one (portal_serves_hosts).
portal_grants() {
	portal_ready
	[[ -z ${PORTAL_SKIP:-} ]] || skip "$PORTAL_SKIP"
}

portal_stop() {
	[[ -n ${SESS:-} && -d $SESS ]] || return 0
	local f pid i
	for f in portal bus; do
		[[ -s $SESS/$f.pid ]] || continue
		pid=$(cat "$SESS/$f.pid")
		kill "$pid" 2>/dev/null || true
		for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
	done
	rm -rf "$SESS"
}

# In the sandbox: $SNAP set, the session bus is the portal's, and the system bus is unreachable
# for the program (so a grant can only have come through the portal).
SANDBOX_ENV=(SNAP=/snap/rtshim-probe/1 DBUS_SYSTEM_BUS_ADDRESS=unix:path=/nonexistent/system_bus_socket)

@test "portal: \$SNAP set → realtime through the real xdg-desktop-portal on the session bus" {
	portal_grants
	probe_run "${SANDBOX_ENV[@]}" DBUS_SESSION_BUS_ADDRESS="$SESSION_ADDR" nice-probe rt 10
	[ "$(call_of rt)" = "rc=0 err=OK" ]
	[ "$(sched_of "$(tid_of worker)")" = "SCHED_RR|SCHED_RESET_ON_FORK 10" ]
	# the portal forwarded a WithPID call to rtkit for that thread
	grep -q "Successfully made thread $(tid_of worker) of process $PID" "$TB_DIR/rtkit.log"
}

@test "portal: \$SNAP set → setpriority goes through the portal too" {
	portal_grants
	probe_run "${SANDBOX_ENV[@]}" DBUS_SESSION_BUS_ADDRESS="$SESSION_ADDR" nice-probe setpriority -8
	[ "$(call_of setpriority)" = "rc=0 err=OK" ]
	[ "$(nice_of "$PID" "$(tid_of worker)")" = -8 ]
}

@test "portal: \$SNAP set and no session bus → EPERM, rtkit on the system bus is not used instead" {
	probe_run SNAP=/snap/rtshim-probe/1 DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent/bus \
		nice-probe rt 10
	[ "$(call_of rt)" = "rc=-1 err=EPERM" ]
	[ "$(sched_of "$(tid_of worker)")" = "SCHED_OTHER 0" ]
}

@test "portal: rtrun --check in a sandbox with no session bus names the portal as what is missing, not the system bus" {
	run -1 as_user env SNAP=/snap/rtshim-probe/1 DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent/bus \
		"$RTRUN" --check
	[[ $output == *'sandbox         Snap ($SNAP is set)'* ]]
	[[ $output == *'fix: in this sandbox (Snap ($SNAP is set)) rtshim asks the Realtime portal'* ]]
	[[ $output != *"fix: start the system bus"* ]]
}

@test "portal: on the host (no \$SNAP) the portal is never used" {
	portal_ready
	probe_run DBUS_SYSTEM_BUS_ADDRESS=unix:path=/nonexistent/system_bus_socket \
		DBUS_SESSION_BUS_ADDRESS="$SESSION_ADDR" nice-probe rt 10
	[ "$(call_of rt)" = "rc=-1 err=EPERM" ]
	[ "$(sched_of "$(tid_of worker)")" = "SCHED_OTHER 0" ]
}

# seccomp_run [--noshim] FILTER WHO: tests/probes/seccomp-sandbox in the sandbox (the portal's
# session bus, no system bus), bounded; its lines in $output
seccomp_run() {
	local -a env=("${SANDBOX_ENV[@]}" DBUS_SESSION_BUS_ADDRESS="$SESSION_ADDR" RTSHIM_TIMEOUT_MS=10000)
	if [[ $1 == --noshim ]]; then shift; else env+=("LD_PRELOAD=$SHIM"); fi
	run timeout 30 "$TESTBED" run --dir "$TB_DIR" -- env "${env[@]}" prlimit --rttime=200000 \
		"$PROBES/seccomp-sandbox" "$@"
}
seccomp_line() { awk -v k="$1" 'index($0, k " ") == 1 { print substr($0, length(k) + 2); exit }' <<<"$output"; }

@test "portal: in a sandbox under a Flatpak-like seccomp filter (EPERM and ENOSYS for what Flatpak refuses) → realtime through the portal, for the main thread, a thread and a forked child" {
	portal_grants
	local who
	for who in main thread child; do
		seccomp_run --noshim errno-flatpak "$who"
		echo "without the shim, $who: $output"
		[ "$status" -eq 0 ]
		[ "$(seccomp_line "call fifo")" = "rc=-1 err=EPERM" ]
		seccomp_run errno-flatpak "$who"
		echo "with the shim, $who: $output"
		[ "$status" -eq 0 ]
		[ "$(seccomp_line "call fifo")" = "rc=0 err=OK" ]
		[ "$(seccomp_line "kernel $who")" = "RR|RESET 10" ]
	done
}

@test "portal: in a sandbox under a filter that kills or traps sockets → EPERM and exit 0 as without the shim, and the program's SIGSYS handler never runs" {
	portal_ready
	local filter who
	for filter in kill-socket trap-socket; do
		for who in main handler; do
			seccomp_run --noshim "$filter" "$who"
			[ "$status" -eq 0 ]
			local without=$output
			seccomp_run "$filter" "$who"
			echo "$filter $who: status $status"$'\n'"$output"
			[ "$status" -eq 0 ]
			[ "$output" = "$without" ]
			[ "$(seccomp_line "call fifo")" = "rc=-1 err=EPERM" ]
			[ "$(seccomp_line sigsys)" = 0 ]
		done
	done
}

# flatpak_run FILTER [--noshim] WHO: tests/probes/seccomp-sandbox as the test user in a
# Flatpak-like sandbox made with the real bubblewrap, as `flatpak run` makes one: a PID namespace
# of its own, a tmpfs root with the host's /usr, /etc and /tmp, /.flatpak-info naming the app and
# an instance whose bwrapinfo.json (bwrap --info-fd) tells the portal the sandbox's PID
# namespace, FILTER installed by bwrap --seccomp before the program runs, the portal's session
# bus and no system bus.  Bounded; its lines in $output.
flatpak_run() {
	local filter=$1 id=$RANDOM$RANDOM
	shift
	local -a env=(RTSHIM_TIMEOUT_MS=10000)
	if [[ $1 == --noshim ]]; then shift; else env+=("LD_PRELOAD=$SHIM"); fi
	"$PROBES/seccomp-sandbox" --bpf "$filter" >"$SESS/filter-$id.bpf"
	printf '[Application]\nname=org.example.Probe\nruntime=runtime/org.example.Platform/x86_64/1\n\n[Instance]\ninstance-id=%s\n' \
		"$id" >"$SESS/flatpak-info-$id"
	mkdir -p "$SESS/.flatpak/$id"
	chown -R "$TEST_USER" "$SESS/.flatpak"
	chmod 644 "$SESS/filter-$id.bpf" "$SESS/flatpak-info-$id"
	local -a bw=(--unshare-pid --die-with-parent --tmpfs / --ro-bind /usr /usr --ro-bind /etc /etc
		--proc /proc --dev /dev --bind /tmp /tmp --ro-bind "$SESS/flatpak-info-$id" /.flatpak-info
		--setenv DBUS_SESSION_BUS_ADDRESS "$SESSION_ADDR" --setenv XDG_RUNTIME_DIR "$SESS"
		--setenv DBUS_SYSTEM_BUS_ADDRESS unix:path=/nonexistent/system_bus_socket)
	local l
	for l in bin sbin lib lib32 lib64 libx32; do
		[[ -L /$l ]] && bw+=(--symlink "$(readlink "/$l")" "/$l")
	done
	run timeout 30 "$TESTBED" run --dir "$TB_DIR" -- bash -c 'exec bwrap "${@:3}" 5>"$1" 6<"$2"' _ \
		"$SESS/.flatpak/$id/bwrapinfo.json" "$SESS/filter-$id.bpf" "${bw[@]}" --info-fd 5 --seccomp 6 \
		env "${env[@]}" prlimit --rttime=200000 "$PROBES/seccomp-sandbox" none "$@"
}

@test "portal: a Flatpak-like bubblewrap sandbox whose filter refuses what Flatpak refuses → realtime through the real portal (PIDs mapped from the sandbox's namespace), for the main thread, a thread and a forked child" {
	portal_grants
	local who
	for who in main thread child; do
		flatpak_run errno-flatpak --noshim "$who"
		echo "without the shim, $who: $output"
		[ "$status" -eq 0 ]
		[ "$(seccomp_line "call fifo")" = "rc=-1 err=EPERM" ]
		flatpak_run errno-flatpak "$who"
		echo "with the shim, $who: $output"
		[ "$status" -eq 0 ]
		[ "$(seccomp_line "call fifo")" = "rc=0 err=OK" ]
		[ "$(seccomp_line "kernel $who")" = "RR|RESET 10" ]
	done
	grep -q 'Using pid namespace info from bwrap info' "$SESS/portal.log"
}

@test "portal: a Flatpak-like bubblewrap sandbox whose filter kills or traps sockets → EPERM and exit 0, as without the shim" {
	portal_ready
	local filter
	for filter in kill-socket trap-socket; do
		flatpak_run "$filter" --noshim main
		[ "$status" -eq 0 ]
		local without=$output
		flatpak_run "$filter" main
		echo "$filter: status $status"$'\n'"$output"
		[ "$status" -eq 0 ]
		[ "$output" = "$without" ]
		[ "$(seccomp_line "call fifo")" = "rc=-1 err=EPERM" ]
	done
}

@test "portal: rtrun --check in a sandbox asks the portal, and its test thread gets realtime" {
	portal_grants
	run -0 as_user env "${SANDBOX_ENV[@]}" DBUS_SESSION_BUS_ADDRESS="$SESSION_ADDR" "$RTRUN" --check
	[[ $output == *'sandbox         Snap ($SNAP is set)'* ]]
	[[ $output == *'org.freedesktop.portal.Realtime answers on the session bus: MaxRealtimePriority 20'* ]]
	[[ $output == *'yes: programs started with rtrun get realtime through rtkit'* ]]
	[[ $output == *'requests go through the Realtime portal'* ]]
}
