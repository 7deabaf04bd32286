#!/usr/bin/env bats
# The configuration files (rtshim(7) FILES), the switch RTSHIM_DISABLE, unknown RTSHIM_*
# variables and SCHED_DEADLINE, against the real stack; outcomes read from the kernel (the
# probes' "kernel" lines are raw system calls).  rtkit's MaxRealtimePriority is 20.

bats_require_minimum_version 1.5.0
load common

setup_file() {
	tb_start -- --actions-per-burst-max=1000 --threads-per-user-max=1000 \
		--processes-per-user-max=1000
}
teardown_file() { tb_stop; }

# A private XDG_CONFIG_HOME the test user can read; its rtshim/rtshim.conf holds the lines given.
setup() {
	CONF_HOME=$(mktemp -d /tmp/rtshim-conf.XXXXXX)
	chmod 755 "$CONF_HOME"
	mkdir -m 755 "$CONF_HOME/rtshim"
}
teardown() { rm -rf "$CONF_HOME"; }
user_conf() { printf '%s\n' "$@" >"$CONF_HOME/rtshim/rtshim.conf"; chmod 644 "$CONF_HOME/rtshim/rtshim.conf"; }
as_conf_user() { as_user env XDG_CONFIG_HOME="$CONF_HOME" "$@"; }

@test "RTSHIM_DISABLE=1 in the user's file: the program gets EPERM and stays SCHED_OTHER as without the shim, and rtrun adds no LD_PRELOAD" {
	run -0 as_user "$PROBES/syscall-setattr" 10
	local without=$output
	[[ $without == *$'call setattr rc=-1 err=EPERM\nkernel main OTHER 0\n'* ]]
	user_conf '# rtshim off for good' 'RTSHIM_DISABLE=1'
	run -0 as_conf_user env LD_PRELOAD="$SHIM_PRELOAD" "$PROBES/syscall-setattr" 10
	[ "$output" = "$without" ]
	run -0 as_conf_user "$RTRUN" "$PROBES/syscall-setattr" 10
	[ "$output" = "$without" ]
	run -0 as_conf_user env -u LD_PRELOAD "$RTRUN" sh -c 'echo "[${LD_PRELOAD:-}]"'
	[ "$output" = "[]" ]
	# the same switch in the environment, with no file
	run -0 as_user env RTSHIM_DISABLE=1 LD_PRELOAD="$SHIM_PRELOAD" "$PROBES/syscall-setattr" 10
	[ "$output" = "$without" ]
}

@test "the environment wins over the user's file: RTSHIM_DISABLE=0 turns the file's switch back on, RTSHIM_PRIO_MAP=clamp beats its scale" {
	user_conf 'RTSHIM_DISABLE = 1'
	run -0 as_conf_user env RTSHIM_DISABLE=0 LD_PRELOAD="$SHIM_PRELOAD" "$PROBES/syscall-setattr" 10
	[[ $output == *$'call setattr rc=0 err=OK\nkernel main RR|RESET 10\n'* ]]
	# scale maps 50 onto 1..20 as 11; the clamp gives 20
	user_conf 'RTSHIM_PRIO_MAP="scale"'
	run -0 as_conf_user env LD_PRELOAD="$SHIM_PRELOAD" "$PROBES/syscall-setattr" 50
	[[ $output == *$'kernel main RR|RESET 11\n'* ]]
	run -0 as_conf_user "$RTRUN" "$PROBES/syscall-setattr" 50
	[[ $output == *$'kernel main RR|RESET 11\n'* ]]
	run -0 as_conf_user env RTSHIM_PRIO_MAP=clamp LD_PRELOAD="$SHIM_PRELOAD" "$PROBES/syscall-setattr" 50
	[[ $output == *$'kernel main RR|RESET 20\n'* ]]
	run -0 as_conf_user "$RTRUN" --map clamp "$PROBES/syscall-setattr" 50
	[[ $output == *$'kernel main RR|RESET 20\n'* ]]
}

@test "a bad value and an unknown name in the user's file are each warned once, naming the file, and the default is used" {
	local conf="$CONF_HOME/rtshim/rtshim.conf"
	user_conf 'RTSHIM_PRIO_MAP=sclae' 'RTSHIM_MAP=scale'
	run -0 --separate-stderr as_conf_user env LD_PRELOAD="$SHIM_PRELOAD" "$PROBES/syscall-setattr" 50
	[[ $output == *$'kernel main RR|RESET 20\n'* ]]
	# shellcheck disable=SC2154 # stderr: set by bats' run --separate-stderr
	[ "$(grep -c "RTSHIM_PRIO_MAP=\"sclae\" in $conf is not valid (expected clamp, scale or offset): using the default clamp" <<<"$stderr")" = 1 ]
	[ "$(grep -c "$conf:2: unknown setting RTSHIM_MAP (did you mean RTSHIM_PRIO_MAP?): ignored" <<<"$stderr")" = 1 ]
	# rtrun says them once for the program and everything it runs: the shim says nothing more
	run -0 --separate-stderr as_conf_user "$RTRUN" "$PROBES/syscall-setattr" 50
	[[ $output == *$'kernel main RR|RESET 20\n'* ]]
	[ "$(grep -c 'sclae' <<<"$stderr")" = 1 ]
	[ "$(grep -c "$conf:2: unknown setting RTSHIM_MAP (did you mean RTSHIM_PRIO_MAP?)" <<<"$stderr")" = 1 ]
	[ "$(grep -c '^rtshim\[' <<<"$stderr")" = 0 ]
}

@test "an unknown RTSHIM_* variable is warned once with the name it probably meant, by rtrun and by the shim" {
	run -0 --separate-stderr as_user env RTSHIM_MAP=scale "$RTRUN" "$PROBES/syscall-setattr" 50
	[[ $output == *$'kernel main RR|RESET 20\n'* ]]
	[ "$stderr" = "rtrun: warning: RTSHIM_MAP is not a variable of rtshim's (did you mean RTSHIM_PRIO_MAP?): ignored" ]
	run -0 --separate-stderr as_user env RTSHIM_TIMEOUT=900 LD_PRELOAD="$SHIM_PRELOAD" "$PROBES/syscall-setattr" 50
	[ "$(grep -c "RTSHIM_TIMEOUT is not a variable of rtshim's (did you mean RTSHIM_TIMEOUT_MS?): ignored" <<<"$stderr")" = 1 ]
}

@test "RTSHIM_TOP=abc with --map offset: warned about RTSHIM_TOP and --top, never about RTSHIM_PRIO_MAP, which the user did not set; --check says it after its header" {
	run -0 --separate-stderr as_user env RTSHIM_TOP=abc "$RTRUN" --map offset true
	[[ $stderr == *'RTSHIM_TOP="abc" is not valid'* ]]
	[[ $stderr == *'--map offset needs --top N'* ]]
	[[ $stderr != *RTSHIM_PRIO_MAP* ]]
	run as_user env RTSHIM_TOP=abc "$RTRUN" --check
	[[ ${lines[0]} == "rtrun --check for user "* ]]
	local n
	n=$(grep -n 'environment *RTSHIM_TOP="abc" is not valid' <<<"$output" | cut -d: -f1)
	[ "$n" -gt 1 ]
}

@test "sched_setattr(SCHED_DEADLINE): refused exactly as without the shim, and said once at -v" {
	run -0 --separate-stderr as_user "$PROBES/syscall-setattr" deadline
	local without=$output
	[[ $without == *$'call setattr rc=-1 err=EPERM\ncall setattr rc=-1 err=EPERM\nkernel main OTHER 0'* ]]
	run -0 --separate-stderr as_user "$RTRUN" -v "$PROBES/syscall-setattr" deadline
	[ "$output" = "$without" ]
	[ "$(grep -c 'SCHED_DEADLINE.*rtkit has no deadline policy; passed to the kernel as is' <<<"$stderr")" = 1 ]
}
