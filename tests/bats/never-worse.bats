#!/usr/bin/env bats
# Never worse than without the shim: programs that run fine on their own must not hang or see
# other values because the shim is preloaded.  Each probe runs to its end under `timeout` (a
# hang is a failure, never a stuck suite), as the unprivileged test user against the real stack
# (dbus-daemon, polkitd, rtkit-daemon) and, where privilege matters, as root; outcomes are read
# from the kernel (exit status, the probes' own sched_getscheduler/syscall readings, /proc).

load common

# the fork-in-handler test alone makes thousands of requests in 16 s (as many as the machine
# is fast): the burst limit must not run out for the tests after it
setup_file() {
	tb_start -- --actions-per-burst-max=1000000 --threads-per-user-max=1000 \
		--processes-per-user-max=1000
}
teardown_file() { tb_stop; }
# the unrelated process a test started (OUTSIDE: its PID), stopped by PID
teardown() {
	tb_report_failure
	[[ -n ${OUTSIDE:-} ]] && kill "$OUTSIDE" 2>/dev/null
	[[ -n ${BG:-} ]] && wait "$BG" 2>/dev/null
	unset OUTSIDE BG
	return 0
}

# bounded SECONDS [--root] [--noshim] [VAR=VALUE...] PROBE [ARGS...]: run a probe to its end
# (as the test user, or as root), at most SECONDS; bats' `run` keeps status and output.
bounded() {
	local secs=$1 root=() shim=1
	shift
	local -a env=()
	while (($#)); do
		case $1 in
		--root) root=(--root) ;;
		--noshim) shim=0 ;;
		*=*) env+=("$1") ;;
		*) break ;;
		esac
		shift
	done
	((shim)) && env+=("LD_PRELOAD=$SHIM_PRELOAD")
	local name=$1
	shift
	timeout "$secs" "$TESTBED" run --dir "$TB_DIR" "${root[@]}" -- env "${env[@]}" "$PROBES/$name" "$@"
}

# bounded_nice_cap SECONDS [--noshim] PROBE [ARGS...]: as the test user, but with CAP_SYS_NICE
# (ambient): a privileged user who is not root.  (RLIMIT_RTPRIO cannot be raised for it here:
# the testbed's `run` pins it to 0, and root may lack CAP_SYS_RESOURCE in a container.)
bounded_nice_cap() {
	local secs=$1 shim=1
	shift
	[[ $1 == --noshim ]] && { shim=0; shift; }
	local -a env=()
	((shim)) && env+=("LD_PRELOAD=$SHIM_PRELOAD")
	local name=$1
	shift
	"$TESTBED" user >/dev/null
	timeout "$secs" prlimit --rtprio=0:0 -- setpriv --reuid="$TEST_USER" --regid="$TEST_USER" \
		--clear-groups --inh-caps=-all,+sys_nice --ambient-caps=+sys_nice \
		env HOME=/tmp DBUS_SYSTEM_BUS_ADDRESS="unix:path=$TB_DIR/bus" "${env[@]}" "$PROBES/$name" "$@"
}

# line KEY: the rest of the output line that starts with "KEY " (first one).
line() { awk -v k="$1" 'index($0, k " ") == 1 { print substr($0, length(k) + 2); exit }' <<<"$output"; }

# ---- a plugin whose constructor waits for the RT thread it started ---------------------------

@test "plugin constructor waiting for its RT thread, user: the host goes on within the timeout, a later request is granted" {
	# the reference: without the shim the host goes on, the thread gets EPERM
	run bounded 20 --noshim plugin-host
	[ "$status" -eq 0 ]
	[ "$(line plugin-wait)" = OK ]
	[ "$(line "call plugin")" = "rc=1 err=EPERM" ]
	[ "$(line "kernel plugin")" = "OTHER 0" ]

	run bounded 20 RTSHIM_TIMEOUT_MS=2000 plugin-host
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(line plugin-wait)" = OK ]
	local ms
	ms=$(line dlopen-ms)
	# the request waits for the daemon client at most RTSHIM_TIMEOUT_MS, then fails open (a margin
	# for a busy machine and the sanitizers)
	((ms < 2000 + 1000))
	# EPERM as without the shim, or better: realtime through rtkit
	case $(line "call plugin") in
	"rc=1 err=EPERM") [ "$(line "kernel plugin")" = "OTHER 0" ] ;;
	"rc=0 err=OK") [[ $(line "kernel plugin") == "RR|RESET "* ]] ;;
	*) false ;;
	esac
	# the client finished loading once the loader's lock was free: the next request is served
	[ "$(line "call host")" = "rc=0 err=OK" ]
	[[ $(line "kernel host") == "RR|RESET "* ]]

	# the bound is RTSHIM_TIMEOUT_MS
	run bounded 20 RTSHIM_TIMEOUT_MS=200 plugin-host
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(line plugin-wait)" = OK ]
	ms=$(line dlopen-ms)
	((ms < 200 + 1000)) # not the 2000 ms above
}

@test "plugin constructor waiting for its RT thread under RTSHIM_TRACE or RTSHIM_ONLY: the stack is taken without the loader's lock, the host goes on" {
	local v ms
	for v in RTSHIM_TRACE=1 'RTSHIM_ONLY=libplugin*' RTSHIM_ONLY=plugin-host; do
		run bounded 20 RTSHIM_TIMEOUT_MS=1000 "$v" plugin-host
		echo "$v: status $status"
		echo "$output"
		[ "$status" -eq 0 ]
		[ "$(line plugin-wait)" = OK ]
		ms=$(line dlopen-ms)
		((ms < 1000 + 1000)) # one timeout, with a margin
	done
	# the traced stack names the program's own (not exported) function
	run bounded 20 RTSHIM_TRACE=1 plugin-host
	[[ $output == *"trace:   #0 plugin-host main+0x"* ]]
	# RTSHIM_ONLY forwards exactly the matching caller: the host's own request is served
	run bounded 20 RTSHIM_ONLY=plugin-host plugin-host
	[ "$(line "call host")" = "rc=0 err=OK" ]
	[[ $(line "kernel host") == "RR|RESET "* ]]
	run bounded 20 'RTSHIM_ONLY=libplugin*' plugin-host
	[ "$(line "call host")" = "rc=1 err=EPERM" ]
	[ "$(line "kernel host")" = "OTHER 0" ]
}

@test "plugin constructor waiting for its RT thread, root: FIFO 10 granted at once, no hang" {
	run bounded 20 --root --noshim plugin-host
	[ "$status" -eq 0 ]
	[ "$(line "kernel plugin")" = "FIFO 10" ]

	run bounded 20 --root plugin-host
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(line plugin-wait)" = OK ]
	[ "$(line "call plugin")" = "rc=0 err=OK" ]
	[[ $(line "kernel plugin") == FIFO*" 10" ]]
	local ms
	ms=$(line dlopen-ms)
	((ms < 1000)) # no wait: not the 10 s timeout (a margin for a busy machine and the sanitizers)
}

@test "plugin whose thread creates an explicit-RT thread while the constructor waits, user: bounded, the constructor's own creation still RT" {
	run bounded 20 --noshim plugin-host libplugin-create.so
	[ "$status" -eq 0 ]
	[ "$(line "call plugin")" = "rc=1 err=EPERM" ]

	# the creator is a thread the lock holder waits for: it must not load the client itself
	run bounded 20 RTSHIM_TIMEOUT_MS=1000 plugin-host libplugin-create.so
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(line plugin-wait)" = OK ]
	local ms
	ms=$(line dlopen-ms)
	((ms < 2 * 1000 + 1500)) # the creator's bounded wait, then the new thread's (RTSHIM_TIMEOUT_MS each)
	case $(line "call plugin") in
	"rc=0 err=OK") [[ $(line "kernel plugin") == "OTHER 0" || $(line "kernel plugin") == "RR|RESET "* ]] ;;
	*) false ;;
	esac
	[ "$(line "call host")" = "rc=0 err=OK" ]

	# the creator is the constructor itself (libffado under jackd): it holds the loader's lock,
	# the client is loaded on its thread and the new thread is promoted through rtkit
	run bounded 20 RTSHIM_TIMEOUT_MS=1000 PLUGIN_CREATOR=ctor plugin-host libplugin-create.so
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(line "call plugin")" = "rc=0 err=OK" ]
	[[ $(line "kernel plugin") == "RR|RESET "* ]]
	ms=$(line dlopen-ms)
	((ms < 2 * 1000 + 1500))
}

# ---- a signal handler that reads scheduling while threads start and end ---------------------

@test "SIGALRM handler reading another thread's scheduling while threads start and end: 3 runs of 3 s, no hang" {
	run bounded 20 --noshim sig-reader 3
	[ "$status" -eq 0 ]
	[ "$(line handler-errors)" = 0 ]
	local i
	for i in 1 2 3; do
		run bounded 20 sig-reader 3
		echo "run $i: status $status"
		echo "$output"
		[ "$status" -eq 0 ]
		[ "$(line handler-errors)" = 0 ]
		(($(line handler-runs) > 100))
		(($(line threads) > 100))
	done
}

# ---- a handler that forks while its thread is inside a request ------------------------------

@test "a signal handler that forks while its thread asks for RT and drops it: 8 runs of 2 s, no hang" {
	run bounded 20 --noshim fork-in-handler 2 2000 21
	[ "$status" -eq 0 ]
	(($(line forks) > 20))
	local i
	for i in 1 2 3 4 5 6 7 8; do
		run bounded 20 fork-in-handler 2 2000 21
		echo "run $i: status $status: $(line forks) forks, $(line granted) of $(line requests) requests granted"
		grep -m 3 '^rtshim\[' <<<"$output" || true # the shim's warnings: why a request was refused
		[ "$status" -eq 0 ]
		(($(line forks) > 20))
		(($(line granted) > 0))
	done
}

# ---- a PID namespace of its own ---------------------------------------------------------------

# in_pid_namespace X [VAR=VALUE...]: tests/probes/pidns-child X as the test user, in a PID
# namespace of its own (a container's view: `unshare --pid --fork --mount-proc`, then the user),
# with its PIDs counted from just below X so that its child gets PID X there.
in_pid_namespace() {
	local x=$1
	shift
	run timeout 30 unshare --pid --fork --mount-proc sh -c \
		'echo $(($1 - 200)) >/proc/sys/kernel/ns_last_pid && shift && exec "$@"' sh "$x" \
		"$TESTBED" run --dir "$TB_DIR" -- env "$@" "$PROBES/pidns-child" "$x"
	echo "$output"
}

@test "in a PID namespace of its own: a request about its child or itself is the kernel's EPERM, no process outside made RT" {
	# an unrelated process of the user, outside; its PID X is the child's PID inside
	local pidfile=$BATS_TEST_TMPDIR/outside.pid
	as_user sh -c 'echo $$; exec sleep 60' >"$pidfile" 3>&- &
	BG=$!
	wait_for_file "$pidfile"
	local x
	x=$(cat "$pidfile")
	OUTSIDE=$x
	in_pid_namespace "$x"
	[ "$status" -eq 0 ]
	[ "$(line child)" = "$x" ]
	[ "$(line "call child")" = "rc=-1 err=EPERM" ]
	[ "$(line "kernel child")" = "OTHER 0" ]
	[ "$(line "call self")" = "rc=1 err=EPERM" ]

	in_pid_namespace "$x" LD_PRELOAD="$SHIM_PRELOAD"
	[ "$status" -eq 0 ]
	[ "$(line child)" = "$x" ]
	[ "$(line "call child")" = "rc=-1 err=EPERM" ] # never success for a thread not realtime
	[ "$(line "kernel child")" = "OTHER 0" ]
	[ "$(line "call self")" = "rc=1 err=EPERM" ]
	[ "$(line "kernel main")" = "OTHER 0" ]
	[ "$(sched_of "$x")" = "SCHED_OTHER 0" ] # the process outside is untouched
	[ "$(grep -c 'PID namespace of its own' <<<"$output")" = 1 ] # one warning that says why
}

# ---- a thread with the smallest stack --------------------------------------------------------

# stack_extra BOUND KERNEL self|attr [--root] [VAR=VALUE...]: the shim's extra use of a thread's
# stack when the thread asks for RT (tests/probes/small-stack measure: a painted stack), against
# the same program without the shim: at most BOUND bytes.  Then the same request from a thread
# with a 16 KiB stack: the program lives, and the kernel says KERNEL of the thread.
stack_extra() {
	local bound=$1 kernel=$2 how=$3
	shift 3
	run bounded 20 "$@" --noshim small-stack measure "$how"
	[ "$status" -eq 0 ]
	local plain
	plain=$(line used)
	run bounded 20 "$@" small-stack measure "$how"
	[ "$status" -eq 0 ]
	local shim
	shim=$(line used)
	echo "$how $*: ${plain} B used without the shim, ${shim} B with it: +$((shim - plain)) B (bound $bound)"
	# tests/run's ASan pass: the sanitized shim keeps the request on the caller's stack
	# (shim/own-stack.c) and its frames are ASan's, so the bound and the 16 KiB thread are the
	# production build's; here ASan checks every byte of both requests above
	[[ -z ${RTSHIM_ASAN_RUNTIME:-} ]] || return 0
	((shim - plain <= bound))
	run bounded 20 "$@" small-stack min "$how"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(line "kernel small")" = "$kernel" ]
}

@test "a thread with a 16 KiB stack asks for RT: granted, the shim adds at most 512 bytes to its stack" {
	stack_extra 512 "RR|RESET 10" self
	stack_extra 512 "RR|RESET 10" attr
	stack_extra 512 "FIFO 10" self --root
}

# The unwinder's share depends on the machine: about 10 KiB in all was measured on two machines whose
# program alone used 7.6 and 6.5 KiB (+2.3 and +3.6 KiB); 4 KiB leaves the 16 KiB thread room.
@test "a thread with a 16 KiB stack under RTSHIM_TRACE or RTSHIM_ONLY: lives, the shim adds at most 4 KiB to its stack" {
	stack_extra 4096 "RR|RESET 10" self RTSHIM_TRACE=1
	stack_extra 4096 "FIFO 10" self --root RTSHIM_TRACE=1
	stack_extra 4096 "OTHER 0" self RTSHIM_ONLY='libjack*'
	stack_extra 4096 "RR|RESET 10" self RTSHIM_ONLY='small-stack'
	stack_extra 4096 "RR|RESET 10" attr RTSHIM_TRACE=1
}

# ---- privileged callers keep inheritance (root, and a user with CAP_SYS_NICE) ---------------

@test "root's sched_setscheduler(0, FIFO, 20): a default thread and a forked child inherit FIFO 20" {
	run bounded 20 --root --noshim priv-inherit
	[ "$status" -eq 0 ]
	[ "$(line "kernel thread")" = "FIFO 20" ]
	[ "$(line "kernel child")" = "FIFO 20" ]

	run bounded 20 --root priv-inherit
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(line "call setscheduler")" = "rc=0 err=OK" ]
	[ "$(line "kernel main")" = "FIFO 20" ]
	[ "$(line "kernel thread")" = "FIFO 20" ]
	[ "$(line "kernel child")" = "FIFO 20" ]
}

@test "a user with CAP_SYS_NICE: sched_setscheduler(0, FIFO, 20) is inherited by a thread and a child" {
	run bounded_nice_cap 20 --noshim priv-inherit
	[ "$status" -eq 0 ]
	[ "$(line "kernel thread")" = "FIFO 20" ]
	[ "$(line "kernel child")" = "FIFO 20" ]

	local before
	before=$(rtkit_grants)
	run bounded_nice_cap 20 priv-inherit
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(line "call setscheduler")" = "rc=0 err=OK" ]
	[ "$(line "kernel main")" = "FIFO 20" ]
	[ "$(line "kernel thread")" = "FIFO 20" ]
	[ "$(line "kernel child")" = "FIFO 20" ]
	[ "$(rtkit_grants)" = "$before" ]
}

# ---- glibc's view of a granted thread --------------------------------------------------------

@test "pthread_getattr_np after a grant reads SCHED_RR, and an attribute copied from it creates a thread" {
	# the reference: with privilege, no shim
	run bounded 20 --root --noshim attr-copy
	[ "$status" -eq 0 ]
	[ "$(line attr-policy)" = 0x2 ]
	[ "$(line "call create")" = "rc=0 err=OK" ]
	[ "$(line "kernel copied")" = "RR 10" ]

	run bounded 20 attr-copy
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(line "call setschedparam")" = "rc=0 err=OK" ]
	[ "$(line attr-policy)" = 0x2 ]
	[ "$(line attr-prio)" = 10 ]
	[ "$(line "call attr-setschedpolicy")" = "rc=0 err=OK" ]
	[ "$(line "call create")" = "rc=0 err=OK" ]
	[ "$(line "kernel copied")" = "RR|RESET 10" ]
}

# glibc gives a thread created with PTHREAD_EXPLICIT_SCHED and no policy the scheduling it
# recorded for the creating thread (JACK2's JackPosixThread creates its non-realtime threads so:
# libjack's client thread, from ecasound's engine thread).  After rtkit's grant that record says
# realtime once it is read back or changed keeping SCHED_RESET_ON_FORK, and no unprivileged
# thread may start realtime: without the shim's help that pthread_create fails with EPERM.
@test "a granted thread that read its scheduling back creates a thread with an explicit attribute and no policy: created, realtime as with privilege" {
	# the references: with privilege the thread starts with the creator's FIFO 50; without the
	# shim an unprivileged user's engine gets nothing and the thread starts SCHED_OTHER
	run bounded 20 --root --noshim engine-jack read
	[ "$status" -eq 0 ]
	[ "$(line "kernel jack-start")" = "FIFO 50" ]
	run bounded 20 --noshim engine-jack read
	[ "$status" -eq 0 ]
	[ "$(line "call create")" = "rc=0 err=OK" ]
	[ "$(line "kernel jack-start")" = "OTHER 0" ]

	run bounded 20 engine-jack read
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(line "kernel engine")" = "RR|RESET 20" ]
	[ "$(line "read engine")" = "FIFO 50" ] # what it asked (rule 6), as with privilege
	[ "$(line "call create")" = "rc=0 err=OK" ]
	[ "$(line "kernel jack-start")" = "RR|RESET 20" ]
	[ "$(line "call jack")" = "rc=0 err=OK" ]
	[ "$(line "kernel jack")" = "RR|RESET 5" ]
}

@test "a granted thread that lowered itself creates a thread with an explicit attribute and no policy: created, realtime as with privilege" {
	run bounded 20 --root --noshim engine-jack lower
	[ "$status" -eq 0 ]
	[ "$(line "kernel jack-start")" = "RR 10" ]
	run bounded 20 --noshim engine-jack lower
	[ "$status" -eq 0 ]
	[ "$(line "call create")" = "rc=0 err=OK" ]

	run bounded 20 engine-jack lower
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(line "call lower")" = "rc=0 err=OK" ]
	[ "$(line "call create")" = "rc=0 err=OK" ]
	[ "$(line "kernel jack-start")" = "RR|RESET 10" ]
	[ "$(line "kernel jack")" = "RR|RESET 5" ]
}

@test "a granted thread creating a thread with an explicit attribute and no policy, glibc's record untouched: SCHED_OTHER, as without the shim" {
	run bounded 20 engine-jack
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(line "kernel engine")" = "RR|RESET 20" ]
	[ "$(line "call create")" = "rc=0 err=OK" ]
	[ "$(line "kernel jack-start")" = "OTHER 0" ]
	[ "$(line "kernel jack")" = "RR|RESET 5" ]
}

@test "a vfork child asking for RT leaves the parent's policy and descriptors as they were" {
	run bounded 20 --root --noshim vfork-rt
	[ "$status" -eq 0 ]
	[ "$(line "call worker")" = "rc=0 err=OK" ]
	[ "$(line before)" = "$(line after)" ]

	run bounded 20 vfork-rt
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(line "call parent")" = "rc=0 err=OK" ]
	[[ $(line before) == "RR "* ]]
	# policy as the program reads it, and descriptors once another thread was served too
	[ "$(line "call worker")" = "rc=0 err=OK" ]
	[ "$(line before)" = "$(line after)" ]
	[[ $(line "kernel parent") == "RR|RESET "* ]]
	[[ $(line "kernel worker") == "RR|RESET "* ]]
}
