#!/usr/bin/env bats
# schedtool (Debian's schedtool 1.3.0-4), unmodified, as the unprivileged test user against the real
# rtkit stack with rtkit's DEFAULT limits.  It names the process by its PID, never 0:
# sched_setscheduler(getpid(), ...) before `-e` execs the command, sched_setscheduler(PID, ...) on
# another process, setpriority(PRIO_PROCESS, PID, N) for -n.  Going back with -N (SCHED_NORMAL)
# from an rtkit grant needs SCHED_RESET_ON_FORK kept: the kernel refuses a user who clears it.

load ../bats/common
load apps

setup_file() { tb_start; }
teardown_file() { tb_stop; }
setup() { apps_setup; }
teardown() { apps_teardown; }

# run_schedtool [--rtrun] ARGS...: schedtool ARGS -e CMD (LAUNCHED, apps.bash) in the background; sets SH (the shell
# schedtool became) and CHILD (the sleep it started).
run_schedtool() {
	local -a pre=()
	if [[ $1 == --rtrun ]]; then pre=(--rtrun); shift; fi
	spawn_launcher "${pre[@]}" "$APP_TMP/schedtool.log" schedtool "$@" -e "${LAUNCHED[@]}"
}

@test "schedtool -R -p 10 -e CMD without rtrun: 'ERROR: could not set PID … to R: SCHED_RR - Operation not permitted', CMD does not run" {
	run as_user timeout 30 schedtool -R -p 10 -e true
	echo "$output"
	[ "$status" -ne 0 ]
	[[ $output == *"to R: SCHED_RR - Operation not permitted"* ]]
}

@test "rtrun schedtool -R -p 10 -e CMD: CMD runs SCHED_RR|SCHED_RESET_ON_FORK 10, the child it forks SCHED_OTHER" {
	run_schedtool --rtrun -R -p 10
	[ "$(sched_of "$SH")" = "SCHED_RR|SCHED_RESET_ON_FORK 10" ]
	[ "$(sched_of "$CHILD")" = "SCHED_OTHER 0" ]
	log_lacks "$APP_TMP/schedtool.log" "ERROR"
}

@test "rtrun schedtool -F -p 50 -e CMD: FIFO above rtkit's maximum, CMD runs RR at the maximum" {
	run_schedtool --rtrun -F -p 50
	[ "$(sched_of "$SH")" = "SCHED_RR|SCHED_RESET_ON_FORK $RTKIT_MAX" ]
	log_lacks "$APP_TMP/schedtool.log" "ERROR"
}

@test "rtrun schedtool -n -5 -e CMD: CMD at nice -5; without rtrun 'could not set PID … to nice -5 - Permission denied'" {
	run as_user timeout 30 schedtool -n -5 -e true
	echo "$output"
	[ "$status" -ne 0 ]
	[[ $output == *"to nice -5 - Permission denied"* ]]
	run_schedtool --rtrun -n -5
	[ "$(nice_of "$SH" "$SH")" -eq -5 ]
	log_lacks "$APP_TMP/schedtool.log" "ERROR"
}

@test "schedtool -F -p 10 PID, then -N PID: plain both refused; under rtrun RR 10 through rtkit, then back to SCHED_OTHER (SCHED_RESET_ON_FORK kept)" {
	spawn "$APP_TMP/target.log" sleep 600
	local target
	target=$(find_prog "$SPAWNED" sleep)
	run as_user timeout 30 schedtool -F -p 10 "$target"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ $output == *"could not set PID $target to F: SCHED_FIFO - Operation not permitted"* ]]
	[ "$(sched_of "$target")" = "SCHED_OTHER 0" ]
	run as_user timeout 30 "$RTRUN" schedtool -F -p 10 "$target"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(sched_of "$target")" = "SCHED_RR|SCHED_RESET_ON_FORK 10" ]
	# plain schedtool cannot take it back: the kernel refuses a user who clears SCHED_RESET_ON_FORK
	run as_user timeout 30 schedtool -N "$target"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ $output == *"to N: SCHED_NORMAL - Operation not permitted"* ]]
	[ "$(sched_of "$target")" = "SCHED_RR|SCHED_RESET_ON_FORK 10" ]
	run as_user timeout 30 "$RTRUN" schedtool -N "$target"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(sched_of "$target")" = "SCHED_OTHER|SCHED_RESET_ON_FORK 0" ]
}
