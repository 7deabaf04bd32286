#!/usr/bin/env bats
# The testbed itself: the real stack comes up, proves the premise, and leaves nothing behind.

bats_require_minimum_version 1.5.0
load common

RTKIT_CALL=(busctl --system call org.freedesktop.RealtimeKit1 /org/freedesktop/RealtimeKit1
	org.freedesktop.RealtimeKit1 MakeThreadRealtime tu 0 10)

teardown() { tb_stop; }

# Is PID a live process (a zombie has exited; it only waits for PID 1 to reap it)?
running() { [[ -r /proc/$1/stat && $(awk '{ sub(/^.*\) /, ""); print $1 }' "/proc/$1/stat") != Z ]]; }

# PIDs of dbus-daemon/polkitd/rtkit-daemon processes whose command line names DIR.
stack_pids() { pgrep -f -- "$1" || true; }

@test "testbed: start brings up bus, polkitd and rtkit; stop leaves nothing running" {
	tb_start
	run "$TESTBED" status --dir "$TB_DIR"
	[ "$status" -eq 0 ]
	[[ $output == *"bus: running"* && $output == *"polkit: running"* && $output == *"rtkit: running"* ]]
	local pids
	pids="$(tb_pid bus) $(tb_pid polkit) $(tb_pid rtkit)"
	local dir=$TB_DIR
	"$TESTBED" stop --dir "$dir"
	for p in $pids; do ! running "$p" || false; done
	[ ! -e "$dir/bus" ]
	rm -rf "$dir"; unset TB_DIR
}

@test "testbed: the test user's direct SCHED_FIFO call fails with EPERM" {
	tb_start
	run as_user chrt -f 10 true
	[ "$status" -ne 0 ]
	[[ $output == *"Operation not permitted"* ]]
	run as_user sh -c 'ulimit -r; id -u'
	[ "${lines[0]}" = 0 ]
	[ "${lines[1]}" != 0 ]
}

@test "testbed: started from a realtime, reniced caller, the stack and the test user's program run SCHED_OTHER, nice 0" {
	# some machines start everything SCHED_RR: the test user's call would not fail as on a desktop
	"$TESTBED" stop --dir "${TB_DIR:=$(mktemp -d /tmp/rtshim-tb.XXXXXX)}" >/dev/null 2>&1 || true
	export TB_DIR
	chrt -r 10 nice -n -5 "$TESTBED" start --dir "$TB_DIR"
	local p
	for p in "$(tb_pid bus)" "$(tb_pid polkit)" "$(tb_pid rtkit)"; do
		[ "$(chrt -p "$p" | awk -F': ' '/policy/ { print $2 }')" = SCHED_OTHER ]
	done
	run chrt -r 10 nice -n -5 "$TESTBED" run --dir "$TB_DIR" -- sh -c 'chrt -p $$; cut -d" " -f19 /proc/$$/stat'
	echo "$output"
	[[ ${lines[0]} == *"policy: SCHED_OTHER" ]]
	# the nice level: the last line (util-linux 2.41's chrt -p prints a third line, the runtime)
	[ "${lines[-1]}" = 0 ]
	run chrt -r 10 "$TESTBED" run --dir "$TB_DIR" -- chrt -f 10 true
	[ "$status" -ne 0 ]
	[[ $output == *"Operation not permitted"* ]]
}

@test "testbed: rtkit grants the test user RT with a bounded RLIMIT_RTTIME, refuses without" {
	tb_start
	run as_user prlimit --rttime=200000 "${RTKIT_CALL[@]}"
	[ "$status" -eq 0 ]
	run as_user "${RTKIT_CALL[@]}"
	[ "$status" -ne 0 ]
	[[ $output == *"Access denied"* ]]
	grep -q "Successfully made thread" "$TB_DIR/rtkit.log"
}

@test "testbed: a deny rule makes polkit refuse, only inside polkitd's namespace" {
	tb_start --deny
	run as_user prlimit --rttime=200000 "${RTKIT_CALL[@]}"
	[ "$status" -ne 0 ]
	[[ $output == *"Access denied"* ]]
	! grep -rqs rtshim /etc/polkit-1/rules.d || false
	tb_polkit allow
	run as_user prlimit --rttime=200000 "${RTKIT_CALL[@]}"
	[ "$status" -eq 0 ]
}

@test "testbed: rtkit limits from the command line reach the daemon" {
	# rtkit refuses a client maximum above its own priority (21 by default)
	tb_start -- --our-realtime-priority=31 --max-realtime-priority=30
	run as_user busctl --system get-property org.freedesktop.RealtimeKit1 /org/freedesktop/RealtimeKit1 \
		org.freedesktop.RealtimeKit1 MaxRealtimePriority
	[ "$output" = "i 30" ]
}

@test "testbed: a failed start leaves nothing running" {
	TB_DIR=$(mktemp -d /tmp/rtshim-tb.XXXXXX); export TB_DIR
	run "$TESTBED" start --dir "$TB_DIR" -- --no-such-rtkit-option
	[ "$status" -ne 0 ]
	for p in $(stack_pids "$TB_DIR"); do ! running "$p" || false; done
	run "$TESTBED" status --dir "$TB_DIR"
	[ "$status" -ne 0 ]
}

@test "testbed: restart-rtkit gives a new daemon on the same bus" {
	tb_start
	local old new
	old=$(tb_pid rtkit)
	tb_restart_rtkit
	new=$(tb_pid rtkit)
	[ "$old" != "$new" ]
	run as_user prlimit --rttime=200000 "${RTKIT_CALL[@]}"
	[ "$status" -eq 0 ]
}

@test "testbed: start says what runs where; --dir is read wherever it comes before --" {
	TB_DIR=$(mktemp -d /tmp/rtshim-tb.XXXXXX)
	export TB_DIR
	run -0 "$TESTBED" start --dir "$TB_DIR"
	[ "${#lines[@]}" = 2 ]
	[ "${lines[0]}" = "testbed: running in $TB_DIR: dbus-daemon (pid $(tb_pid bus)), polkitd (pid $(tb_pid polkit)), rtkit-daemon (pid $(tb_pid rtkit))" ]
	[ "${lines[1]}" = "export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$TB_DIR/bus" ]
	# --dir after the command's own arguments
	run -0 "$TESTBED" pid rtkit --dir "$TB_DIR"
	[ "$output" = "$(tb_pid rtkit)" ]
	run -0 "$TESTBED" polkit deny --dir "$TB_DIR"
	run as_user "${RTKIT_CALL[@]}"
	[ "$status" -ne 0 ]
	run -0 "$TESTBED" polkit allow --dir="$TB_DIR"
	run -0 as_user prlimit --rttime=200000 "${RTKIT_CALL[@]}"
}

@test "testbed: a command on a directory where nothing runs says so, exit 1" {
	local dir
	dir=$(mktemp -d /tmp/rtshim-tb.XXXXXX)
	run -1 --separate-stderr "$TESTBED" polkit deny --dir "$dir"
	# shellcheck disable=SC2154 # stderr: set by bats' run --separate-stderr
	[ "$stderr" = "testbed: no testbed is running in $dir (start one: scripts/testbed start --dir $dir)" ]
	run -1 --separate-stderr "$TESTBED" pid rtkit --dir "$dir"
	[ "$stderr" = "testbed: rtkit is not running in $dir" ]
	run -1 --separate-stderr "$TESTBED" restart-rtkit --dir "$dir"
	[[ $stderr == "testbed: no testbed is running in $dir "* ]]
	rmdir "$dir"
}

@test "testbed: run gives the test user a user's PATH, not root's" {
	tb_start
	run -0 env PATH="/root/bin:/usr/sbin:$PATH" "$TESTBED" run --dir "$TB_DIR" -- sh -c 'echo "$PATH"'
	[ "$output" = "$(sed -n 's/^ENV_PATH[[:space:]]*PATH=//p' /etc/login.defs):/usr/sbin:/sbin" ]
	[[ $output != */root* && $output != */local/sbin* ]]
	# --root keeps root's
	run -0 env PATH="/root/bin:$PATH" "$TESTBED" run --dir "$TB_DIR" --root -- sh -c 'echo "$PATH"'
	[[ $output == /root/bin:* ]]
}

@test "testbed: start --broker runs dbus-broker in place of dbus-daemon, mounts nothing on the host, and stop leaves none of its processes running" {
	local broker=${RTSHIM_DBUS_BROKER_DIR:-/var/tmp/rtshim-dbus-broker}
	[[ -x $broker/usr/bin/dbus-broker-launch ]] || skip "dbus-broker is not unpacked in $broker (scripts/install-deps)"
	local host_had=no
	[[ -e /usr/bin/dbus-broker ]] && host_had=yes
	TB_DIR=$(mktemp -d /tmp/rtshim-tb.XXXXXX)
	export TB_DIR
	run -0 "$TESTBED" start --broker --dir "$TB_DIR"
	[ "${lines[0]}" = "testbed: running in $TB_DIR: dbus-broker-launch (pid $(tb_pid bus)), polkitd (pid $(tb_pid polkit)), rtkit-daemon (pid $(tb_pid rtkit))" ]
	local launcher pids
	launcher=$(tb_pid bus)
	# the launcher's children: dbus-broker, and the reader of its journal socket
	pgrep -P "$launcher" -x dbus-broker
	pids="$launcher $(pgrep -P "$launcher" | paste -sd ' ') $(tb_pid polkit) $(tb_pid rtkit)"
	[ "$(wc -w <<<"$pids")" = 5 ]
	run -0 as_user prlimit --rttime=200000 "${RTKIT_CALL[@]}"
	# the namespace's mounts (its /run, its /usr/bin) are not the host's
	run -1 grep -F "$TB_DIR" /proc/self/mountinfo
	[ "$([[ -e /usr/bin/dbus-broker ]] && echo yes || echo no)" = "$host_had" ]
	"$TESTBED" stop --dir "$TB_DIR"
	local p i
	for p in $pids; do
		for ((i = 0; i < 200; i++)); do running "$p" || break; sleep 0.05; done
		! running "$p" || false
	done
	rm -rf "$TB_DIR"; unset TB_DIR
}
