#!/usr/bin/env bats
# The real stack on dbus-broker, the system bus of Fedora and Arch (scripts/testbed start
# --broker: dbus-broker-launch and dbus-broker unpacked by scripts/install-deps, with the same
# system policy and rtkit's and polkit's own policy files): the shim's request reaches rtkit
# through it and is granted, or refused by polkit, as on dbus-daemon.  Read from the kernel.

bats_require_minimum_version 1.5.0
load common

BROKER_ROOT=${RTSHIM_DBUS_BROKER_DIR:-/var/tmp/rtshim-dbus-broker}

setup_file() {
	[[ -x $BROKER_ROOT/usr/bin/dbus-broker-launch ]] || return 0
	tb_start --broker
}
teardown_file() { tb_stop; }

setup() {
	[[ -x $BROKER_ROOT/usr/bin/dbus-broker-launch ]] ||
		skip "dbus-broker is not unpacked in $BROKER_ROOT (scripts/install-deps)"
}

teardown() {
	tb_report_failure
	probe_stop
}

# probe_start ARGS...: cyclictest-style under the shim as the test user, kept running by a FIFO
# this shell holds, until its first thread has said what it sees (or it ended); OUT, PID.
probe_start() {
	local fifo=$BATS_TEST_TMPDIR/probe.in i
	OUT=$BATS_TEST_TMPDIR/probe.out
	rm -f "$fifo"; mkfifo -m 666 "$fifo"
	fresh_outputs "$OUT"
	as_user env LD_PRELOAD="$SHIM_PRELOAD" "$PROBES/cyclictest-style" "$@" <"$fifo" >"$OUT" 2>&1 3>&- &
	BG=$!
	exec 8>"$fifo"
	for ((i = 0; i < 400; i++)); do
		grep -q '^sees t0' "$OUT" 2>/dev/null && break
		kill -0 "$BG" 2>/dev/null || break
		sleep 0.05
	done
	PID=$(awk '/^pid /{ print $2; exit }' "$OUT")
	TID=$(awk '$1 == "tid" && $2 == "t0" { print $3; exit }' "$OUT")
	cat "$OUT"
}

probe_stop() {
	[[ -n ${BG:-} ]] || return 0
	exec 8>&-
	wait "$BG" || true
	unset BG
}

# The bus the stack runs on is dbus-broker's: the process the bus names as the owner of
# org.freedesktop.DBus (dbus-broker names its launcher; dbus-daemon would name itself) runs
# dbus-broker-launch, and its child dbus-broker.
bus_is_broker() {
	local pid exe
	pid=$(as_root dbus-send --system --print-reply=literal --dest=org.freedesktop.DBus \
		/org/freedesktop/DBus org.freedesktop.DBus.GetConnectionUnixProcessID \
		string:org.freedesktop.DBus | awk '{ print $2 }')
	exe=$(tr '\0' '\n' <"/proc/$pid/cmdline" | head -n 1)
	echo "bus pid $pid: $exe"
	[ "${exe##*/}" = dbus-broker-launch ]
	pgrep -P "$pid" -x dbus-broker
}

@test "on dbus-broker: a thread's sched_setscheduler under the shim, as the test user, is granted SCHED_RR by rtkit" {
	bus_is_broker
	probe_start 1 10
	[ -n "$PID" ]
	[ -n "$TID" ]
	grep -q "^call setscheduler-t0 rc=0 err=OK" "$OUT"
	[ "$(sched_of "$PID" "$TID")" = "SCHED_RR|SCHED_RESET_ON_FORK 10" ]
}

@test "on dbus-broker: refused by polkit, the thread stays SCHED_OTHER and the call fails with EPERM" {
	tb_polkit deny
	bus_is_broker
	probe_start 1 10
	[ -n "$PID" ]
	[ -n "$TID" ]
	grep -q "^call setscheduler-t0 rc=-1 err=EPERM" "$OUT"
	[ "$(sched_of "$PID" "$TID")" = "SCHED_OTHER 0" ]
	tb_polkit allow
}
