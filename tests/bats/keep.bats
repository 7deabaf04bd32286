#!/usr/bin/env bats
# Grants that last (rtshim(7), rtrun(1) --no-keep): what rtkit takes away from outside (its
# canary after a simulated suspend: SIGSTOP and SIGCONT of a canary-enabled rtkit; its Exit and a
# new rtkit) comes back under rtrun, and stays away under rtrun --no-keep, the same program on the
# same rtkit at the same moment.  What the program dropped itself stays dropped, and the keeper
# ends with its program.  Read from the kernel (chrt -p, /proc) and rtkit's own log.

load common

REFUSE=8
setup_file() {
	# the user's runtime directory, as logind makes it
	RUNDIR=$(mktemp -d /tmp/rtshim-keep-run.XXXXXX)
	chown "$TEST_USER" "$RUNDIR"
	export RUNDIR
	tb_start --canary -- --canary-cheep-msec=500 --canary-watchdog-msec=1500 \
		--canary-refuse-sec=$REFUSE
}
teardown_file() { tb_stop; rm -rf "$RUNDIR"; }

teardown() {
	tb_report_failure
	tb_resume
	local i
	for i in 8 9; do eval "exec $i>&-" 2>/dev/null || true; done
	[[ -n ${BG1:-} ]] && { kill "$BG1" 2>/dev/null; wait "$BG1" 2>/dev/null; unset BG1; }
	[[ -n ${BG2:-} ]] && { kill "$BG2" 2>/dev/null; wait "$BG2" 2>/dev/null; unset BG2; }
	[[ -n $(tb_pid rtkit 2>/dev/null) ]] || tb_restart_rtkit >/dev/null
	return 0
}

# start_probe N [RTRUN-OPTIONS...]: shim-script under rtrun as the test user, stdin a FIFO on
# fd N (8 or 9); sets OUT_N, PID_N.
start_probe() {
	local n=$1; shift
	local out=$BATS_TEST_TMPDIR/p$n.out fifo=$BATS_TEST_TMPDIR/p$n.in
	rm -f "$fifo"; mkfifo "$fifo"
	fresh_outputs "$out"
	as_user env XDG_RUNTIME_DIR="$RUNDIR" "$RTRUN" "$@" "$PROBES/shim-script" \
		<"$fifo" >"$out" 2>"$out.err" &
	if ((n == 8)); then BG1=$!; exec 8>"$fifo"; else BG2=$!; exec 9>"$fifo"; fi
	wait_ready "$out" $!
	printf -v "PID_$n" %s "$PID"
}

# ask_thread N PRIO: a new thread of probe N asks FIFO/PRIO; prints its TID.
ask_thread() {
	local out=$BATS_TEST_TMPDIR/p$1.out c
	c=$(grep -c '^thread ' "$out" || true)
	echo "thread $2" >&"$1"
	for ((i = 0; i < 300; i++)); do
		(($(grep -c '^thread ' "$out" || true) > c)) && break
		sleep 0.05
	done
	grep '^thread ' "$out" | tail -n 1 | sed -n 's/.*tid=\([0-9]*\).*/\1/p'
}

# wait_sched PID TID PATTERN SECONDS: until chrt -p shows PATTERN.
wait_sched() {
	local i
	for ((i = 0; i < $4 * 20; i++)); do
		[[ $(sched_of "$1" "$2") == "$3" ]] && return 0
		sleep 0.05
	done
	echo "thread $2: $(sched_of "$1" "$2"), wanted $3"
	return 1
}

# watched N TID: until probe N's keeper has seen thread TID realtime (its record says so).
watched() {
	local pid=PID_$1 i
	for ((i = 0; i < 200; i++)); do
		grep -q "^[0-9]* $2 watched" "$RUNDIR/rtshim/${!pid}.kept" 2>/dev/null && return 0
		sleep 0.05
	done
	echo "the keeper of probe $1 never saw thread $2"
	return 1
}

# suspend PID TID: what a suspend and resume is to rtkit's watchdog, no CPU for 4 s (SIGSTOP,
# SIGCONT), until its canary has demoted thread TID.  Its canary thread and its watchdog both
# wake at SIGCONT; when the canary cheeps first (a loaded machine), the watchdog sees nothing:
# then again, three times at most.
suspend() {
	local n
	for ((n = 0; n < 3; n++)); do
		kill -STOP "$(tb_pid rtkit)"
		sleep 4
		kill -CONT "$(tb_pid rtkit)"
		wait_sched "$1" "$2" 'SCHED_OTHER 0' 5 >/dev/null && return 0
	done
	echo "rtkit's canary never fired"
	return 1
}

# side_by_side: the same program under rtrun -v (probe 8) and rtrun --no-keep (probe 9), a
# thread of each granted FIFO/10 (kept, plain), and the keeper watching its own.
side_by_side() {
	start_probe 8 -v
	start_probe 9 --no-keep
	kept=$(ask_thread 8 10)
	plain=$(ask_thread 9 10)
	wait_sched "$PID_8" "$kept" 'SCHED_RR|SCHED_RESET_ON_FORK 10' 10
	wait_sched "$PID_9" "$plain" 'SCHED_RR|SCHED_RESET_ON_FORK 10' 10
	watched 8 "$kept"
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

@test "realtime that rtkit's canary took away comes back after its refusal window, without --no-keep only" {
	side_by_side
	suspend "$PID_8" "$kept"
	taken=$(now_ms)
	wait_sched "$PID_9" "$plain" 'SCHED_OTHER 0' 10
	wait_sched "$PID_8" "$kept" 'SCHED_RR|SCHED_RESET_ON_FORK 10' $((REFUSE + 10))
	back=$(now_ms)
	echo "# back $((back - taken)) ms after the demotion was seen (window $REFUSE s)" >&3
	# never asked inside the window: rtkit logs each refusal it makes there
	run grep -c 'Recovering from system lockup' "$TB_DIR/rtkit.log"
	[[ $output == 0 ]]
	((back - taken >= (REFUSE - 1) * 1000))
	# the same program without the keeper is still SCHED_OTHER
	[[ $(sched_of "$PID_9" "$plain") == 'SCHED_OTHER 0' ]]
	# -v: said once on the program's stderr
	[[ $(grep -c 'is realtime again' "$BATS_TEST_TMPDIR/p8.out.err") == 1 ]]
	# rtrun --status tells when
	run as_user env XDG_RUNTIME_DIR="$RUNDIR" "$RTRUN" --status "$PID_8"
	echo "$output"
	[[ $output == *"rtkit took realtime away"*"back"* ]]
}

@test "a thread the program dropped itself stays dropped after rtkit's canary" {
	start_probe 8
	kept=$(ask_thread 8 10)
	echo "self 5" >&8
	wait_sched "$PID_8" "$PID_8" 'SCHED_RR|SCHED_RESET_ON_FORK 5' 10
	echo "drop" >&8
	wait_sched "$PID_8" "$PID_8" 'SCHED_OTHER|SCHED_RESET_ON_FORK 0' 10
	watched 8 "$kept"
	suspend "$PID_8" "$kept"
	wait_sched "$PID_8" "$kept" 'SCHED_RR|SCHED_RESET_ON_FORK 10' $((REFUSE + 10))
	# the main thread, dropped by the program before the canary, was not asked for
	[[ $(sched_of "$PID_8" "$PID_8") == SCHED_OTHER* ]]
	[[ $(grep -c "Successfully made thread $PID_8 " "$TB_DIR/rtkit.log") == 1 ]]
}

@test "after rtkit's Exit a new rtkit grants again what the old one took away, without --no-keep only" {
	side_by_side
	as_root dbus-send --system --print-reply --dest=org.freedesktop.RealtimeKit1 \
		/org/freedesktop/RealtimeKit1 org.freedesktop.RealtimeKit1.Exit || true
	wait_sched "$PID_8" "$kept" 'SCHED_OTHER 0' 10
	wait_sched "$PID_9" "$plain" 'SCHED_OTHER 0' 10
	tb_restart_rtkit
	up=$(now_ms)
	wait_sched "$PID_8" "$kept" 'SCHED_RR|SCHED_RESET_ON_FORK 10' 10 || { cat "$BATS_TEST_TMPDIR/p8.out.err"; false; }
	echo "# back $(($(now_ms) - up)) ms after the new rtkit was up" >&3
	[[ $(sched_of "$PID_9" "$plain") == 'SCHED_OTHER 0' ]]
}

@test "the keeper ends with its program" {
	start_probe 8
	kept=$(ask_thread 8 10)
	wait_sched "$PID_8" "$kept" 'SCHED_RR|SCHED_RESET_ON_FORK 10' 10
	# the keeper is the process of the user's whose standard error is the program's
	keeper=
	for c in $(pgrep -u "$TEST_USER" -x rtshim-keeper); do
		[[ $(readlink "/proc/$c/fd/2") == "$BATS_TEST_TMPDIR/p8.out.err" ]] && keeper=$c
	done
	[[ -n $keeper ]]
	# no child of the program: its wait() never sees the keeper
	[[ $(awk '/^PPid:/ { print $2 }' "/proc/$keeper/status") != "$PID_8" ]]
	exec 8>&-
	for ((i = 0; i < 200; i++)); do [[ -d /proc/$keeper ]] || break; sleep 0.05; done
	[[ ! -d /proc/$keeper ]]
}

@test "a refusal when the keeper asks again is said in one line and not asked again" {
	start_probe 8
	kept=$(ask_thread 8 10)
	wait_sched "$PID_8" "$kept" 'SCHED_RR|SCHED_RESET_ON_FORK 10' 10
	watched 8 "$kept"
	tb_polkit deny
	as_root dbus-send --system --print-reply --dest=org.freedesktop.RealtimeKit1 \
		/org/freedesktop/RealtimeKit1 org.freedesktop.RealtimeKit1.Exit || true
	wait_sched "$PID_8" "$kept" 'SCHED_OTHER 0' 10
	tb_restart_rtkit
	for ((i = 0; i < 200; i++)); do
		grep -q 'refused it again' "$BATS_TEST_TMPDIR/p8.out.err" && break
		sleep 0.05
	done
	tb_polkit allow
	cat "$BATS_TEST_TMPDIR/p8.out.err"
	[[ $(grep -c 'refused it again' "$BATS_TEST_TMPDIR/p8.out.err") == 1 ]]
	[[ $(grep -c " $kept refused " "$RUNDIR/rtshim/$PID_8.kept") == 1 ]]
	[[ $(sched_of "$PID_8" "$kept") == 'SCHED_OTHER 0' ]]
}
