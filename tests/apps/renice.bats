#!/usr/bin/env bats
# renice (Debian's util-linux 2.38.1-5+deb12u3), unmodified, as the unprivileged test user against
# the real rtkit stack with rtkit's DEFAULT limits (MinNiceLevel -15): setpriority(PRIO_PROCESS,
# PID, N) on another running process of the user, then getpriority to print the new value.
# PRIO_PGRP and PRIO_USER (renice -g, -u) name no thread rtkit could be asked about: the shim
# leaves them to the kernel, the same "Permission denied" as without it.

load ../bats/common
load apps

setup_file() { tb_start; }
teardown_file() { tb_stop; }
setup() {
	apps_setup
	spawn "$APP_TMP/target.log" sleep 600
	TARGET=$(find_prog "$SPAWNED" sleep)
}
teardown() { apps_teardown; }

@test "renice -n -5 -p PID without rtrun: exit 1, 'failed to set priority for PID (process ID): Permission denied', PID stays at nice 0" {
	run as_user timeout 30 renice -n -5 -p "$TARGET"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$output" = "renice: failed to set priority for $TARGET (process ID): Permission denied" ]
	[ "$(nice_of "$TARGET" "$TARGET")" -eq 0 ]
}

@test "rtrun renice -n -5 -p PID: PID at nice -5 through rtkit, and renice prints 'old priority 0, new priority -5' read back from the kernel" {
	run as_user timeout 30 "$RTRUN" renice -n -5 -p "$TARGET"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "$TARGET (process ID) old priority 0, new priority -5" ]
	[ "$(nice_of "$TARGET" "$TARGET")" -eq -5 ]
	[ "$(sched_of "$TARGET")" = "SCHED_OTHER|SCHED_RESET_ON_FORK 0" ]
}

@test "rtrun renice -n -20 -p PID: below rtkit's MinNiceLevel, the minimum (-15), and renice prints it" {
	local min
	min=$(rtkit_property MinNiceLevel)
	run as_user timeout 30 "$RTRUN" renice -n -20 -p "$TARGET"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "$TARGET (process ID) old priority 0, new priority $min" ]
	[ "$(nice_of "$TARGET" "$TARGET")" -eq "$min" ]
}

@test "renice -n -5 -u USER and -g PGID: the same 'Permission denied' and exit 1 with rtrun as without" {
	local pgid plain
	pgid=$(ps -o pgid= -p "$TARGET" | tr -d ' ')
	for args in "-u $TEST_USER" "-g $pgid"; do
		run as_user timeout 30 renice -n -5 $args
		plain="$status $output"
		run as_user timeout 30 "$RTRUN" renice -n -5 $args
		echo "plain: $plain"
		echo "rtrun: $status $output"
		[ "$status $output" = "$plain" ]
		[ "$status" -eq 1 ]
		[[ $output == *"Permission denied"* ]]
	done
	[ "$(nice_of "$TARGET" "$TARGET")" -eq 0 ]
}
