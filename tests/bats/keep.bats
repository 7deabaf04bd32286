#!/usr/bin/env bats
# Grants that last (rtshim(7), rtrun(1) --no-keep): what rtkit takes away from outside (its
# canary after a simulated suspend: SIGSTOP and SIGCONT of a canary-enabled rtkit; its Exit and a
# new rtkit) comes back under rtrun, and stays away under rtrun --no-keep and for a plain rtkit
# client, the same programs on the same rtkit at the same moment.  What the program dropped
# itself, or the runaway guard took, stays so; a program that ends in the refusal window has
# nothing asked for; a refusal (polkit, rtkit's limits) is one line and one request; the keeper
# ends with its program.  Read from the kernel (chrt -p, /proc) and rtkit's own log.
# (tests/apps/lasting.bats: the same with jackd and PipeWire.)

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
	[[ -n ${KEEPER:-} ]] && { kill -CONT "$KEEPER" 2>/dev/null; unset KEEPER; }
	for i in 7 8 9; do eval "exec $i>&-" 2>/dev/null || true; done
	for i in "${BG1:-}" "${BG2:-}" "${BG3:-}"; do
		[[ -n $i ]] && { kill "$i" 2>/dev/null; wait "$i" 2>/dev/null; }
	done
	unset BG1 BG2 BG3
	# a new rtkit for the next test: no refusal window, no budget spent
	tb_restart_rtkit >/dev/null
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
watched() { recorded "$1" "$2" watched; }

# suspend PID TID: a simulated suspend (common.bash) until rtkit's canary has demoted thread TID.
suspend() { simulate_suspend wait_sched "$1" "$2" 'SCHED_OTHER 0' 5; }

# side_by_side: the same program under rtrun -v (probe 8) and rtrun --no-keep (probe 9), a
# thread of each granted FIFO/10 (kept, nokeep), a plain rtkit client's thread (PLAIN), and the
# keeper watching its own.
side_by_side() {
	start_probe 8 -v
	start_probe 9 --no-keep
	start_plain 1
	kept=$(ask_thread 8 10)
	nokeep=$(ask_thread 9 10)
	wait_sched "$PID_8" "$kept" 'SCHED_RR|SCHED_RESET_ON_FORK 10' 10
	wait_sched "$PID_9" "$nokeep" 'SCHED_RR|SCHED_RESET_ON_FORK 10' 10
	wait_sched "$PLAIN_PID" "$PLAIN" 'SCHED_RR|SCHED_RESET_ON_FORK 10' 10
	watched 8 "$kept"
}

# without_keeper_still_taken: the --no-keep program's thread and the plain client's are still
# SCHED_OTHER (rtkit's demotion stays, as for every rtkit client).
without_keeper_still_taken() {
	[[ $(sched_of "$PID_9" "$nokeep") == 'SCHED_OTHER 0' ]]
	[[ $(sched_of "$PLAIN_PID" "$PLAIN") == 'SCHED_OTHER 0' ]]
}

# start_plain N: a plain rtkit client of the test user, no shim, no rtrun (rtkit-call hold N 10:
# the daemon client alone), stdin a FIFO on fd 7; sets PLAIN_PID and PLAIN (its first thread).
start_plain() {
	local out=$BATS_TEST_TMPDIR/plain.out fifo=$BATS_TEST_TMPDIR/plain.in i
	rm -f "$fifo"; mkfifo "$fifo"
	fresh_outputs "$out"
	as_user prlimit --rttime=200000 "$PROBES/rtkit-call" hold "$1" 10 <"$fifo" >"$out" 2>&1 &
	BG3=$!
	exec 7>"$fifo"
	for ((i = 0; i < 300; i++)); do
		grep -q '^ready' "$out" && break
		sleep 0.05
	done
	PLAIN_PID=$(sed -n 's/^pid=\([0-9]*\) .*/\1/p' "$out")
	PLAIN=$(sed -n 's/^thread 1 tid=\([0-9]*\) ok$/\1/p' "$out")
	[[ -n $PLAIN_PID && -n $PLAIN ]] || { cat "$out"; return 1; }
}

# keeper_of N: the PID of probe N's keeper, the process of the user whose standard error is the
# program's.
keeper_of() {
	local c
	for c in $(pgrep -u "$TEST_USER" -x rtshim-keeper); do
		[[ $(readlink "/proc/$c/fd/2") == "$BATS_TEST_TMPDIR/p$1.out.err" ]] && { echo "$c"; return 0; }
	done
	return 1
}

# recorded N TID EVENT: until probe N's keeper has recorded EVENT for thread TID.
recorded() {
	local pid=PID_$1 i
	for ((i = 0; i < 200; i++)); do
		grep -q "^[0-9]* $2 $3 " "$RUNDIR/rtshim/${!pid}.kept" 2>/dev/null && return 0
		sleep 0.05
	done
	echo "the keeper of probe $1 never recorded '$3' for thread $2"
	return 1
}

rtkit_exit() {
	as_root dbus-send --system --print-reply --dest=org.freedesktop.RealtimeKit1 \
		/org/freedesktop/RealtimeKit1 org.freedesktop.RealtimeKit1.Exit >/dev/null || true
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

@test "realtime that rtkit's canary took away comes back after its refusal window, under rtrun only (not --no-keep, not a plain rtkit client)" {
	side_by_side
	suspend "$PID_8" "$kept"
	taken=$(now_ms)
	wait_sched "$PID_9" "$nokeep" 'SCHED_OTHER 0' 10
	wait_sched "$PLAIN_PID" "$PLAIN" 'SCHED_OTHER 0' 10
	wait_sched "$PID_8" "$kept" 'SCHED_RR|SCHED_RESET_ON_FORK 10' $((REFUSE + 10))
	back=$(now_ms)
	echo "# back $((back - taken)) ms after the demotion was seen (window $REFUSE s)" >&3
	# never asked inside the window: rtkit logs each refusal it makes there
	run grep -c 'Recovering from system lockup' "$TB_DIR/rtkit.log"
	[[ $output == 0 ]]
	((back - taken >= (REFUSE - 1) * 1000))
	without_keeper_still_taken
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

@test "after rtkit's Exit a new rtkit grants again what the old one took away, under rtrun only (not --no-keep, not a plain rtkit client)" {
	side_by_side
	rtkit_exit
	wait_sched "$PID_8" "$kept" 'SCHED_OTHER 0' 10
	wait_sched "$PID_9" "$nokeep" 'SCHED_OTHER 0' 10
	wait_sched "$PLAIN_PID" "$PLAIN" 'SCHED_OTHER 0' 10
	tb_restart_rtkit
	up=$(now_ms)
	wait_sched "$PID_8" "$kept" 'SCHED_RR|SCHED_RESET_ON_FORK 10' 10 || { cat "$BATS_TEST_TMPDIR/p8.out.err"; false; }
	echo "# back $(($(now_ms) - up)) ms after the new rtkit was up" >&3
	without_keeper_still_taken
}

@test "a thread the runaway guard demoted is not asked for again when rtkit takes realtime away" {
	start_probe 8
	kept=$(ask_thread 8 10)
	echo "runaway 10" >&8
	for ((i = 0; i < 300; i++)); do
		grep -q '^runaway 10: ' "$BATS_TEST_TMPDIR/p8.out" && break
		sleep 0.05
	done
	run_tid=$(sed -n 's/^runaway 10: .*tid=\([0-9]*\).*/\1/p' "$BATS_TEST_TMPDIR/p8.out")
	wait_sched "$PID_8" "$run_tid" 'SCHED_RR|SCHED_RESET_ON_FORK 10' 10
	watched 8 "$kept"
	watched 8 "$run_tid"
	echo spin >&8
	# the guard's demotion keeps the flag; the keeper records that the thread left
	wait_sched "$PID_8" "$run_tid" 'SCHED_OTHER|SCHED_RESET_ON_FORK 0' 10
	recorded 8 "$run_tid" left
	rtkit_exit
	wait_sched "$PID_8" "$kept" 'SCHED_OTHER 0' 10
	tb_restart_rtkit
	wait_sched "$PID_8" "$kept" 'SCHED_RR|SCHED_RESET_ON_FORK 10' 10
	# not asked for: still the guard's SCHED_OTHER (whether or not rtkit's exit reset it too)
	echo "runaway thread: $(sched_of "$PID_8" "$run_tid")"
	[[ $(sched_of "$PID_8" "$run_tid") == SCHED_OTHER* ]]
	[[ $(grep -c "Successfully made thread $run_tid " "$TB_DIR/rtkit.log") == 1 ]]
	run as_user env XDG_RUNTIME_DIR="$RUNDIR" "$RTRUN" --status "$PID_8"
	echo "$output"
	[[ $output == *"thread $run_tid left realtime itself"* ]]
}

@test "a program that ends in rtkit's refusal window: its keeper ends with it, nothing is asked" {
	start_probe 8
	kept=$(ask_thread 8 10)
	watched 8 "$kept"
	keeper=$(keeper_of 8)
	suspend "$PID_8" "$kept"
	taken=$(now_ms)
	recorded 8 "$kept" taken
	exec 8>&-
	for ((i = 0; i < 200; i++)); do [[ -d /proc/$keeper ]] || break; sleep 0.05; done
	[[ ! -d /proc/$keeper ]]
	# gone inside the window, so it cannot have asked after it; and it did not ask inside it
	(($(now_ms) - taken < REFUSE * 1000))
	[[ $(grep -c "Successfully made thread $kept " "$TB_DIR/rtkit.log") == 1 ]]
	run grep -c 'Recovering from system lockup' "$TB_DIR/rtkit.log"
	[[ $output == 0 ]]
	# its record went with it
	[[ ! -e $RUNDIR/rtshim/$PID_8.kept ]]
}

@test "the keeper ends with its program, in a session of its own, unseen by the program's waitpid(-1)" {
	start_probe 8
	kept=$(ask_thread 8 10)
	wait_sched "$PID_8" "$kept" 'SCHED_RR|SCHED_RESET_ON_FORK 10' 10
	keeper=$(keeper_of 8)
	# a terminal's ^C is for the program alone
	[[ $(ps -o sid= -p "$keeper") != "$(ps -o sid= -p "$PID_8")" ]]
	# a program that waits for all its children is told at once that it has none
	echo reap >&8
	for ((i = 0; i < 300; i++)); do grep -q '^reap: ' "$BATS_TEST_TMPDIR/p8.out" && break; sleep 0.05; done
	grep '^reap: ' "$BATS_TEST_TMPDIR/p8.out"
	grep -q '^reap: reaped=0 err=ECHILD ' "$BATS_TEST_TMPDIR/p8.out"
	[[ -d /proc/$keeper ]]
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
	rtkit_exit
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

@test "rtkit's limits reached when the keeper asks again: one line that names them, one request" {
	start_probe 8
	kept=$(ask_thread 8 10)
	wait_sched "$PID_8" "$kept" 'SCHED_RR|SCHED_RESET_ON_FORK 10' 10
	watched 8 "$kept"
	rtkit_exit
	wait_sched "$PID_8" "$kept" 'SCHED_OTHER 0' 10
	recorded 8 "$kept" taken
	# the keeper held still while a plain client takes all 25 of the user's threads from the new rtkit
	KEEPER=$(keeper_of 8)
	kill -STOP "$KEEPER"
	tb_restart_rtkit
	start_plain 25
	[[ $(grep -c ' ok$' "$BATS_TEST_TMPDIR/plain.out") == 25 ]]
	kill -CONT "$KEEPER"
	unset KEEPER
	recorded 8 "$kept" refused
	cat "$BATS_TEST_TMPDIR/p8.out.err"
	[[ $(grep -c 'refused it again' "$BATS_TEST_TMPDIR/p8.out.err") == 1 ]]
	grep -q 'refused it again: .*25 threads per user' "$BATS_TEST_TMPDIR/p8.out.err"
	[[ $(grep -c " $kept refused " "$RUNDIR/rtshim/$PID_8.kept") == 1 ]]
	[[ $(sched_of "$PID_8" "$kept") == 'SCHED_OTHER 0' ]]
}

@test "an rtkit that does not answer when the keeper asks again is not asked twice; the next rtkit grants" {
	start_probe 8 -v
	kept=$(ask_thread 8 10)
	wait_sched "$PID_8" "$kept" 'SCHED_RR|SCHED_RESET_ON_FORK 10' 10
	watched 8 "$kept"
	# rtkit demotes (an administrator's rtkitctl --reset-known) and then hangs, owning its name
	KEEPER=$(keeper_of 8)
	kill -STOP "$KEEPER"
	as_root rtkitctl --reset-known
	wait_sched "$PID_8" "$kept" 'SCHED_OTHER 0' 10
	kill -STOP "$(tb_pid rtkit)"
	kill -CONT "$KEEPER"
	unset KEEPER
	# the same daemon, its canary on: asked after its window, once; no answer is no refusal
	for ((i = 0; i < 400; i++)); do
		grep -q 'rtkit did not answer' "$BATS_TEST_TMPDIR/p8.out.err" && break
		sleep 0.05
	done
	cat "$BATS_TEST_TMPDIR/p8.out.err"
	[[ $(grep -c 'rtkit did not answer' "$BATS_TEST_TMPDIR/p8.out.err") == 1 ]]
	kill -KILL "$(tb_pid rtkit)"
	tb_restart_rtkit
	wait_sched "$PID_8" "$kept" 'SCHED_RR|SCHED_RESET_ON_FORK 10' 10
	[[ $(grep -c 'rtkit did not answer' "$BATS_TEST_TMPDIR/p8.out.err") == 1 ]]
	[[ $(grep -c 'refused it again' "$BATS_TEST_TMPDIR/p8.out.err") == 0 ]]
}
