#!/usr/bin/env bats
# Never worse than without the shim, for programs of unusual but legal designs: a seccomp
# sandbox, a vfork child that sets signals before exec, a supervisor that boosts its child
# process, a drop through sched_setattr.  Each runs with and without the shim as the
# unprivileged test user against the real stack; outcomes are read from the kernel (exit status
# and signal, the probes' own raw system calls, /proc).

load common

setup_file() { tb_start; }
teardown_file() { tb_stop; }
# a test that denies realtime gives it back even when it fails
teardown() { [[ -z ${denied:-} ]] || tb_polkit allow; }

# bounded SECONDS [--noshim] [VAR=VALUE...] PROBE [ARGS...]: a probe run to its end as the test
# user, at most SECONDS; bats' `run` keeps status and output.
bounded() {
	local secs=$1 shim=1
	shift
	local -a env=(RTSHIM_TIMEOUT_MS=10000)
	while (($#)); do
		case $1 in
		--noshim) shim=0 ;;
		*=*) env+=("$1") ;;
		*) break ;;
		esac
		shift
	done
	((shim)) && env+=("LD_PRELOAD=$SHIM_PRELOAD")
	local name=$1
	shift
	timeout "$secs" "$TESTBED" run --dir "$TB_DIR" -- env "${env[@]}" "$PROBES/$name" "$@"
}

# line KEY: the rest of the output line that starts with "KEY " (first one).
line() { awk -v k="$1" 'index($0, k " ") == 1 { print substr($0, length(k) + 2); exit }' <<<"$output"; }

# ---- sched_setattr after a grant: drops and changes keep the flag ----------------------------

@test "sched_setattr to SCHED_OTHER, OTHER at nice 5, BATCH or IDLE after a grant: 0 and the thread leaves realtime, as without the shim" {
	local how grant
	for how in other nice batch idle; do
		run bounded 20 --noshim setattr-drop "$how"
		[ "$status" -eq 0 ]
		[ "$(line "call change")" = "rc=0 err=OK" ]
		for grant in setscheduler setattr; do
			run bounded 20 setattr-drop "$how" "$grant"
			echo "$how after $grant: $output"
			[ "$status" -eq 0 ]
			[ "$(line "call grant")" = "rc=0 err=OK" ]
			[ "$(line "call change")" = "rc=0 err=OK" ]
			case $how in
			other) [ "$(line "kernel after")" = "OTHER|RESET 0" ] ;;
			nice)
				[ "$(line "kernel after")" = "OTHER|RESET 0" ]
				[ "$(line "nice after")" = 5 ]
				;;
			batch) [ "$(line "kernel after")" = "BATCH|RESET 0" ] ;;
			idle) [ "$(line "kernel after")" = "IDLE|RESET 0" ] ;;
			esac
			# the program reads what it asked (the shim's flag hidden)
			[[ $(line "read after") != *RESET* ]]
		done
	done
}

@test "sched_setattr lowering a granted thread's priority: 0, RR 5 in the kernel" {
	run bounded 20 setattr-drop lower
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(line "call grant")" = "rc=0 err=OK" ]
	[ "$(line "call change")" = "rc=0 err=OK" ]
	[ "$(line "kernel after")" = "RR|RESET 5" ]
}

# ---- a seccomp sandbox ------------------------------------------------------------------------

@test "a seccomp filter that kills or traps sockets or executable mappings, then SCHED_FIFO: EPERM and exit 0, as without the shim (main thread, a thread, a forked child, a SIGSYS handler)" {
	local filter who
	for filter in kill-socket trap-socket kill-exec; do
		for who in main thread child handler; do
			run bounded 20 --noshim seccomp-sandbox "$filter" "$who"
			[ "$status" -eq 0 ]
			local without=$output
			run bounded 20 seccomp-sandbox "$filter" "$who"
			echo "$filter $who: status $status"$'\n'"$output"
			[ "$status" -eq 0 ]
			[ "$output" = "$without" ]
			[ "$(line "call fifo")" = "rc=-1 err=EPERM" ]
			[ "$(line sigsys)" = 0 ]
		done
	done
}

@test "a thread granted before a seccomp filter stays realtime and drops to SCHED_OTHER with 0" {
	run bounded 20 seccomp-sandbox kill-socket before
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(line "call fifo")" = "rc=0 err=OK" ]
	[ "$(line "kernel sandboxed")" = "RR|RESET 10" ]
	[ "$(line "call drop")" = "rc=0 err=OK" ]
	[ "$(line "kernel dropped")" = "OTHER|RESET 0" ]
}

# ---- a vfork child that sets signals before its exec ------------------------------------------

@test "a vfork or clone(CLONE_VM|CLONE_VFORK) child resetting SIGXCPU to SIG_DFL or unblocking every signal leaves the granted parent's disposition and mask as without the shim" {
	local how what
	for how in vfork clone; do
		for what in disposition mask; do
			run bounded 20 --noshim vfork-signals "$how" "$what"
			[ "$status" -eq 0 ]
			local without=${output#*$'\n'} # all but the request's own line
			run bounded 20 vfork-signals "$how" "$what"
			echo "$how $what: status $status"$'\n'"$output"
			[ "$status" -eq 0 ]
			[ "$(line "call fifo")" = "rc=0 err=OK" ]
			[ "${output#*$'\n'}" = "$without" ]
		done
	done
}

# ---- a supervisor that boosts its child process -----------------------------------------------

@test "a supervisor boosting its worker process (sched_setscheduler(child, SCHED_FIFO, 10)): EPERM, the worker computes its 1 s and exits 0, as without the shim; under rtrun too" {
	run bounded 30 --noshim supervisor
	[ "$status" -eq 0 ]
	local without=$output
	[ "$(line "call boost")" = "rc=-1 err=EPERM" ]
	[ "$(line "worker exit")" = 0 ]
	run bounded 30 supervisor
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "$without" ]
	# the command rtrun runs is a person's, its own children are not
	run timeout 30 "$TESTBED" run --dir "$TB_DIR" -- "$RTRUN" --timeout 10000 "$PROBES/supervisor"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "$without" ]
}

# ---- a file size limit of 0 --------------------------------------------------------------------

@test "under ulimit -f 0 a program granted realtime goes on (no SIGXFSZ from the shim's record, its -v lines or rtrun's), as it does refused without the shim" {
	local run_dir err
	run_dir=$(mktemp -d /tmp/rtshim-fsize.XXXXXX)
	chown "$TEST_USER" "$run_dir"
	# stderr a regular file, as a judge's log is
	err=$run_dir/stderr
	: >"$err"
	chown "$TEST_USER" "$err"
	run as_user sh -c 'e=$1; shift; ulimit -f 0; echo "thread 10" | "$@" 2>>"$e"' sh "$err" \
		env XDG_RUNTIME_DIR="$run_dir" "$PROBES/shim-script"
	echo "without the shim: $status $output"
	[ "$status" -eq 0 ]
	[[ $output == *"thread 10: rc=1 err=EPERM"*done* ]]
	run as_user sh -c 'e=$1; shift; ulimit -f 0; echo "thread 10" | "$@" 2>>"$e"' sh "$err" \
		env XDG_RUNTIME_DIR="$run_dir" "$RTRUN" -v "$PROBES/shim-script"
	echo "under rtrun -v: $status $output"
	local size
	size=$(stat -c %s "$err")
	rm -rf "$run_dir"
	[ "$status" -eq 0 ]
	[[ $output == *"thread 10: rc=0 err=OK"*"kernel=RR|RESET 10"*done* ]]
	# nothing could be written there: the limit held for the shim as for the program
	[ "$size" -eq 0 ]
}

# ---- what a refusal leaves behind ---------------------------------------------------------------

# leaves MODE: refused-leaves with and without the shim; $without and $output keep each run's
# lines after the request's own.
leaves() {
	run bounded 20 --noshim refused-leaves "$1"
	[ "$status" -eq 0 ]
	without=$(grep -v '^call \|^pid \|^rtshim' <<<"$output")
	run bounded 20 refused-leaves "$1"
	echo "$1 without the shim:"$'\n'"$without"$'\n'"with it: status $status"$'\n'"$output"
	[ "$status" -eq 0 ]
}

@test "refused by polkit: SIGXCPU's disposition (default or the program's handler) and a later sigprocmask blocking it are as without the shim; only the hard RLIMIT_RTTIME stays lowered" {
	denied=1
	tb_polkit deny
	local mode
	for mode in self handler; do
		leaves "$mode"
		# both runs said what the kernel has (an empty pair would compare equal)
		[[ $without == *"main sigxcpu caught="*"disposition "*"rttime -1 -1"* ]]
		[ "$(line "call fifo")" = "rc=-1 err=EPERM" ]
		# the kernel's SigCgt, SigBlk and the disposition read back: the program's own
		[ "$(grep -v '^rttime' <<<"$without")" = "$(grep -v '^call \|^pid \|^rtshim\|^rttime' <<<"$output")" ]
		[ "$(line rttime)" != "-1 -1" ] # rtkit's condition, set before it answered
		# the hard limit cannot be raised again without CAP_SYS_RESOURCE; the soft one is the
		# program's (unlimited) capped by it, not the runaway guard's lower share
		local soft hard
		read -r soft hard <<<"$(line rttime)"
		[[ $hard =~ ^[0-9]+$ ]]
		[ "$soft" = "$hard" ]
	done
}

@test "a thread that never got realtime blocks SIGXCPU with sigprocmask while another thread of the process is granted, as without the shim" {
	leaves worker
	[ "$(line "call fifo")" = "rc=0 err=OK" ]
	grep -qx 'main sigxcpu caught=0 blocked=1' <<<"$without"
	# blocked in the kernel, as without the shim; caught: the guard's handler, for the grant
	[ "$(line "main sigxcpu")" = "caught=1 blocked=1" ]
}
