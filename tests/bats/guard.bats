#!/usr/bin/env bats
# End to end: the runaway guard (RLIMIT_RTTIME soft below hard + SIGXCPU demotes),
# RTSHIM_INHERIT, and rtkit's per-user budget (backoff, no repeated requests).  Probe programs
# run as the unprivileged test user under rtrun against the real stack with rtkit's DEFAULT
# limits (MaxRealtimePriority 20, RTTimeUSecMax 200000, 25 threads, 25 requests / 20 s, of which
# it lets a 26th through); results from the kernel (chrt -p, /proc/PID/limits, exit statuses)
# and rtkit's own log.

load common

setup_file() { tb_start; }
teardown_file() { tb_stop; }
setup() { tb_restart_rtkit >/dev/null; }   # the per-user budget belongs to this test alone
teardown() { tb_report_failure; run_stop; }

# run_bg [VAR=VALUE...] [-- RTRUN-OPTIONS... --] PROBE ARGS...: PROBE under rtrun as the test user
# in the background, stdin a FIFO this shell holds open; waits for "ready" (or its end).
# Sets PID (the probe), BG (the background job), OUT, ERR.
run_bg() {
	local -a env=() opts=()
	while [[ $1 == [A-Z_]*=* ]]; do env+=("$1"); shift; done
	if [[ $1 == -- ]]; then
		shift
		while [[ $1 != -- ]]; do opts+=("$1"); shift; done
		shift
	fi
	local name=$1; shift
	OUT=$BATS_TEST_TMPDIR/$name.out ERR=$BATS_TEST_TMPDIR/$name.err
	local fifo=$BATS_TEST_TMPDIR/$name.in
	rm -f "$fifo"; mkfifo "$fifo"
	fresh_outputs "$OUT" "$ERR"
	as_user env "${env[@]}" "$RTRUN" "${opts[@]}" "$PROBES/$name" "$@" <"$fifo" >"$OUT" 2>"$ERR" 3>&- &
	BG=$!
	exec 8>"$fifo"
	local i
	for ((i = 0; i < 300; i++)); do
		grep -q '^ready' "$OUT" 2>/dev/null && break
		kill -0 "$BG" 2>/dev/null || break
		sleep 0.05
	done
	PID=$(awk '/^pid /{ print $2; exit }' "$OUT")
	[[ -n $PID ]] || { echo "no pid from $name"; cat "$OUT" "$ERR"; return 1; }
}

run_stop() {
	[[ -n ${BG:-} ]] || return 0
	exec 8>&-
	wait "$BG" || true
	unset BG
}

tid_of() { awk -v l="$1" '$1 == "tid" && $2 == l { print $3; exit }' "$OUT"; }
call_of() { awk -v l="$1" '$1 == "call" && $2 == l { print $3, $4; exit }' "$OUT"; }
rtkit_log_since() { tail -n +"$(($1 + 1))" "$TB_DIR/rtkit.log"; }
rtkit_lines() { wc -l <"$TB_DIR/rtkit.log"; }

# ---- runaway guard ----------------------------------------------------------------------------

@test "runaway: an RT busy loop under rtrun survives; the thread is demoted, one warning; twice" {
	run_bg -- -- rt-busy dfl 0.6 70 2
	grep -q '^survived$' "$OUT" || { cat "$OUT" "$ERR"; false; }
	kill -0 "$PID"
	local t0 t1
	t0=$(tid_of busy0) t1=$(tid_of busy1)
	grep -q '^kernel busy0-start RR|RESET 20$' "$OUT"
	grep -q '^kernel busy1-start RR|RESET 20$' "$OUT"
	echo "busy threads now: $t0 $(sched_of "$t0"), $t1 $(sched_of "$t1")"
	[ "$(sched_of "$t0")" = "SCHED_OTHER|SCHED_RESET_ON_FORK 0" ]
	[ "$(sched_of "$t1")" = "SCHED_OTHER|SCHED_RESET_ON_FORK 0" ]
	# soft 80 % of hard, put back after each SIGXCPU (the kernel adds a second to it)
	[ "$(hard_rttime "$PID")" = 200000 ]
	[ "$(soft_rttime "$PID")" = 160000 ]
	[ "$(grep -c 'demoted to SCHED_OTHER' "$ERR")" = 1 ]
	# the program reads back its own disposition (the default), not the guard's handler
	grep -q '^disposition default$' "$OUT"
}

@test "runaway: the program's own SIGXCPU handler still runs (in the overrunning thread)" {
	run_bg -- -- rt-busy own 0.6 70
	grep -q '^survived$' "$OUT" || { cat "$OUT" "$ERR"; false; }
	local t0
	t0=$(tid_of busy0)
	grep -q '^handler-ran [1-9]' "$OUT"
	grep -q "^handler-tid $t0\$" "$OUT"
	[ "$(sched_of "$t0")" = "SCHED_OTHER|SCHED_RESET_ON_FORK 0" ]
	kill -0 "$PID"
}

@test "runaway: RTSHIM_RUNAWAY=kill (rtrun --runaway kill) keeps the kernel's behaviour" {
	# soft = hard: SIGKILL at the hard limit
	run as_user "$RTRUN" --runaway kill "$PROBES/rt-busy" dfl 2 70 </dev/null
	echo "status $status: $output"
	[ "$status" = 137 ]
	[[ $output == *"kernel busy0-start RR|RESET 20"* ]]
	[[ $output != *survived* ]]
	# the program's own handler is not chained either: SIGKILL
	run as_user env RTSHIM_RUNAWAY=kill "$RTRUN" "$PROBES/rt-busy" own 2 70 </dev/null
	[ "$status" = 137 ]
	# a soft limit of the program's own below the hard one: SIGXCPU's default action
	run as_user prlimit --rttime=100000:200000 "$RTRUN" --runaway kill "$PROBES/rt-busy" dfl 2 70 </dev/null
	[ "$status" = $((128 + 24)) ]
}

@test "runaway: a SIGXCPU from kill(1) is not a runaway: the default action still applies" {
	run_bg -- -- repeat-acquire 1 70
	grep -q '^kernel main RR|RESET 20$' "$OUT"
	[ "$(soft_rttime "$PID")" = 160000 ]
	as_user kill -XCPU "$PID"
	local st=0
	wait "$BG" || st=$?
	unset BG
	exec 8>&-
	echo "status $st"
	[ "$st" = $((128 + 24)) ]
	! grep -q 'demoted' "$ERR"
}

# ---- the guard whatever the program does with SIGXCPU -----------------------------------------
# Each program below is fine without rtshim (EPERM, SCHED_OTHER, exit 0).  Realtime through
# rtkit must not make the kernel kill it (137) when it overruns RLIMIT_RTTIME once.

# check_overrun LABEL PRIO: the probe ran LABEL realtime at PRIO, was demoted, and ended well.
check_overrun() {
	echo "status $status: $output"
	[ "$status" = 0 ]
	[[ $output == *"kernel $1-start RR|RESET $2"* ]]
	[[ $output == *"kernel $1-end OTHER|RESET 0"* ]]
	[[ $output == *done* ]]
}

# unshimmed MODE: the probe without rtshim gets EPERM, computes SCHED_OTHER and exits 0.
unshimmed() {
	run as_user "$PROBES/rt-signals" "$1" 300 10 </dev/null
	echo "without rtshim: status $status: $output"
	[ "$status" = 0 ]
	[[ $output == *"call setschedparam rc=1 err=EPERM"* ]]
	[[ $output == *"kernel worker-end OTHER 0"* ]]
}

@test "runaway: SIGXCPU blocked in every thread (the sigwait design): demoted, exits 0" {
	unshimmed sigwait
	run as_user "$RTRUN" "$PROBES/rt-signals" sigwait 300 10 </dev/null
	check_overrun worker 10
	[[ $output == *"call setschedparam rc=0 err=OK"* ]]
	# what the program sees of SIGXCPU is what it had: the default
	[[ $output == *"disposition default"* ]]
}

@test "runaway: a signal thread that sigwaits on EVERY signal does not take the guard's SIGXCPU" {
	unshimmed sigwait-all
	local i
	for i in 1 2 3; do
		run as_user "$RTRUN" "$PROBES/rt-signals" sigwait-all 300 10 </dev/null
		check_overrun worker 10
		[[ $output != *"sigwait got 24"* ]]
	done
	[[ $output == *"disposition default"* ]]
}

@test "runaway: SIGXCPU blocked only after the grant: demoted; a sigwait still gets kill -XCPU" {
	run as_user "$PROBES/rt-signals" late-block 300 10 </dev/null
	echo "without rtshim: status $status: $output"
	[ "$status" = 0 ]
	[[ $output == *"kernel worker-end OTHER 0"* ]]
	[[ $output == *"kill-seen yes"* ]]
	run as_user "$RTRUN" "$PROBES/rt-signals" late-block 300 10 </dev/null
	check_overrun worker 10
	[[ $output == *"kill-seen yes"* ]]
}

@test "runaway: SIGXCPU blocked with the raw rt_sigprocmask system call after the grant: demoted, the program reads its own mask; a sigwait still gets kill -XCPU" {
	run as_user "$PROBES/rt-signals" late-block-raw 300 10 </dev/null
	echo "without rtshim: status $status: $output"
	[ "$status" = 0 ]
	[[ $output == *"kernel worker-end OTHER 0"* ]]
	[[ $output == *"mask-view SIGXCPU blocked"* ]]
	[[ $output == *"kill-seen yes"* ]]
	run as_user "$RTRUN" "$PROBES/rt-signals" late-block-raw 300 10 </dev/null
	check_overrun worker 10
	[[ $output == *"mask-view SIGXCPU blocked"* ]]
	[[ $output == *"kill-seen yes"* ]]
}

@test "runaway: the raw rt_sigprocmask system call with bad arguments once the guard is armed: the kernel's errors, as without the shim; SIGXCPU not blocked in the kernel" {
	run as_user "$PROBES/syscall-guard" mask-errors 0 </dev/null
	echo "without rtshim: status $status: $output"
	[ "$status" = 0 ]
	[[ $output == *"kernel-blocked yes"* ]] # the kernel blocked it, then said EFAULT
	local plain
	plain=$(grep -E '^(case|blocked)' <<<"$output")
	[ "$(grep -c '^case .* rc=-1 err=E' <<<"$plain")" = 4 ]
	run as_user "$RTRUN" -p 10 "$PROBES/syscall-guard" mask-errors 300 </dev/null
	echo "status $status: $output"
	[ "$status" = 0 ]
	[ "$(grep -E '^(case|blocked)' <<<"$output")" = "$plain" ]
	[[ $output == *"kernel-blocked no"* ]]
	[[ $output == *"kernel start RR|RESET 10"* ]]
	[[ $output == *"kernel end OTHER|RESET 0"* ]]
	[[ $output == *done* ]]
}

@test "runaway: every signal blocked and a realtime thread busy on every CPU: the one that ran out is demoted, the others stay" {
	local n
	n=$(nproc)
	run as_user "$PROBES/rt-signals" busy-all 400 10 "$n" </dev/null
	echo "without rtshim: status $status: $output"
	[ "$status" = 0 ]
	[[ $output == *"kernel worker0-end OTHER 0"* ]]
	run as_user "$RTRUN" "$PROBES/rt-signals" busy-all 400 10 "$n" </dev/null
	echo "status $status: $output"
	[ "$status" = 0 ]
	[[ $output == *"kernel worker0-start RR|RESET 10"* ]]
	[[ $output == *"kernel worker0-end OTHER|RESET 0"* ]]
	local k
	for ((k = 1; k < n; k++)); do
		[[ $output == *"kernel worker$k-start RR|RESET 10"* ]]
		[[ $output == *"kernel worker$k-end RR|RESET 10"* ]]
	done
	[[ $output == *done* ]]
}

@test "runaway: a SIGXCPU handler installed after the grant (sigaction, signal, the raw rt_sigaction system call) is honoured, and sees kill -XCPU" {
	local how
	for how in handler handler-raw handler-signal; do
		unshimmed "$how"
		run as_user "$RTRUN" "$PROBES/rt-signals" "$how" 300 10 </dev/null
		check_overrun worker 10
		# sigaction(SIGXCPU, NULL, &old) reports the program's own handler
		[[ $output == *"disposition own"* ]]
		# chained: it ran for the overrun (in the overrunning thread) and for a kill
		[[ $output == *"kill-seen yes"* ]]
	done
	[[ $output == *"handler kernel=0 user=0 plain=1"* ]]
	run as_user "$RTRUN" "$PROBES/rt-signals" handler 300 10 </dev/null
	[[ $output == *"handler kernel="[1-9]" user=0 plain=0"* ]]
}

@test "runaway: SIGXCPU set to SIG_IGN after the grant: demoted, exits 0" {
	local how
	for how in ignore ignore-signal; do
		unshimmed "$how"
		run as_user "$RTRUN" "$PROBES/rt-signals" "$how" 300 10 </dev/null
		check_overrun worker 10
		[[ $output == *"disposition ignore"* ]]
	done
}

@test "runaway: a program that sets its soft RLIMIT_RTTIME to the hard one (setrlimit, prlimit, the raw system call) keeps the guard and reads its own value" {
	local how
	for how in soft-to-hard soft-to-hard-prlimit soft-to-hard-syscall; do
		unshimmed "$how"
		[[ $output == *"rttime unlimited unlimited"* ]]
		run_bg -- -- rt-signals "$how" 300 10
		cat "$OUT"
		grep -q '^done$' "$OUT"
		grep -q '^rttime 200000 200000$' "$OUT"
		# the kernel's soft limit is still the guard's
		[ "$(soft_rttime "$PID")" = 160000 ]
		[ "$(hard_rttime "$PID")" = 200000 ]
		grep -q '^kernel worker-end OTHER|RESET 0$' "$OUT"
		run_stop
	done
}

@test "runaway: rtrun -p makes the main thread realtime; an overrun there demotes it, exits 0" {
	# without RT (rtrun without -p): SCHED_OTHER, exits 0
	run as_user "$RTRUN" "$PROBES/rt-signals" main 300 </dev/null
	[ "$status" = 0 ]
	[[ $output == *"kernel main-end OTHER 0"* ]]
	run as_user "$RTRUN" -p 15 "$PROBES/rt-signals" main 300 </dev/null
	check_overrun main 15
	# RTSHIM_RUNAWAY=kill: the kernel's behaviour, as before
	run as_user "$RTRUN" --runaway kill -p 15 "$PROBES/rt-signals" main 300 </dev/null
	echo "kill: status $status"
	[ "$status" = 137 ]
}

@test "runaway: a program started realtime stays single-threaded: unshare -r works under rtrun -p" {
	run as_user unshare -r id -u </dev/null
	echo "without rtshim: status $status: $output"
	[ "$status" = 0 ]
	[ "$output" = 0 ]
	local how
	for how in "-p 10" "chrt -f 10"; do
		# shellcheck disable=SC2086
		run as_user "$RTRUN" $how unshare -r sh -c 'id -u; chrt -p $$' </dev/null
		echo "rtrun $how: status $status: $output"
		[ "$status" = 0 ]
		[[ $output == "0"$'\n'* ]]
		[[ $output == *"current scheduling policy: SCHED_RR|SCHED_RESET_ON_FORK"* ]]
	done
	# the guard is armed all the same, without a thread: the main thread's overrun is demoted
	run as_user "$RTRUN" -p 15 "$PROBES/rt-signals" main 300 </dev/null
	check_overrun main 15
	[[ $output == *"threads 1"* ]]
}

@test "runaway: exec from a granted thread into a clean environment (no shim) runs as without the shim" {
	run as_user "$PROBES/rt-signals" exec-clean 300 10 </dev/null
	echo "without rtshim: status $status: $output"
	[ "$status" = 0 ]
	[[ $output == *"kernel main-end OTHER 0"* ]]
	run as_user "$RTRUN" "$PROBES/rt-signals" exec-clean 300 10 </dev/null
	echo "status $status: $output"
	[ "$status" = 0 ]
	[[ $output == *"call setschedparam rc=0 err=OK"* ]]
	[[ $output == *"kernel main-start OTHER|RESET 0"* ]]
	[[ $output == *done* ]]
	# with its environment the new image has the shim: realtime crosses, with the guard
	run as_user "$RTRUN" "$PROBES/rt-signals" exec-keep 300 10 </dev/null
	check_overrun main 10
}

@test "runaway: execveat from a granted thread into an empty environment (by path, by descriptor as fexecve does) runs as without the shim" {
	local how
	for how in exec-clean-at exec-clean-at-fd; do
		run as_user "$PROBES/rt-signals" "$how" 300 10 </dev/null
		echo "$how without rtshim: status $status: $output"
		[ "$status" = 0 ]
		[[ $output == *"kernel main-end OTHER 0"* ]]
		run as_user "$RTRUN" "$PROBES/rt-signals" "$how" 300 10 </dev/null
		echo "$how: status $status: $output"
		# not killed by SIGXCPU (152) under the guard's soft limit without the guard
		[ "$status" = 0 ]
		[[ $output == *"call setschedparam rc=0 err=OK"* ]]
		[[ $output == *"kernel main-start OTHER|RESET 0"* ]]
		[[ $output == *done* ]]
	done
}

@test "the grant path adds little address space: mlockall(MCL_CURRENT) under an 8 MiB RLIMIT_MEMLOCK still works" {
	run as_user prlimit --memlock=8388608 "$PROBES/rt-mlock" 10 </dev/null
	echo "without rtshim: status $status: $output"
	[[ $output == *"call setscheduler rc=-1 err=EPERM"* ]]
	[[ $output == *"call mlockall rc=0 err=OK"* ]]
	run as_user prlimit --memlock=8388608 "$RTRUN" "$PROBES/rt-mlock" 10 </dev/null
	echo "status $status: $output"
	[ "$status" = 0 ]
	[[ $output == *"kernel main RR|RESET 10"* ]]
	[[ $output == *"threads 1"* ]]
	[[ $output == *"call mlockall rc=0 err=OK"* ]]
	local before after
	before=$(awk '$1 == "vm" && $2 == "before" { print $3 }' <<<"$output")
	after=$(awk '$1 == "vm" && $2 == "after" { print $3 }' <<<"$output")
	echo "address space: $before KiB before the grant, $after KiB after"
	((after - before <= 6144))
}

# caps_user CAPS [--rt] CMD...: CMD as the test user (RLIMIT_RTPRIO 0) with the ambient
# capabilities CAPS ("" or e.g. ",+ipc_lock": mlockall without a bound, as `memlock unlimited`);
# --rt: made SCHED_FIFO 10 from outside (root's chrt before setpriv drops to the user), the
# program realtime without rtshim.  Output in $output, as `run`.
caps_user() {
	local caps=$1 chrt=()
	shift
	[[ $1 == --rt ]] && { chrt=(chrt -f 10); shift; }
	run timeout 30 "${chrt[@]}" prlimit --rtprio=0:0 -- setpriv --reuid="$TEST_USER" \
		--regid="$TEST_USER" --clear-groups --inh-caps=-all"$caps" --ambient-caps=-all"$caps" \
		env HOME=/tmp DBUS_SYSTEM_BUS_ADDRESS="unix:path=$TB_DIR/bus" "$@" </dev/null
	echo "status $status: $output"
}
# kib KEY WHEN: a figure rt-mlock printed ("vm before", "lck after", ...)
kib() { awk -v k="$1" -v w="$2" '$1 == k && $2 == w { print $3; exit }' <<<"$output"; }

@test "a multi-threaded program's first grant adds little address space: mlockall(MCL_CURRENT) under an 8 MiB RLIMIT_MEMLOCK works as when it is made RT without rtshim" {
	"$TESTBED" user >/dev/null
	caps_user "" --rt prlimit --memlock=8388608 "$PROBES/rt-mlock" 10 waiter
	[ "$status" = 0 ]
	[[ $output == *"kernel main FIFO 10"* ]]
	[[ $output == *"call mlockall rc=0 err=OK"* ]]
	caps_user "" prlimit --memlock=8388608 "$RTRUN" "$PROBES/rt-mlock" 10 waiter
	[ "$status" = 0 ]
	[[ $output == *"kernel main RR|RESET 10"* ]]
	[[ $output == *"threads 2"* ]]
	local before after
	before=$(kib vm before) after=$(kib vm after)
	echo "address space: $before KiB before the grant, $after KiB after: +$((after - before)) KiB"
	((after - before <= 6144))
	[[ $output == *"call mlockall rc=0 err=OK"* ]]
}

@test "memlock unlimited: a program whose thread has malloc'ed locks at most 6 MiB more under rtrun than made RT without rtshim" {
	"$TESTBED" user >/dev/null
	caps_user ,+ipc_lock --rt "$PROBES/rt-mlock" 10 thread
	[ "$status" = 0 ]
	[[ $output == *"kernel main FIFO 10"* ]]
	[[ $output == *"call mlockall rc=0 err=OK"* ]]
	local lck rss
	lck=$(kib lck after) rss=$(kib rss locked)
	caps_user ,+ipc_lock "$RTRUN" "$PROBES/rt-mlock" 10 thread
	[ "$status" = 0 ]
	[[ $output == *"kernel main RR|RESET 10"* ]]
	[[ $output == *"threads 2"* ]]
	[[ $output == *"call mlockall rc=0 err=OK"* ]]
	echo "without rtshim: VmLck $lck KiB, VmRSS $rss KiB; under rtrun: VmLck $(kib lck after) KiB, VmRSS $(kib rss locked) KiB"
	(($(kib lck after) - lck <= 6144))
	(($(kib rss locked) - rss <= 6144))
}

# ---- inheritance ------------------------------------------------------------------------------

@test "inherit: rtrun --inherit promotes default-attribute threads of an RT thread; not without" {
	run_bg -- --inherit -- rt-inherit 2 70
	local i
	for ((i = 0; i < 100; i++)); do grep -q '^kernel other' "$OUT" && break; sleep 0.05; done
	local p c0 c1 o
	p=$(tid_of parent) c0=$(tid_of child0) c1=$(tid_of child1) o=$(tid_of other)
	echo "parent $(sched_of "$p"); children $(sched_of "$c0"), $(sched_of "$c1"); explicit OTHER $(sched_of "$o")"
	[ "$(sched_of "$p")" = "SCHED_RR|SCHED_RESET_ON_FORK 20" ]
	[ "$(sched_of "$c0")" = "SCHED_RR|SCHED_RESET_ON_FORK 20" ]
	[ "$(sched_of "$c1")" = "SCHED_RR|SCHED_RESET_ON_FORK 20" ]
	[ "$(sched_of "$o")" = "SCHED_OTHER 0" ]
	# RR already at start: the start routine runs RT
	grep -q '^kernel child0 RR|RESET 20$' "$OUT"
	run_stop

	run_bg -- -- rt-inherit 2 70
	for ((i = 0; i < 100; i++)); do grep -q '^kernel other' "$OUT" && break; sleep 0.05; done
	[ "$(sched_of "$(tid_of parent)")" = "SCHED_RR|SCHED_RESET_ON_FORK 20" ]
	[ "$(sched_of "$(tid_of child0)")" = "SCHED_OTHER 0" ]
}

@test "inherit: the inherited priority is the creator's mapped one (--map offset --top 75)" {
	run_bg -- --inherit --map offset --top 75 -- rt-inherit 1 70
	local i
	for ((i = 0; i < 100; i++)); do grep -q '^kernel other' "$OUT" && break; sleep 0.05; done
	[ "$(sched_of "$(tid_of parent)")" = "SCHED_RR|SCHED_RESET_ON_FORK 15" ]
	[ "$(sched_of "$(tid_of child0)")" = "SCHED_RR|SCHED_RESET_ON_FORK 15" ]
}

# ---- rtkit's budget ---------------------------------------------------------------------------

@test "budget: 1000 pthread_setschedparam calls cost rtkit at most 2 requests; the next program gets RT" {
	local n0 grants
	n0=$(rtkit_lines)
	# the same priority 1000 times
	run_bg -- -- repeat-acquire 1000 70
	grep -q '^succeeded 1000 of 1000$' "$OUT"
	grants=$(rtkit_log_since "$n0" | grep -c "Successfully made thread [0-9]* of process $PID ")
	echo "same priority: $grants rtkit grants"
	((grants >= 1 && grants <= 2))
	run_stop
	# a priority that flaps 70/60 (mapped 20/10): lowering is done directly, a raise goes to
	# rtkit at most once a second
	n0=$(rtkit_lines)
	run_bg -- --map offset --top 70 -- repeat-acquire 1000 70 60
	grants=$(rtkit_log_since "$n0" | grep -c "Successfully made thread [0-9]* of process $PID ")
	echo "flapping priority: $grants rtkit grants; $(grep '^succeeded' "$OUT")"
	((grants >= 1 && grants <= 2))
	rtkit_log_since "$n0" | { ! grep -q 'Reached'; }
	[ "$(sched_of "$PID")" = "SCHED_RR|SCHED_RESET_ON_FORK 10" ]
	run_stop
	# a second program afterwards still gets RT
	run_bg -- -- jack2-create
	local i
	for ((i = 0; i < 100; i++)); do (($(grep -c '^started' "$OUT") >= 2)) && break; sleep 0.05; done
	[ "$(call_of create-audio)" = "rc=0 err=OK" ]
	[[ $(sched_of "$(tid_of audio)") == "SCHED_RR|SCHED_RESET_ON_FORK "* ]]
}

@test "budget: after rtkit refuses (its limits), the shim backs off instead of asking again" {
	local n0 refused granted
	n0=$(rtkit_lines)
	run_bg -- -- rt-many 32 10
	grep '^granted' "$OUT"
	granted=$(rtkit_log_since "$n0" | grep -c "Successfully made thread [0-9]* of process $PID ")
	refused=$(rtkit_log_since "$n0" | grep -c 'Warning: Reached')
	echo "rtkit: $granted grants, $refused refusals logged for 32 threads"
	grep -q "^granted $granted of 32\$" "$OUT"
	((granted >= 20 && granted <= 26))
	# one refused realtime request (+ one refused nice-level fallback), then no more for a while
	((refused >= 1 && refused <= 2))
	[ "$(call_of t31)" = "rc=1 err=EPERM" ]
}
