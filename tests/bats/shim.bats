#!/usr/bin/env bats
# librtshim.so end to end: legacy-style probe programs run as the unprivileged test user against
# the real stack (dbus-daemon, polkitd, rtkit-daemon); results read from the kernel (/proc,
# chrt), never from the shim's own log.  rtkit's defaults: MaxRealtimePriority 20,
# RTTimeUSecMax 200000.

load common

MAXPRIO=20
RTTIME_MAX=200000

setup_file() {
	# raised per-user limits: this suite makes many requests (one test keeps the defaults)
	tb_start -- --actions-per-burst-max=1000 --threads-per-user-max=1000 \
		--processes-per-user-max=1000
}
teardown_file() { tb_stop; }
teardown() {
	probe_stop
	if [[ -n ${POLKIT_DENIED:-} ]]; then tb_polkit allow; unset POLKIT_DENIED; fi
}

# polkit says no from now until allow_polkit (or the end of the test)
deny_polkit() { tb_polkit deny; POLKIT_DENIED=1; }
allow_polkit() { tb_polkit allow; unset POLKIT_DENIED; }

# probe_run [--root] [--noshim] [--rttime=SOFT:HARD] [VAR=VALUE...] NAME [ARGS...]: start a probe in the background
# (stdin a FIFO held open by this shell), wait until it printed "ready".  Sets PID, OUT, ERR.
probe_run() {
	local who=as_user shim=1
	local -a env=() wrap=()
	while (($#)); do
		case $1 in
		--root) who=as_root ;;
		--noshim) shim=0 ;;
		--rttime=*) wrap=(prlimit "$1") ;;
		*=*) env+=("$1") ;;
		*) break ;;
		esac
		shift
	done
	local name=$1; shift
	((shim)) && env+=("LD_PRELOAD=$SHIM_PRELOAD")
	OUT=$BATS_TEST_TMPDIR/$name.out ERR=$BATS_TEST_TMPDIR/$name.err
	local fifo=$BATS_TEST_TMPDIR/$name.in
	rm -f "$fifo"; mkfifo "$fifo"
	fresh_outputs "$OUT" "$ERR"
	$who "${wrap[@]}" env "${env[@]}" "$PROBES/$name" "$@" <"$fifo" >"$OUT" 2>"$ERR" &
	PROBE_BG=$!
	exec 8>"$fifo"
	wait_ready "$OUT" "$PROBE_BG"
	[[ -n $PID ]] || { echo "probe $name printed no pid"; cat "$OUT" "$ERR"; return 1; }
}

# Let threads that start after "ready" report (they print before parking).
settle() {
	local want=$1 i
	for ((i = 0; i < 100; i++)); do
		(($(grep -c "$want" "$OUT") >= ${2:-1})) && return 0
		sleep 0.05
	done
	echo "timed out waiting for '$want' in:"; cat "$OUT"; return 1
}

probe_stop() {
	[[ -n ${PROBE_BG:-} ]] || return 0
	exec 8>&-
	wait "$PROBE_BG" || true
	unset PROBE_BG
}

tid_of() { awk -v l="$1" '$1 == "tid" && $2 == l { print $3; exit }' "$OUT"; }
call_of() { awk -v l="$1" '$1 == "call" && $2 == l { print $3, $4; exit }' "$OUT"; }

# The kernel's word on one thread: "SCHED_RR|SCHED_RESET_ON_FORK 20".
assert_rt_granted() {
	local tid=$1 s
	s=$(sched_of "$tid")
	[[ $s == "SCHED_RR|SCHED_RESET_ON_FORK "* ]] || { echo "thread $tid: $s"; return 1; }
	local prio=${s##* }
	((prio >= 1 && prio <= MAXPRIO)) || { echo "thread $tid: priority $prio"; return 1; }
}

assert_rttime_bounded() {
	local h
	h=$(hard_rttime "$1")
	[[ $h =~ ^[0-9]+$ ]] && ((h > 0 && h <= RTTIME_MAX)) || { echo "hard RLIMIT_RTTIME: $h"; return 1; }
}

# ---- the library itself ---------------------------------------------------------------------

@test "shim: exports exactly the interposers its version script lists, each a libc function" {
	run nm -D --defined-only "$SHIM"
	[ "$status" -eq 0 ]
	local syms listed libc
	syms=$(awk '{ print $3 }' <<<"$output" | sort | tr '\n' ' ')
	listed=$(cc -E -P -x assembler-with-cpp -I"$RTSHIM_ROOT/kernel" "$RTSHIM_ROOT/shim/librtshim.map" |
		sed -n 's/^[[:space:]]*\([a-z_0-9]*\);$/\1/p' | sort | tr '\n' ' ')
	[ "$syms" = "$listed" ]
	[[ $syms == *"sched_setscheduler "* && $syms == *"pthread_create "* && $syms == *"pthread_getattr_np "* ]]
	# nothing of the shim's own: every export interposes a function of libc
	libc=$(nm -D --defined-only "$(gcc -print-file-name=libc.so.6)" | awk '{ sub(/@.*/, "", $3); print $3 }')
	local s
	for s in $syms; do grep -qx "$s" <<<"$libc" || { echo "not a libc function: $s"; return 1; }; done
}

@test "shim: depends on libc alone" {
	run readelf -d "$SHIM"
	[ "$status" -eq 0 ]
	run awk '/NEEDED/ { print $5 }' <<<"$output"
	if [[ -n ${RTSHIM_ASAN_RUNTIME:-} ]]; then # tests/run's ASan pass: the sanitizer runtimes too
		[ "$output" = $'[libasan.so.8]\n[libubsan.so.1]\n[libc.so.6]' ]
	else
		[ "$output" = "[libc.so.6]" ]
	fi
}

@test "syscall(SYS_sched_setattr, FIFO): refused plain; under the shim RR|RESET through rtkit, the child SCHED_OTHER; root: exactly FIFO, inherited" {
	run as_user "$PROBES/syscall-setattr" 10
	[ "$status" -eq 0 ]
	[[ $output == *$'call setattr rc=-1 err=EPERM\nkernel main OTHER 0\n'* ]]
	# RR|RESET for a FIFO request, to a user with RLIMIT_RTPRIO 0: rtkit's grant
	run as_user env LD_PRELOAD="$SHIM_PRELOAD" "$PROBES/syscall-setattr" 10
	[ "$status" -eq 0 ]
	[[ $output == *$'call setattr rc=0 err=OK\nkernel main RR|RESET 10\nkernel child OTHER 0'* ]]
	# with SCHED_FLAG_RESET_ON_FORK, above rtkit's maximum: clamped as sched_setscheduler is
	run as_user env LD_PRELOAD="$SHIM_PRELOAD" "$PROBES/syscall-setattr" 50 reset
	[[ $output == *$'call setattr rc=0 err=OK\nkernel main RR|RESET 20\n'* ]]
	run as_root env LD_PRELOAD="$SHIM_PRELOAD" "$PROBES/syscall-setattr" 30
	[[ $output == *$'call setattr rc=0 err=OK\nkernel main FIFO 30\nkernel child FIFO 30'* ]]
}

@test "glibc 2.41's sched_setattr() and sched_getattr() functions: refused plain; under the shim RR|RESET through rtkit, read back as asked" {
	run as_user "$PROBES/syscall-setattr" 10 libc
	[ "$status" -eq 0 ]
	if [[ $output == "no libc-setattr" ]]; then
		# glibc before 2.41 has neither function, and the shim exports them only where it has
		run as_user env LD_PRELOAD="$SHIM_PRELOAD" "$PROBES/syscall-setattr" 10 libc
		[ "$output" = "no libc-setattr" ]
		return 0
	fi
	[[ $output == *$'call libc-setattr rc=-1 err=EPERM\nread libc-getattr OTHER 0\nkernel main OTHER 0\n'* ]]
	run as_user env LD_PRELOAD="$SHIM_PRELOAD" "$PROBES/syscall-setattr" 10 libc
	[ "$status" -eq 0 ]
	[[ $output == *$'call libc-setattr rc=0 err=OK\nread libc-getattr FIFO 10\nkernel main RR|RESET 10\nkernel child OTHER 0'* ]]
}

@test "syscall(): every other number passes through untouched (gettid, ENOSYS, six arguments, errors)" {
	run as_user "$PROBES/syscall-pass"
	[ "$status" -eq 0 ]
	local without=$output
	run as_user env LD_PRELOAD="$SHIM_PRELOAD" "$PROBES/syscall-pass"
	[ "$status" -eq 0 ]
	[ "$output" = "$without" ]
	(($(grep -c '^case .* ok$' <<<"$output") == 10))
	# i386: every argument of syscall() is on the stack (where the kernel can run 32-bit programs)
	local p32=$B/tests/i386-linux-gnu/probes/syscall-pass shim32=$B/lib/i386-linux-gnu/rtshim/librtshim.so
	if [[ -x $p32 && -z ${RTSHIM_ASAN_RUNTIME:-} ]] && "$p32" >/dev/null 2>&1; then
		run as_user env LD_PRELOAD="$shim32" "$p32"
		[ "$status" -eq 0 ]
		(($(grep -c '^case .* ok$' <<<"$output") == 10))
	fi
}

# ---- legacy programs ------------------------------------------------------------------------

@test "jack2-style explicit-attr pthread_create FIFO/70: EPERM without the shim" {
	probe_run --noshim jack2-create
	[ "$(call_of create-audio)" = "rc=1 err=EPERM" ]
	[ "$(call_of create-client)" = "rc=1 err=EPERM" ]
	! grep -q '^started' "$OUT"
}

@test "jack2-style explicit-attr pthread_create FIFO/70: RT through rtkit with the shim" {
	probe_run jack2-create
	settle '^started' 2
	[ "$(call_of create-audio)" = "rc=0 err=OK" ]
	[ "$(call_of create-client)" = "rc=0 err=OK" ]
	assert_rt_granted "$(tid_of audio)"
	assert_rt_granted "$(tid_of client)"
	assert_rttime_bounded "$PID"
	[ "$(sched_of "$PID")" = "SCHED_OTHER 0" ]           # main did not ask
	grep -q '^sees audio FIFO 70$' "$OUT"                 # what it asked (rtkit's RR 20 in the kernel), flag masked
	[ ! -s "$ERR" ]                                       # quiet when all goes well
}

@test "jack1-style self pthread_setschedparam, drop compared == SCHED_OTHER, engine RT" {
	probe_run --noshim jack1-self
	[ "$(call_of probe-acquire)" = "rc=1 err=EPERM" ]
	probe_stop

	probe_run jack1-self
	settle '^kernel engine'
	[ "$(call_of probe-acquire)" = "rc=0 err=OK" ]
	grep -q '^kernel after-acquire RR|RESET 20$' "$OUT"
	[ "$(call_of probe-drop)" = "rc=0 err=OK" ]
	grep -q '^check probe-drop policy==SCHED_OTHER yes' "$OUT"
	grep -q '^kernel after-drop OTHER|RESET 0$' "$OUT"
	[ "$(call_of acquire-engine)" = "rc=0 err=OK" ]
	assert_rt_granted "$(tid_of engine)"
	assert_rttime_bounded "$PID"
}

@test "jack2 freewheel: drop and re-acquire from another thread" {
	probe_run --noshim jack2-freewheel
	[ "$(call_of create-audio)" = "rc=1 err=EPERM" ]
	probe_stop

	probe_run jack2-freewheel 70 3
	[ "$(grep -c '^call freewheel-drop rc=0 err=OK' "$OUT")" = 3 ]
	[ "$(grep -c '^call freewheel-reacquire rc=0 err=OK' "$OUT")" = 3 ]
	[ "$(grep -c '^kernel dropped OTHER|RESET 0' "$OUT")" = 3 ]
	[ "$(grep -c '^sees dropped OTHER 0' "$OUT")" = 3 ]   # what a JACK2 check reads
	[ "$(grep -c '^kernel reacquired RR|RESET 20' "$OUT")" = 3 ]
	assert_rt_granted "$(tid_of audio)"
}

# A thread that asks for nothing has no record in the shim; its creator makes it realtime: the
# TID comes from glibc, what the shim changed goes into a record the thread takes over.
@test "creator makes a default-attribute thread realtime: RR, readers in both threads see the FIFO asked, not the flag" {
	probe_run --noshim set-other-thread 10
	[ "$(call_of set)" = "rc=1 err=EPERM" ]
	probe_stop

	probe_run set-other-thread 10
	settle '^kernel child'
	[ "$(call_of set)" = "rc=0 err=OK" ]
	grep -qx 'kernel worker RR|RESET 10' "$OUT"
	grep -qx 'sees worker FIFO 10' "$OUT"
	grep -qx 'sees self-pthread FIFO 10' "$OUT"
	grep -qx 'sees self-sched FIFO' "$OUT"
	grep -qx 'sees self-attr FIFO 10' "$OUT"
	grep -qx 'kernel child OTHER 0' "$OUT"    # RTSHIM_INHERIT is off
	[ "$(call_of drop)" = "rc=0 err=OK" ]
	grep -qx 'kernel dropped OTHER|RESET 0' "$OUT"
	grep -qx 'sees dropped OTHER 0' "$OUT"
	[ "$(sched_of "$(tid_of worker)")" = "SCHED_OTHER|SCHED_RESET_ON_FORK 0" ]
}

@test "a thread created behind the interposer (libc's own pthread_create) is served like any other; RTSHIM_INHERIT reaches its threads" {
	probe_run RTSHIM_INHERIT=1 set-other-thread 10 libc
	settle '^kernel child'
	[ "$(call_of set)" = "rc=0 err=OK" ]
	grep -qx 'kernel worker RR|RESET 10' "$OUT"
	grep -qx 'sees self-pthread FIFO 10' "$OUT"
	grep -qx 'sees self-attr FIFO 10' "$OUT"
	grep -qx 'kernel child RR|RESET 10' "$OUT"
	assert_rt_granted "$(tid_of child)"
	[ "$(call_of drop)" = "rc=0 err=OK" ]
	grep -qx 'sees dropped OTHER 0' "$OUT"
}

@test "cyclictest-style sched_setscheduler(0, FIFO, 80) in four threads" {
	probe_run --noshim cyclictest-style 4
	settle '^call setscheduler' 4
	[ "$(grep -c 'rc=-1 err=EPERM' "$OUT")" = 4 ]
	probe_stop

	probe_run cyclictest-style 4
	settle '^sees' 4
	[ "$(grep -c '^call setscheduler-t. rc=0 err=OK' "$OUT")" = 4 ]
	[ "$(grep -c '^sees t. FIFO$' "$OUT")" = 4 ] # asked FIFO, granted RR: reported as asked
	for i in 0 1 2 3; do assert_rt_granted "$(tid_of t$i)"; done
	assert_rttime_bounded "$PID"
}

@test "readers keep SCHED_RESET_ON_FORK visible when the program asked for it itself" {
	probe_run cyclictest-style 1 80 reset
	settle '^sees'
	[ "$(call_of setscheduler-t0)" = "rc=0 err=OK" ]
	grep -q '^sees t0 FIFO|RESET$' "$OUT"
	assert_rt_granted "$(tid_of t0)"
	probe_stop
	probe_run --root cyclictest-style 1 80 reset
	settle '^sees'
	grep -q '^sees t0 FIFO|RESET$' "$OUT"
	probe_stop
	probe_run --root RTSHIM_RESET_ON_FORK=1 cyclictest-style 1 80
	settle '^sees'
	grep -q '^sees t0 FIFO$' "$OUT"   # the shim added it (the opt-in): hidden
	[ "$(sched_of "$(tid_of t0)")" = "SCHED_FIFO|SCHED_RESET_ON_FORK 80" ]
}

@test "sched_setparam and pthread_setschedprio changes on an RT thread" {
	probe_run --noshim prio-change 10
	settle '^sees worker'
	[ "$(call_of setscheduler)" = "rc=-1 err=EPERM" ]
	probe_stop

	probe_run prio-change 10
	settle '^sees worker'
	for c in setscheduler setparam-down setparam-up; do [ "$(call_of $c)" = "rc=0 err=OK" ]; done
	for c in setschedprio-down setschedprio-up; do [ "$(call_of $c)" = "rc=0 err=OK" ]; done
	grep -q '^kernel start RR|RESET 10$' "$OUT"
	grep -q '^kernel setparam-down RR|RESET 5$' "$OUT"
	grep -q '^kernel setparam-up RR|RESET 15$' "$OUT"
	grep -q '^kernel setschedprio-down RR|RESET 8$' "$OUT"
	grep -q '^kernel setschedprio-up RR|RESET 18$' "$OUT"
	assert_rt_granted "$(tid_of worker)"
}

@test "a library constructor calling a hook before the shim's constructor" {
	probe_run --noshim early-ctor
	[ "$(call_of early-setschedparam)" = "rc=1 err=EPERM" ]
	probe_stop

	probe_run early-ctor
	[ "$(call_of early-setschedparam)" = "rc=0 err=OK" ]
	assert_rt_granted "$PID"
}

@test "an RT thread forks: the child and a thread it creates are SCHED_OTHER" {
	probe_run rt-fork
	settle '^child-sees'
	settle '^kernel grandthread'
	[ "$(call_of acquire)" = "rc=0 err=OK" ]
	assert_rt_granted "$(tid_of rt)"
	local child
	child=$(awk '/^child /{ print $2 }' "$OUT")
	[ "$(sched_of "$child")" = "SCHED_OTHER 0" ]
	[ "$(sched_of "$(tid_of grandthread)")" = "SCHED_OTHER 0" ]
	grep -q '^child-sees OTHER$' "$OUT"
}

@test "wine-style: a program asking for a thread of its child process gets EPERM, as without the shim; rtkit not asked" {
	probe_run --noshim wine-style 10
	[ "$(call_of setscheduler-other-process)" = "rc=-1 err=EPERM" ]
	probe_stop

	local before target
	before=$(rtkit_grants)
	probe_run wine-style 10
	target=$(awk '/^target /{ print $2 }' "$OUT")
	[ "$(call_of setscheduler-other-process)" = "rc=-1 err=EPERM" ]
	[ "$(sched_of "$target")" = "SCHED_OTHER 0" ]
	[ "$(hard_rttime "$target")" = unlimited ]
	[ "$(rtkit_grants)" = "$before" ]
}

@test "the command rtrun runs, about another process of the user: its thread through rtkit (WithPID, prlimit)" {
	local pidfile=$BATS_TEST_TMPDIR/target.pid target
	as_user sh -c 'echo $$; exec sleep 60' >"$pidfile" 3>&- &
	local bg=$!
	wait_for_file "$pidfile"
	target=$(cat "$pidfile")
	run as_user "$RTRUN" --timeout 10000 "$PROBES/wine-style" 10 "$target" </dev/null
	echo "$output"
	grep -q '^call setscheduler-other-process rc=0 err=OK$' <<<"$output"
	[ "$(sched_of "$target")" = "SCHED_RR|SCHED_RESET_ON_FORK 10" ]
	assert_rttime_bounded "$target"
	kill "$target"
	wait "$bg" || true
}

@test "wine-style: another user's process gets the real call's error, rtkit not asked" {
	sleep 30 & local rootproc=$!
	local before
	before=$(rtkit_grants)
	probe_run wine-style 10 "$rootproc"
	[ "$(call_of setscheduler-other-process)" = "rc=-1 err=EPERM" ]
	[ "$(sched_of "$rootproc")" = "SCHED_OTHER 0" ]
	[ "$(rtkit_grants)" = "$before" ]
	kill "$rootproc"
}

# ---- rules ----------------------------------------------------------------------------------

@test "errno parity: invalid calls give the same results with and without the shim (user)" {
	sleep 30 & local foreign=$!
	run as_user "$PROBES/errno-parity" "$foreign"
	local without=$output
	[ "$status" -eq 0 ]
	run as_user env LD_PRELOAD="$SHIM_PRELOAD" "$PROBES/errno-parity" "$foreign"
	[ "$status" -eq 0 ]
	kill "$foreign"
	[ "$output" = "$without" ]
	[[ $output == *"case ss-foreign-fifo-10 ret=-1 errno=EPERM"* ]]
	[[ $output == *"case pt-libc-thread-policy-42 ret=22 errno=EINVAL"* ]]
	(($(grep -c '^case' <<<"$output") >= 40))
}

@test "errno parity: invalid calls give the same results with and without the shim (root)" {
	# this test's own process of the user (other suites may run the user's sleeps meanwhile)
	as_user sh -c 'echo $$; exec sleep 30' >"$BATS_TEST_TMPDIR/foreign" & local bg=$!
	local foreign i
	for ((i = 0; i < 50; i++)); do
		foreign=$(cat "$BATS_TEST_TMPDIR/foreign") && [[ -n $foreign ]] && break
		sleep 0.05
	done
	run as_root "$PROBES/errno-parity" "$foreign"
	local without=$output
	run as_root env LD_PRELOAD="$SHIM_PRELOAD" "$PROBES/errno-parity" "$foreign"
	kill "$foreign"; wait "$bg" || true
	[ "$output" = "$without" ]
}

@test "root with privilege: served directly, exactly as asked (FIFO, no flag added), rtkit never asked" {
	local before
	before=$(rtkit_grants)
	probe_run --root jack2-create
	settle '^started' 2
	[ "$(sched_of "$(tid_of audio)")" = "SCHED_FIFO 70" ]
	[ "$(sched_of "$(tid_of client)")" = "SCHED_FIFO 65" ]
	grep -q '^sees audio FIFO 70$' "$OUT"
	probe_stop
	probe_run --root cyclictest-style 2
	settle '^sees' 2
	[ "$(sched_of "$(tid_of t0)")" = "SCHED_FIFO 80" ]
	[ "$(hard_rttime "$PID")" = unlimited ]
	[ "$(rtkit_grants)" = "$before" ]
}

@test "RTSHIM_RESET_ON_FORK=1: the privileged path adds SCHED_RESET_ON_FORK (the opt-in)" {
	probe_run --root RTSHIM_RESET_ON_FORK=1 cyclictest-style 1
	settle '^sees'
	[ "$(sched_of "$(tid_of t0)")" = "SCHED_FIFO|SCHED_RESET_ON_FORK 80" ]
}

@test "RTSHIM_POLICY=rr: the privileged path asks SCHED_RR" {
	probe_run --root RTSHIM_POLICY=rr cyclictest-style 1
	settle '^sees'
	[ "$(sched_of "$(tid_of t0)")" = "SCHED_RR 80" ]
}

# 200 requests: 1000 took 110 ms of CPU time here when quiet, near the runaway guard's 160 ms of
# realtime, which a busy machine or the ASan pass crosses (the thread is demoted, then granted again).
@test "an already-RT thread asking again costs rtkit nothing (200 requests, 1 grant)" {
	local before
	before=$(rtkit_grants)
	probe_run repeat-acquire 200 70
	grep -q '^succeeded 200 of 200$' "$OUT"
	assert_rt_granted "$PID"
	[ "$(($(rtkit_grants) - before))" = 1 ]
}

@test "RLIMIT_RTTIME: set to RTSHIM_RTTIME_US when unlimited (soft 80 %: the runaway guard)" {
	probe_run RTSHIM_RTTIME_US=100000 jack1-self
	settle '^kernel engine'
	assert_rt_granted "$(tid_of engine)"
	[ "$(hard_rttime "$PID")" = 100000 ]
	[ "$(soft_rttime "$PID")" = 80000 ]
}

@test "RLIMIT_RTTIME: RTSHIM_RUNAWAY=kill sets soft = hard (the kernel's behaviour)" {
	probe_run RTSHIM_RTTIME_US=100000 RTSHIM_RUNAWAY=kill jack1-self
	settle '^kernel engine'
	assert_rt_granted "$(tid_of engine)"
	[ "$(hard_rttime "$PID")" = 100000 ]
	[ "$(soft_rttime "$PID")" = 100000 ]
}

@test "RLIMIT_RTTIME: a lower limit already in place is never raised" {
	probe_run --rttime=20000:50000 jack1-self
	settle '^kernel engine'
	assert_rt_granted "$(tid_of engine)"
	[ "$(soft_rttime "$PID")" = 20000 ]
	[ "$(hard_rttime "$PID")" = 50000 ]
}

@test "RLIMIT_RTTIME: above RTTimeUSecMax it is lowered to the daemon's max" {
	probe_run --rttime=900000 RTSHIM_RTTIME_US=3000000 jack1-self
	settle '^kernel engine'
	assert_rt_granted "$(tid_of engine)"
	[ "$(hard_rttime "$PID")" = 200000 ]
}

@test "RLIMIT_RTTIME of 0: refused (the kernel would kill the thread), EPERM as without the shim" {
	probe_run --rttime=0 repeat-acquire 1
	[ "$(call_of first)" = "rc=1 err=EPERM" ]
	grep -q '^kernel main OTHER 0$' "$OUT"
	grep -q 'RLIMIT_RTTIME of process [0-9]* is 0' "$ERR"
	kill -0 "$PID"
}

@test "polkit refuses: pthread_create keeps the thread SCHED_OTHER and warns once" {
	deny_polkit
	probe_run jack2-create
	settle '^started' 2
	allow_polkit
	[ "$(call_of create-audio)" = "rc=0 err=OK" ]
	[ "$(sched_of "$(tid_of audio)")" = "SCHED_OTHER 0" ]
	[ "$(grep -c 'runs SCHED_OTHER' "$ERR")" -ge 1 ]
	[ "$(grep -c 'pthread_create: a FIFO/' "$ERR")" = 1 ]   # each distinct failure once
	grep -q '^rtshim\[[0-9]*\]: ' "$ERR"
}

@test "polkit refuses, RTSHIM_STRICT=1: pthread_create fails with EPERM, start routine never runs" {
	deny_polkit
	probe_run RTSHIM_STRICT=1 jack2-create
	allow_polkit
	[ "$(call_of create-audio)" = "rc=1 err=EPERM" ]
	[ "$(call_of create-client)" = "rc=1 err=EPERM" ]
	! grep -q '^started' "$OUT" || false
	[ "$(ls /proc/"$PID"/task | wc -l)" = 1 ]   # the failed threads were joined
}

@test "RTSHIM_STRICT=1: a priority above rtkit's maximum is refused with EPERM, not lowered" {
	probe_run RTSHIM_STRICT=1 cyclictest-style 1 80
	settle '^sees'
	[ "$(call_of setscheduler-t0)" = "rc=-1 err=EPERM" ]
	[ "$(sched_of "$(tid_of t0)")" = "SCHED_OTHER 0" ]
	grep -q 'the priority is above rtkit.s maximum and RTSHIM_STRICT=1 forbids another one' "$ERR"
	probe_stop
	# within rtkit's range: granted as asked
	probe_run RTSHIM_STRICT=1 cyclictest-style 1 15
	settle '^sees'
	[ "$(call_of setscheduler-t0)" = "rc=0 err=OK" ]
	[ "$(sched_of "$(tid_of t0)")" = "SCHED_RR|SCHED_RESET_ON_FORK 15" ]
}

@test "polkit refuses: sched_setscheduler returns the original EPERM" {
	deny_polkit
	probe_run cyclictest-style 2
	settle '^sees' 2
	allow_polkit
	[ "$(grep -c 'rc=-1 err=EPERM' "$OUT")" = 2 ]
	[ "$(grep -c 'rtkit did not grant' "$ERR")" = 1 ]
	# the one cause that applied, what the program gets, the nice level, where to look
	grep -q 'rtkit did not grant realtime (FIFO/80 asked, 20 sent): rtkit refused: polkit does not allow realtime for this session (or rtkit.s canary fired); the call fails with EPERM as it would without rtshim (rtrun --check tells more)$' "$ERR"
}

@test "polkit refuses, with -v: each decision once, no cause said twice" {
	deny_polkit
	probe_run RTSHIM_LOG=info cyclictest-style 1
	settle '^sees' 1
	allow_polkit
	grep -q "thread $(tid_of t0): FIFO/80 requested → no realtime: rtkit refused: polkit does not allow" "$ERR" ||
		{ cat "$ERR"; false; }
	run grep -c 'rtkit refused: rtkit refused' "$ERR"
	[ "$output" = 0 ] || { cat "$ERR"; false; }
}

@test "the shim copied alone (no librtshim-client.so beside it): errors as without it, requests granted, nothing loaded" {
	local d
	d=$(mktemp -d /tmp/rtshim-alone.XXXXXX)   # the bats tmpdir is not the test user's to read
	cp "$SHIM" "$d/"; chmod -R a+rX "$d"
	local with without
	with=$(as_user env LD_PRELOAD="${RTSHIM_ASAN_RUNTIME:+$RTSHIM_ASAN_RUNTIME }$d/librtshim.so" "$PROBES/errno-parity" 2>/dev/null)
	without=$(as_user "$PROBES/errno-parity")
	[ "$with" = "$without" ]
	probe_run --noshim LD_PRELOAD="${RTSHIM_ASAN_RUNTIME:+$RTSHIM_ASAN_RUNTIME }$d/librtshim.so" cyclictest-style 3
	settle '^sees' 3
	[ "$(grep -c 'rc=0' "$OUT")" = 3 ]
	! grep -q 'libdbus\|librtshim-client' "/proc/$PID/maps" || false
	[ ! -s "$ERR" ]
	rm -rf "$d"
}

@test "a relative LD_PRELOAD path: requests granted" {
	run as_user env ASANRT="${RTSHIM_ASAN_RUNTIME:-}" sh -c \
		'cd "$(dirname "$0")" && LD_PRELOAD="${ASANRT:+$ASANRT }./librtshim.so" "$1"/repeat-acquire 1 </dev/null' "$SHIM" "$PROBES"
	[[ $output == *"kernel main RR|RESET 20"* ]]
}

@test "bad RTSHIM_* values: one warning naming the variable and the default, program works" {
	probe_run RTSHIM_TIMEOUT_MS=abc RTSHIM_RTTIME_US=-5 RTSHIM_LOG=loud cyclictest-style 2
	settle '^sees' 2
	[ "$(grep -c 'RTSHIM_TIMEOUT_MS="abc" is not valid .*using the default 500' "$ERR")" = 1 ]
	[ "$(grep -c 'RTSHIM_RTTIME_US="-5" is not valid .*using the default 200000' "$ERR")" = 1 ]
	[ "$(grep -c 'RTSHIM_LOG="loud" is not valid .*using the default warn' "$ERR")" = 1 ]
	[ "$(wc -l <"$ERR")" = 3 ]
	assert_rt_granted "$(tid_of t0)"
}

@test "RTSHIM_LOG=info: one line per decision; RTSHIM_LOG=quiet: nothing" {
	probe_run RTSHIM_LOG=info jack1-self
	settle '^kernel engine'
	grep -Eq "^rtshim\[$PID\]: thread $PID: FIFO/70 requested → rtkit RR/20 \(clamped\), RLIMIT_RTTIME 160000/200000$" "$ERR"
	probe_stop
	deny_polkit
	probe_run RTSHIM_LOG=quiet jack2-create
	allow_polkit
	[ ! -s "$ERR" ]
}

@test "rtkit's default limits: the shim stays within the per-user budget" {
	tb_start   # same directory, restarted with rtkit's own limits
	local before
	before=$(rtkit_grants)
	probe_run repeat-acquire 200 70   # 200: see "an already-RT thread asking again"
	assert_rt_granted "$PID"
	probe_stop
	probe_run jack2-freewheel 70 2
	assert_rt_granted "$(tid_of audio)"
	[ "$(($(rtkit_grants) - before))" = 4 ]   # 1 + (1 create + 2 re-acquires)
	probe_stop
	tb_start -- --actions-per-burst-max=1000 --threads-per-user-max=1000 --processes-per-user-max=1000
}
