#!/usr/bin/env bats
# The shim's log lines go only to the program's own stderr: a program that closed descriptor 2
# (started with `2>&-`, or closing it itself, as daemons do) and then opened a data file gets
# descriptor 2 for that file, and not one line of the shim may land in it, whatever the shim
# has to say (rtkit unreachable, a bad RTSHIM_* value, RTSHIM_LOG=info).  With descriptor 2
# intact the same lines do reach stderr.  tests/probes/datafile-fd2 runs as the unprivileged
# test user with the shim preloaded against the real stack; the data file is read afterwards.

bats_require_minimum_version 1.5.0
load common

RECORDS=$'record 1\nrecord 2\nrecord 3\nrecord 4'

setup_file() {
	tb_start -- --actions-per-burst-max=1000 --threads-per-user-max=1000 \
		--processes-per-user-max=1000
	WORK=$(mktemp -d /tmp/rtshim-logfd.XXXXXX)
	chmod 1777 "$WORK" # the test user writes its data files here
	export WORK
}
teardown_file() {
	tb_stop
	[[ -n ${WORK:-} ]] && rm -rf "$WORK"
}

# df_run STDERR-MODE VAR=VALUE...: the probe with the shim and those variables; its data file is
# $DATA, its stdout $OUT, and (mode "file") its stderr $ERR.  Modes: "closed" starts it with
# 2>&-; "self-closed" has it close descriptor 2 itself; "file" keeps stderr, to $ERR.
df_run() {
	local mode=$1 redirect
	shift
	DATA=$WORK/data.$BATS_TEST_NUMBER OUT=$WORK/out.$BATS_TEST_NUMBER ERR=$WORK/err.$BATS_TEST_NUMBER
	rm -f "$DATA" "$OUT" "$ERR"
	local -a args=("$PROBES/datafile-fd2" "$DATA")
	case $mode in
	closed) redirect='2>&-' ;;
	self-closed) redirect='2>"$e"'; args+=(close) ;;
	file) redirect='2>"$e"' ;;
	esac
	# the redirections are made by the test user's shell, right before the probe starts
	run -0 timeout 30 "$TESTBED" run --dir "$TB_DIR" -- env LD_PRELOAD="$SHIM_PRELOAD" "$@" \
		sh -c "o=\$1 e=\$2; shift 2; exec \"\$@\" >\"\$o\" $redirect" sh "$OUT" "$ERR" "${args[@]}"
	cat "$OUT"
	echo "data file:"
	cat "$DATA"
}

# the data file holds exactly the program's records
data_intact() { [ "$(cat "$DATA")" = "$RECORDS" ]; }

@test "2>&-, data file on descriptor 2, rtkit unreachable: the data file holds only its records" {
	df_run closed DBUS_SYSTEM_BUS_ADDRESS=unix:path=/nonexistent/bus
	grep -q '^fd2 closed-at-start=1$' "$OUT"
	grep -q '^data fd 2$' "$OUT"
	grep -q '^call self rc=-1 err=EPERM$' "$OUT" # the warning had something to say
	data_intact
}

@test "2>&-, data file on descriptor 2, a bad RTSHIM_TIMEOUT_MS: the data file holds only its records" {
	df_run closed RTSHIM_TIMEOUT_MS=soon
	grep -q '^data fd 2$' "$OUT"
	grep -q '^call self rc=0 err=OK$' "$OUT"
	data_intact
}

@test "2>&-, data file on descriptor 2, RTSHIM_LOG=info: the data file holds only its records" {
	df_run closed RTSHIM_LOG=info
	grep -q '^data fd 2$' "$OUT"
	grep -q '^call self rc=0 err=OK$' "$OUT" # granted: an info line for it
	grep -q '^call thread rc=0 err=OK$' "$OUT"
	data_intact
}

@test "descriptor 2 closed by the program itself, reused for data: no line in it, all three causes" {
	df_run self-closed DBUS_SYSTEM_BUS_ADDRESS=unix:path=/nonexistent/bus RTSHIM_TIMEOUT_MS=soon \
		RTSHIM_LOG=info
	grep -q '^fd2 closed-at-start=0$' "$OUT"
	grep -q '^data fd 2$' "$OUT"
	grep -q '^call self rc=-1 err=EPERM$' "$OUT"
	data_intact
	[ ! -s "$ERR" ] # stderr, now closed, got nothing either
}

@test "descriptor 2 intact: the same warnings and info lines reach stderr, the data file is clean" {
	df_run file DBUS_SYSTEM_BUS_ADDRESS=unix:path=/nonexistent/bus RTSHIM_TIMEOUT_MS=soon
	grep -q '^data fd [3-9][0-9]*$' "$OUT" # not 2: stderr is open
	data_intact
	cat "$ERR"
	grep -q "^rtshim\[[0-9]*\]: .*RTSHIM_TIMEOUT_MS" "$ERR"
	grep -q "^rtshim\[[0-9]*\]: cannot reach rtkit" "$ERR"
	df_run file RTSHIM_LOG=info
	data_intact
	grep -q "^rtshim\[[0-9]*\]: thread [0-9]*: FIFO/5 requested → rtkit RR/5" "$ERR"
}
