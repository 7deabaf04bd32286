#!/usr/bin/env bats
# nice (Debian's coreutils 9.1-1), unmodified, as the unprivileged test user against the real rtkit
# stack with rtkit's DEFAULT limits (MinNiceLevel -15).  `nice -n N CMD` calls libc's nice(N),
# then execs CMD whatever the answer.  rtkit's MakeThreadHighPriority sets the nice level with
# SCHED_RESET_ON_FORK: CMD runs at the lower nice level, and the children CMD forks start at 0
# (as root's `nice -n -5` they would inherit -5).

load ../bats/common
load apps

setup_file() { tb_start; }
teardown_file() { tb_stop; }
setup() { apps_setup; }
teardown() { apps_teardown; }

# run_nice [--rtrun] NICE-ARGS...: nice NICE-ARGS CMD in the background; sets SH (the shell nice
# became) and CHILD (the sleep it started).
run_nice() {
	local -a pre=()
	if [[ $1 == --rtrun ]]; then pre=(--rtrun); shift; fi
	spawn_launcher "${pre[@]}" "$APP_TMP/nice.log" nice "$@" "${LAUNCHED[@]}"
}

@test "nice -n -5 CMD without rtrun: 'nice: cannot set niceness: Permission denied', CMD runs at nice 0" {
	run_nice -n -5
	cat "$APP_TMP/nice.log"
	log_has "$APP_TMP/nice.log" '^nice: cannot set niceness: Permission denied$'
	[ "$(nice_of "$SH" "$SH")" -eq 0 ]
	[ "$(sched_of "$SH")" = "SCHED_OTHER 0" ]
}

@test "rtrun nice -n -5 CMD: CMD runs at nice -5 with SCHED_RESET_ON_FORK (rtkit's high priority); the child it forks at nice 0; no message" {
	run_nice --rtrun -n -5
	[ "$(nice_of "$SH" "$SH")" -eq -5 ]
	[ "$(sched_of "$SH")" = "SCHED_OTHER|SCHED_RESET_ON_FORK 0" ]
	[ "$(nice_of "$CHILD" "$CHILD")" -eq 0 ]
	[ "$(sched_of "$CHILD")" = "SCHED_OTHER 0" ]
	[ ! -s "$APP_TMP/nice.log" ]
}

@test "rtrun nice -n -20 CMD: below rtkit's MinNiceLevel, CMD gets the minimum (-15), no message" {
	run_nice --rtrun -n -20
	local min
	min=$(rtkit_property MinNiceLevel)
	[ "$(nice_of "$SH" "$SH")" -eq "$min" ]
	[ ! -s "$APP_TMP/nice.log" ]
}

@test "nice -n 5 CMD without rtrun (a higher nice level, allowed to anyone): nice 5, the child too" {
	run_nice -n 5
	[ "$(nice_of "$SH" "$SH")" -eq 5 ]
	[ "$(sched_of "$SH")" = "SCHED_OTHER 0" ]
	[ "$(nice_of "$CHILD" "$CHILD")" -eq 5 ]
}

@test "rtrun nice -n 5 CMD: nice 5 without SCHED_RESET_ON_FORK, the child too, as without rtrun" {
	run_nice --rtrun -n 5
	[ "$(nice_of "$SH" "$SH")" -eq 5 ]
	[ "$(sched_of "$SH")" = "SCHED_OTHER 0" ]
	[ "$(nice_of "$CHILD" "$CHILD")" -eq 5 ]
	[ ! -s "$APP_TMP/nice.log" ]
}
