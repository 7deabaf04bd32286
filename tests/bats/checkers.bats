#!/usr/bin/env bats
# Memory and thread checkers over the probes with the shim loaded, against the real stack
# (dbus-daemon, polkitd, rtkit-daemon), as the unprivileged test user:
# - valgrind (memcheck) on the normal build: no error, no definite leak, in the grant path,
#   refusals, threads, fork, a daemon that closes its descriptors;
# - ThreadSanitizer: 64 threads asking at once through a TSan build of the shim, the daemon
#   client and the probe (make SANITIZE=thread tsan; tests/run passes it as RTSHIM_TSAN_BUILD).
# The ASan+UBSan build runs the other suites from tests/run (its second pass); these two
# checkers cannot run inside that build, so this suite is not part of it.

load common

setup_file() {
	tb_start -- --actions-per-burst-max=100000 --threads-per-user-max=1000 \
		--processes-per-user-max=1000
	# errno-parity passes NULL and unmapped parameters on purpose (its cases *-null-param,
	# *-null-attr, *-bad-pointer); memcheck reports the system call's argument with or without
	# the shim.  Nothing else is suppressed.
	cat >"$TB_DIR/valgrind.supp" <<'EOF'
{
   errno-parity-null-param-setparam
   Memcheck:Param
   sched_setparam(p)
   ...
   obj:*/tests/probes/errno-parity
}
{
   errno-parity-null-param-setscheduler
   Memcheck:Param
   sched_setscheduler(p)
   ...
   obj:*/tests/probes/errno-parity
}
{
   errno-parity-null-attr-setattr-size
   Memcheck:Param
   sched_setattr(attr->size)
   ...
   obj:*/tests/probes/errno-parity
}
{
   errno-parity-null-attr-setattr
   Memcheck:Param
   sched_setattr(attr)
   ...
   obj:*/tests/probes/errno-parity
}
EOF
	chmod 644 "$TB_DIR/valgrind.supp"
}
teardown_file() { tb_stop; }

# vg NAME ARGS... (stdin from the caller): a probe under memcheck with the shim preloaded.
vg() {
	local name=$1; shift
	as_user env LD_PRELOAD="$SHIM" valgrind -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite --show-leak-kinds=definite \
		--suppressions="$TB_DIR/valgrind.supp" "$PROBES/$name" "$@"
}

@test "valgrind: the probes are clean with the shim loaded (grants, refusals, threads, fork, closed fds)" {
	command -v valgrind >/dev/null
	run vg shim-script <<'EOF'
self 5
drop
thread 7
fork 6
cycle 3 4
self 30
closefds
fill 2
self 8
checkfill
fork-stress 3 4
EOF
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"self 8: rc=0 err=OK"* ]]
	[[ $output == *"checkfill: descriptors=4 replaced_or_closed=0 bytes_missing=0 stray_bytes=0"* ]]
	[[ $output == *"done"* ]]
	local probe
	for probe in "herd 16 10" "jack2-create" "jack1-self" "cyclictest-style 2" "errno-parity" \
		"fork-bomb 5 10" "rt-fork" "prio-change 10"; do
		# shellcheck disable=SC2086
		run vg $probe </dev/null
		[ "$status" -eq 0 ] || { echo "$probe: status $status"; echo "$output"; return 1; }
		! grep -q '^==[0-9]*==' <<<"$output" || { echo "$probe:"; echo "$output"; return 1; }
	done
}

@test "valgrind: a refused request (polkit says no) and no daemon at all are clean too" {
	tb_polkit deny
	run vg shim-script <<<$'self 5\nthread 6'
	tb_polkit allow
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"self 5: rc=-1 err=EPERM"* ]]
	"$TESTBED" stop --dir "$TB_DIR"
	run vg shim-script <<<$'self 5\nthread 6'
	tb_start -- --actions-per-burst-max=100000 --threads-per-user-max=1000 \
		--processes-per-user-max=1000
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"self 5: rc=-1 err=EPERM"* ]]
}

# tsan [VAR=VALUE...] PROBE ARGS...: a TSan-built probe with the TSan-built shim and client
# (RTSHIM_TSAN_BUILD).  The shim comes before the TSan runtime (the probe's own dependency), so
# that TSan's pthread_create wraps the thread before the shim's trampoline runs in it.
TSAN_B=${RTSHIM_TSAN_BUILD:-$RTSHIM_ROOT/build-tsan}
need_tsan() {
	[[ -x $TSAN_B/tests/probes/herd && -x $TSAN_B/tests/probes/shim-script ]] ||
		skip "no TSan build in $TSAN_B (make SANITIZE=thread tsan; make check builds it)"
}
tsan() {
	local env=() tshim=$TSAN_B/lib/$MULTIARCH/rtshim/librtshim.so
	while [[ $1 == *=* ]]; do env+=("$1"); shift; done
	local probe=$TSAN_B/tests/probes/$1; shift
	as_user env LD_PRELOAD="$tshim" TSAN_OPTIONS="halt_on_error=0 exitcode=66 second_deadlock_stack=1" \
		"${env[@]}" "$probe" "$@"
}
tsan_herd() { tsan "$@" herd 64 10 </dev/null; }

@test "a ThreadSanitizer-built program under the shim: 8 threads granted, exit 0 and no report, as without the shim" {
	need_tsan
	local herd=$TSAN_B/tests/probes/herd opts="halt_on_error=0 exitcode=66"
	run as_user env TSAN_OPTIONS="$opts" "$herd" 8 10 </dev/null
	[ "$status" -eq 0 ]
	run as_user env LD_PRELOAD="$SHIM_PRELOAD" RTSHIM_TIMEOUT_MS=10000 TSAN_OPTIONS="$opts" \
		"$herd" 8 10 </dev/null
	echo "$output" | grep -v '^thread '
	[ "$status" -eq 0 ]
	! grep -q 'ThreadSanitizer' <<<"$output" || false
	grep -q '^threads=8 ok=8 eperm=0 other_errors=0 ok_but_not_rt=0 failed_but_rt=0$' <<<"$output"
}

@test "ThreadSanitizer: 64 threads ask at once through the shim and the client: no report, all RT" {
	need_tsan
	run tsan_herd RTSHIM_TIMEOUT_MS=10000 # TSan is slow: the budget spans 64 round trips
	echo "$output" | grep -v '^thread '
	[ "$status" -eq 0 ]
	! grep -q 'ThreadSanitizer' <<<"$output" || false
	grep -q '^threads=64 ok=64 eperm=0 other_errors=0 ok_but_not_rt=0 failed_but_rt=0$' <<<"$output"
}

@test "ThreadSanitizer: 64 threads at once under rtkit's default limits (refusals, nice fallback): no report" {
	need_tsan
	tb_start # rtkit's own limits: 25 threads
	run tsan_herd
	tb_start -- --actions-per-burst-max=100000 --threads-per-user-max=1000 \
		--processes-per-user-max=1000
	echo "$output" | grep -v '^thread '
	[ "$status" -eq 0 ]
	! grep -q 'ThreadSanitizer' <<<"$output" || false
	grep -Eq '^threads=64 ok=([1-9]|1[0-9]|2[0-5]) eperm=[0-9]+ other_errors=0 ok_but_not_rt=0 failed_but_rt=0$' <<<"$output"
}

@test "ThreadSanitizer: forks while another thread is inside a D-Bus call, a daemon's closed fds: no report" {
	need_tsan
	run tsan shim-script <<<$'self 5\ndrop\nthread 7\nfork 6\nfork-stress 20 4\nclosefds\nfill 2\nself 8\ncheckfill'
	echo "$output"
	[ "$status" -eq 0 ]
	! grep -q 'ThreadSanitizer' <<<"$output" || false
	[[ $output == *"fork-stress 20 4: forks=20 child_ok=20 child_refused=0 child_hung=0 child_died=0 "* ]]
	[[ $output == *"checkfill: descriptors=4 replaced_or_closed=0 bytes_missing=0 stray_bytes=0"* ]]
	[[ $output == *"done"* ]]
}
