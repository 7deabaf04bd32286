#!/usr/bin/env bats
# util-linux chrt (Debian's util-linux 2.38.1-5+deb12u3), unmodified, as the unprivileged test user
# against the real rtkit stack with rtkit's DEFAULT limits.  chrt makes its request with
# syscall(SYS_sched_setscheduler, ...), not through libc's sched_setscheduler (musl's is not the
# system call), then execs the command: the command keeps the policy rtkit granted, and
# SCHED_RESET_ON_FORK gives the command's children SCHED_OTHER.

load ../bats/common
load apps

setup_file() { tb_start; }
teardown_file() { tb_stop; }
setup() { apps_setup; }
teardown() { apps_teardown; }

# run_chrt [--rtrun] CHRT-ARGS...: chrt CHRT-ARGS CMD (LAUNCHED, apps.bash) in the background; sets SH (the
# shell chrt became) and CHILD (the sleep it started).
run_chrt() {
	local -a pre=()
	if [[ $1 == --rtrun ]]; then pre=(--rtrun); shift; fi
	spawn_launcher "${pre[@]}" "$APP_TMP/chrt.log" chrt "$@" "${LAUNCHED[@]}"
}

@test "chrt -f 10 CMD without rtrun: exits 1 with 'failed to set pid 0's policy: Operation not permitted'" {
	run as_user timeout 30 chrt -f 10 true
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"failed to set pid 0's policy: Operation not permitted"* ]]
}

@test "rtrun chrt -f 10 CMD: CMD runs SCHED_RR|SCHED_RESET_ON_FORK 10 through rtkit; the child it forks is SCHED_OTHER" {
	run_chrt --rtrun -f 10
	[ "$(sched_of "$SH")" = "SCHED_RR|SCHED_RESET_ON_FORK 10" ]
	[ "$(sched_of "$CHILD")" = "SCHED_OTHER 0" ]
	# rtkit's condition, inherited through exec: a bounded hard RLIMIT_RTTIME
	local h
	h=$(hard_rttime "$SH")
	[[ $h =~ ^[0-9]+$ ]]
	((h > 0 && h <= 200000))
	log_lacks "$APP_TMP/chrt.log" "failed to set|Operation not permitted"
}

@test "rtrun chrt -r 5 CMD: CMD runs SCHED_RR|SCHED_RESET_ON_FORK 5; the child it forks is SCHED_OTHER" {
	run_chrt --rtrun -r 5
	[ "$(sched_of "$SH")" = "SCHED_RR|SCHED_RESET_ON_FORK 5" ]
	[ "$(sched_of "$CHILD")" = "SCHED_OTHER 0" ]
	log_lacks "$APP_TMP/chrt.log" "failed to set|Operation not permitted"
}

@test "rtrun chrt -f 50 CMD: above rtkit's maximum, CMD gets the maximum (clamped)" {
	run_chrt --rtrun -f 50
	[ "$(sched_of "$SH")" = "SCHED_RR|SCHED_RESET_ON_FORK $RTKIT_MAX" ]
	[ "$(sched_of "$CHILD")" = "SCHED_OTHER 0" ]
}

@test "rtrun chrt -v -f 99 CMD: chrt reads back the SCHED_FIFO 99 it set, as root's chrt does; CMD runs rtkit's RR 20" {
	# stdbuf: chrt's verbose lines are in its stdout buffer when it execs CMD
	run as_root timeout 30 stdbuf -oL chrt -v -f 99 true
	[[ $output == *"new scheduling policy: SCHED_FIFO"*"new scheduling priority: 99"* ]]
	run as_user timeout 30 "$RTRUN" --timeout 10000 stdbuf -oL chrt -v -f 99 sh -c 'chrt -p $$'
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"new scheduling policy: SCHED_FIFO"$'\n'*"new scheduling priority: 99"* ]]
	# the command is a new program: it reads what the kernel has
	[[ $output == *"current scheduling policy: SCHED_RR|SCHED_RESET_ON_FORK"$'\n'*"current scheduling priority: $RTKIT_MAX"* ]]
}

@test "rtrun chrt -v -p -f 10 PID (a running process of the user): RR 10 through rtkit, and chrt reads back what the kernel has" {
	spawn "$APP_TMP/target.log" sleep 600
	local target
	target=$(find_prog "$SPAWNED" sleep)
	run as_user timeout 30 chrt -p -f 10 "$target"
	[ "$status" -eq 1 ]
	[[ $output == *"failed to set pid $target's policy: Operation not permitted"* ]]
	[ "$(sched_of "$target")" = "SCHED_OTHER 0" ]
	run as_user timeout 30 "$RTRUN" chrt -v -p -f 10 "$target"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(sched_of "$target")" = "SCHED_RR|SCHED_RESET_ON_FORK 10" ]
	# about another process chrt prints the kernel's answer (the shim records only its own
	# process's threads): RR, not the FIFO it asked for
	[[ $output == *"pid $target's new scheduling policy: SCHED_RR|SCHED_RESET_ON_FORK"* ]]
	[[ $output == *"pid $target's new scheduling priority: 10"* ]]
	local h
	h=$(hard_rttime "$target")
	[[ $h =~ ^[0-9]+$ ]]
	((h > 0 && h <= 200000))
}
