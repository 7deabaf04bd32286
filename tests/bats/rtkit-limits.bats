#!/usr/bin/env bats
# rtkit's per-user limits, named: a refusal for one ("Device or resource busy", the same for
# all three) says which limit, which processes hold it and which rtkit-daemon option raises it.
# rtkit here allows 2 processes per user.  A user of this suite's own, so that no other suite's
# realtime processes count.

bats_require_minimum_version 1.5.0
export RTSHIM_TEST_USER=rtshim-limits
load common

setup_file() {
	tb_start -- --processes-per-user-max=2 --actions-per-burst-max=1000 --threads-per-user-max=1000
}
teardown_file() { tb_stop; }

setup() {
	HOLD_DIR=$(mktemp -d /tmp/rtshim-limits.XXXXXX)
	chmod 777 "$HOLD_DIR"
	HOLDERS=()
}
teardown() {
	local p
	for p in "${HOLDERS[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$HOLD_DIR"
}

# hold NAME: a process of the test user whose main thread rtkit made realtime (rtrun -p 5), which
# then sleeps; waits until the kernel shows it realtime.  Its PID goes into HOLDERS.
hold() {
	as_user "$RTRUN" -p 5 sh -c "echo \$\$ >$HOLD_DIR/$1.new && mv $HOLD_DIR/$1.new $HOLD_DIR/$1 && exec sleep 300" \
		>/dev/null 2>&1 &
	wait_for_file "$HOLD_DIR/$1" 20
	local pid i
	pid=$(cat "$HOLD_DIR/$1")
	HOLDERS+=("$pid")
	for ((i = 0; i < 400; i++)); do
		[[ $(sched_of "$pid") == "SCHED_RR|SCHED_RESET_ON_FORK 5" ]] && return 0
		sleep 0.05
	done
	echo "process $pid did not become realtime: $(sched_of "$pid")" >&2
	return 1
}

@test "rtkit's process limit reached: the third program's warning names that limit, the two processes that hold it and --processes-per-user-max" {
	hold one
	hold two
	run -0 --separate-stderr as_user "$RTRUN" "$PROBES/syscall-setattr" 10
	[[ $output == *$'call setattr rc=-1 err=EPERM\nkernel main OTHER 0\n'* ]]
	# shellcheck disable=SC2154 # stderr: set by bats' run --separate-stderr
	[[ $stderr == *"rtkit's limit of 2 processes per user with realtime threads is reached: held by "* ]]
	[[ $stderr == *"${HOLDERS[0]} sleep"* ]]
	[[ $stderr == *"${HOLDERS[1]} sleep"* ]]
	[[ $stderr == *"rtkit-daemon --processes-per-user-max=N raises it"* ]]
}

@test "rtkit's process limit reached: rtrun -p names it with its holders, and rtrun --check lists the limits and what the user's processes hold" {
	hold one
	hold two
	run -0 --separate-stderr as_user "$RTRUN" -p 5 true
	[[ $stderr == *"cannot make the main thread realtime: rtkit's limit of 2 processes per user with realtime threads is reached: held by "* ]]
	[[ $stderr == *"${HOLDERS[0]} sleep"* ]]
	[[ $stderr == *"${HOLDERS[1]} sleep"* ]]
	run -1 as_user "$RTRUN" --check
	local limits
	limits=$(grep '^  rtkit limits ' <<<"$output")
	local burst_sec=20 # rtkit's default, not given to this daemon
	[[ $limits == *"2 processes and 1000 threads per user, 1000 requests per $burst_sec s (its command line); yours hold 2 and 2 now: "* ]]
	[[ $limits == *"${HOLDERS[0]} sleep"* ]]
	[[ $limits == *"${HOLDERS[1]} sleep"* ]]
	[[ $limits == *"rtkit-daemon --processes-per-user-max=N"* ]]
	grep -q "^  rtkit grant *refused: rtkit's limit of 2 processes per user with realtime threads is reached" <<<"$output"
}
