#!/usr/bin/env bats
# Bad input and abuse, end to end: invalid calls give exactly the unshimmed result (user and
# root), every RTSHIM_* variable survives garbage, the shim is inert in secure execution, and no
# user gets another user's thread promoted through the shim or rtrun.  Against the real stack
# (dbus-daemon, polkitd, rtkit-daemon), as the unprivileged test user; outcomes from the kernel
# and rtkit's own log.  (The config parser's fuzzer runs from tests/run: tests/fuzz/.)

load common

setup_file() {
	tb_start -- --actions-per-burst-max=100000 --threads-per-user-max=1000 \
		--processes-per-user-max=1000
	# A world-readable scratch directory on a file system that honours set-user-ID bits.
	WORK=$(mktemp -d /tmp/rtshim-security.XXXXXX)
	chmod 755 "$WORK"
	export WORK
}

teardown_file() {
	tb_stop
	[[ -n ${WORK:-} ]] && rm -rf "$WORK"
}

teardown() {
	local p
	for p in ${BGS:-}; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	unset BGS
	exec 7>&-
	return 0
}

# foreign_herd WHO...: a process with two extra threads (they ask FIFO/0: EINVAL, and stay
# SCHED_OTHER) run by WHO (a command prefix: as_root, setpriv ...), alive until the test ends.
# Sets FPID and FTID (a thread that is not the main thread).
foreign_herd() {
	local out=$BATS_TEST_TMPDIR/foreign.out fifo=$BATS_TEST_TMPDIR/foreign.in i
	rm -f "$fifo"; mkfifo "$fifo"; chmod 666 "$fifo"
	fresh_outputs "$out"
	"$@" "$PROBES/herd" 2 0 <"$fifo" >"$out" 2>&1 3>&- &
	BGS="${BGS:-} $!"
	exec 7>"$fifo"
	for ((i = 0; i < 200; i++)); do grep -q '^ready' "$out" && break; sleep 0.05; done
	FPID=$(awk '/^pid /{ print $2; exit }' "$out")
	FTID=$(awk '$1 == "thread" && $2 == 1 { sub("tid=", "", $3); print $3 }' "$out")
	[[ -n $FPID && -n $FTID && $FPID != "$FTID" ]] || { cat "$out"; return 1; }
}

as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }

# ---- errno parity ----------------------------------------------------------------------------

@test "errno parity, as the user: bad priorities, NULL and unmapped params, unknown/foreign PIDs and TIDs, unknown pthread_t, a thread created behind the interposer, libc calls and syscall() (sched_setattr too)" {
	foreign_herd as_root
	run as_user "$PROBES/errno-parity" "$FPID" "$FTID"
	[ "$status" -eq 0 ]
	local without=$output
	run as_user env LD_PRELOAD="$SHIM_PRELOAD" "$PROBES/errno-parity" "$FPID" "$FTID"
	[ "$status" -eq 0 ]
	diff <(echo "$without") <(echo "$output")
	local c
	for c in "ss-fifo-prio-minus1 ret=-1 errno=EINVAL" "ss-fifo-prio-0 ret=-1 errno=EINVAL" \
		"ss-fifo-prio-100 ret=-1 errno=EINVAL" "ss-fifo-prio-intmax ret=-1 errno=EINVAL" \
		"ss-fifo-null-param ret=-1 errno=EINVAL" "ss-pid-nonexistent ret=-1 errno=ESRCH" \
		"ss-foreign-tid-fifo-10 ret=-1 errno=EPERM" "ss-foreign-fifo-10 ret=-1 errno=EPERM" \
		"ptprio-self-intmax ret=22 errno=EINVAL" \
		"pt-libc-thread-fifo-prio-100 ret=22 errno=EINVAL" \
		"ss-fifo-bad-pointer ret=-1 errno=EFAULT" "sys-ss-fifo-bad-pointer ret=-1 errno=EFAULT" \
		"sys-ss-fifo-prio-100 ret=-1 errno=EINVAL" "sys-sp-null-param ret=-1 errno=EINVAL" \
		"sys-ss-pid-nonexistent ret=-1 errno=ESRCH" "sys-ss-foreign-fifo-10 ret=-1 errno=EPERM" \
		"sys-ss-foreign-tid-fifo-10 ret=-1 errno=EPERM" "sys-sa-fifo-prio-100 ret=-1 errno=EINVAL" \
		"sys-sa-bad-pointer ret=-1 errno=EFAULT" "sys-sa-size-1 ret=-1 errno=E2BIG" \
		"sys-sa-foreign-fifo-10 ret=-1 errno=EPERM"; do
		grep -qx "case $c" <<<"$output" || { echo "missing: case $c"; return 1; }
	done
	(($(grep -c '^case' <<<"$output") >= 100))
	[ "$(sched_of "$FTID")" = "SCHED_OTHER 0" ]
	# the trace reads the priority before the real call: an unmapped param must not crash it
	run as_user env RTSHIM_TRACE=1 LD_PRELOAD="$SHIM_PRELOAD" "$PROBES/errno-parity" "$FPID" "$FTID"
	[ "$status" -eq 0 ]
	diff <(echo "$without") <(grep '^case' <<<"$output")
}

@test "errno parity, as root: the same table against the test user's process and thread" {
	foreign_herd as_user
	run as_root "$PROBES/errno-parity" "$FPID" "$FTID"
	[ "$status" -eq 0 ]
	local without=$output
	run as_root env LD_PRELOAD="$SHIM_PRELOAD" "$PROBES/errno-parity" "$FPID" "$FTID"
	[ "$status" -eq 0 ]
	diff <(echo "$without") <(echo "$output")
	(($(grep -c '^case' <<<"$output") >= 100))
}

# ---- RTSHIM_* garbage ------------------------------------------------------------------------

# Every variable the shim reads: the table of core/config.c (a new variable is covered as soon as
# it exists).  Bad values by kind; "" and a long mess with blanks and '/' are bad for all.
config_vars() { sed -n 's/^[[:space:]]*{ "\(RTSHIM_[A-Z_]*\)".*/\1/p' "$RTSHIM_ROOT/core/config.c"; }
LONG=$(printf 'x/ %.0s' {1..3000})
bad_values() {
	case $1 in
	RTSHIM_TIMEOUT_MS | RTSHIM_RTTIME_US | RTSHIM_TOP)
		printf '%s\n' abc -1 -0 +5 " 5" "5 " 0x10 1e3 0 99999999999999999999999 \
			18446744073709551616 4294967296 3600000001 ;;
	RTSHIM_ONLY) printf '%s\n' , a,,b ",lib" "a b" lib/x.so $'\t' ;;
	*) printf '%s\n' abc -1 2 yess 99999999999999999999999 4294967296 $'\x01\xff' ;;
	esac
	printf '%s\n' "" "$LONG"
}

@test "every RTSHIM_* variable with garbage, empty, negative, overflowing, huge values: one warning, default, works" {
	local vars v value n=0 runs=0
	mapfile -t vars < <(config_vars)
	echo "variables: ${vars[*]}"
	((${#vars[@]} >= 6))
	# round k: every variable at once with its k-th bad value (or its last one)
	local k max=0 list
	for v in "${vars[@]}"; do
		mapfile -t list < <(bad_values "$v")
		((${#list[@]} > max)) && max=${#list[@]}
	done
	for ((k = 0; k < max; k++)); do
		local -a env=()
		for v in "${vars[@]}"; do
			mapfile -t list < <(bad_values "$v")
			value=${list[k < ${#list[@]} ? k : ${#list[@]} - 1]}
			env+=("$v=$value")
		done
		local out=$BATS_TEST_TMPDIR/cfg.out err=$BATS_TEST_TMPDIR/cfg.err
		# drop: realtime ends before exit, whose work under the ASan build (leak check) would
		# otherwise run realtime long enough for the runaway guard's warning
		as_user env "${env[@]}" LD_PRELOAD="$SHIM_PRELOAD" "$PROBES/shim-script" \
			<<<$'self 5\ndrop' >"$out" 2>"$err" 3>&- || { echo "round $k: exit status $?"; cat "$out" "$err"; return 1; }
		runs=$((runs + 1))
		grep -q '^done$' "$out"
		# granted with the defaults (RLIMIT_RTTIME 200000, the shim's own flag, RR from rtkit)
		grep -q '^self 5: rc=0 err=OK elapsed_ms=[0-9]* kernel=RR|RESET 5$' "$out" ||
			{ echo "round $k:"; cat "$out" "$err"; return 1; }
		for v in "${vars[@]}"; do
			n=$(grep -c "^rtshim\[[0-9]*\]: $v=\".*\" is not valid (expected .*): using the default " "$err" || true)
			[ "$n" = 1 ] || { echo "round $k: $v warned $n times:"; cat "$err"; return 1; }
		done
		# nothing else said (the warnings only)
		[ "$(wc -l <"$err")" = "${#vars[@]}" ] || { echo "round $k:"; cat "$err"; return 1; }
	done
	echo "$runs rounds, ${#vars[@]} variables each"
}

@test "bad RTSHIM_* values: the defaults are in force (RLIMIT_RTTIME 200000; as root FIFO with the flag)" {
	local out=$BATS_TEST_TMPDIR/cfg.out
	as_user env RTSHIM_RTTIME_US=99999999999999999999 RTSHIM_RUNAWAY=-1 LD_PRELOAD="$SHIM_PRELOAD" \
		"$PROBES/shim-script" <<<$'self 5\nsleep 3000' >"$out" 2>/dev/null 3>&- &
	BGS=$!
	local i pid
	for ((i = 0; i < 100; i++)); do grep -q '^self 5: ' "$out" && break; sleep 0.05; done
	pid=$(awk '/^pid /{ print $2; exit }' "$out")
	[ "$(hard_rttime "$pid")" = 200000 ]
	# RTSHIM_RUNAWAY's default (demote) keeps the soft limit below the hard one; kill: equal
	[ "$(soft_rttime "$pid")" -lt 200000 ]
	wait "$BGS"; unset BGS
	# the privileged path: RTSHIM_RESET_ON_FORK (0) and RTSHIM_POLICY (asked) at their defaults
	as_root env RTSHIM_RESET_ON_FORK=maybe RTSHIM_POLICY=deadline LD_PRELOAD="$SHIM_PRELOAD" \
		"$PROBES/shim-script" <<<$'self 7\nsleep 3000' >"$out" 2>/dev/null 3>&- &
	BGS=$!
	for ((i = 0; i < 100; i++)); do grep -q '^self 7: ' "$out" && break; sleep 0.05; done
	pid=$(awk '/^pid /{ print $2; exit }' "$out")
	grep -q '^self 7: rc=0 err=OK elapsed_ms=[0-9]* kernel=FIFO 7$' "$out"
	[ "$(sched_of "$pid")" = "SCHED_FIFO 7" ]
	wait "$BGS"; unset BGS
}

# ---- secure execution ------------------------------------------------------------------------

# suid_copy OWNER: tests/probes/secure-probe, set-user-ID to OWNER, in $WORK.
suid_copy() {
	local f=$WORK/secure-probe-$1
	cp "$PROBES/secure-probe" "$f"
	chown "$1:" "$f"
	chmod 4755 "$f"
	echo "$f"
}

@test "secure execution (set-user-ID to another user): the shim is inert, reads no RTSHIM_*, asks nothing" {
	local prog before
	prog=$(suid_copy nobody)
	# control: the same probe, not set-user-ID: the shim reads its variables and gets RT
	run as_user env RTSHIM_TIMEOUT_MS=abc "$PROBES/secure-probe" "$SHIM" 5
	echo "$output"
	[ "${lines[0]}" = "secure at_secure=0 ruid=$(id -u "$TEST_USER") euid=$(id -u "$TEST_USER")" ]
	[[ $output == *"kernel main RR|RESET 5"* ]]
	[[ $output =~ env\ rtshim_reads=[1-9] ]]
	[[ $output == *'RTSHIM_TIMEOUT_MS="abc" is not valid'* ]]
	before=$(rtkit_grants)
	# set-user-ID: the program loads the shim itself (the loader ignores an LD_PRELOAD path)
	run as_user env RTSHIM_TIMEOUT_MS=abc RTSHIM_LOG=debug "$prog" "$SHIM" 5
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "secure at_secure=1 ruid=$(id -u "$TEST_USER") euid=$(id -u nobody)" ]
	[ "${lines[1]}" = "call setscheduler rc=-1 err=EPERM" ]
	[ "${lines[2]}" = "call setschedparam rc=1 err=EPERM" ]
	[ "${lines[3]}" = "kernel main OTHER 0" ]
	[ "${lines[4]}" = "env rtshim_reads=0" ]
	[ "${lines[5]}" = "maps shim=yes" ]
	[ "${#lines[@]}" = 6 ] # and not a word from the shim
	[ "$(rtkit_grants)" = "$before" ]
	# through LD_PRELOAD: the loader does not even map it
	run as_user env LD_PRELOAD="$SHIM" RTSHIM_LOG=debug "$prog" - 5
	[ "${lines[3]}" = "kernel main OTHER 0" ]
	[ "${lines[5]}" = "maps shim=no" ]
	[ "$(rtkit_grants)" = "$before" ]
}

@test "secure execution (set-user-ID root, capabilities kept): inert, the program gets exactly what it asked" {
	local prog
	prog=$(suid_copy root)
	# not through as_user: its empty bounding set would leave a set-user-ID root program no
	# capability; here euid 0 has CAP_SYS_NICE and the direct call succeeds
	run setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --clear-groups env RTSHIM_LOG=debug \
		RTSHIM_RESET_ON_FORK=1 "$prog" "$SHIM" 5
	echo "$output"
	[ "${lines[0]}" = "secure at_secure=1 ruid=$(id -u "$TEST_USER") euid=0" ]
	[ "${lines[1]}" = "call setscheduler rc=0 err=OK" ]
	[ "${lines[3]}" = "kernel main FIFO 5" ] # no SCHED_RESET_ON_FORK added: the shim did nothing
	[ "${lines[4]}" = "env rtshim_reads=0" ]
	[ "${#lines[@]}" = 6 ]
	# control: root without secure execution reads RTSHIM_RESET_ON_FORK=1 and adds the flag
	run env RTSHIM_RESET_ON_FORK=1 "$PROBES/secure-probe" "$SHIM" 5
	[ "${lines[3]}" = "kernel main FIFO|RESET 5" ]
}

# ---- another user's threads ------------------------------------------------------------------

@test "another user's threads cannot be promoted through the shim (main thread and another thread)" {
	foreign_herd as_nobody
	local before t
	before=$(rtkit_grants)
	for t in "$FPID" "$FTID"; do
		run as_user env LD_PRELOAD="$SHIM_PRELOAD" "$PROBES/wine-style" 10 "$t" </dev/null
		echo "$output"
		grep -q '^call setscheduler-other-process rc=-1 err=EPERM$' <<<"$output"
		[ "$(sched_of "$t")" = "SCHED_OTHER 0" ]
	done
	# nor with a thread of ours as the process and theirs as the thread
	run as_user prlimit --rttime=200000 "$PROBES/rtkit-call" pid 0 "$FTID" 5
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(sched_of "$FTID")" = "SCHED_OTHER 0" ]
	[ "$(rtkit_grants)" = "$before" ]
	[ "$(hard_rttime "$FPID")" = unlimited ] # their limits untouched too
}

@test "another user's threads cannot be promoted through rtrun --pid" {
	foreign_herd as_nobody
	local before
	before=$(rtkit_grants)
	run as_user "$RTRUN" --pid "$FPID" -p 5
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"belongs to user nobody"* ]]
	run as_user "$RTRUN" --pid "$FTID" -p 5
	[ "$status" -eq 1 ]
	[ "$(sched_of "$FPID")" = "SCHED_OTHER 0" ]
	[ "$(sched_of "$FTID")" = "SCHED_OTHER 0" ]
	[ "$(rtkit_grants)" = "$before" ]
	[ "$(hard_rttime "$FPID")" = unlimited ]
}
