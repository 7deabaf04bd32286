#!/usr/bin/env bats
# What a realtime request costs the program around it, with the shim against without it, read
# from the kernel: the address space of threads that never called malloc (a client that
# allocated on the requesting thread gave each one a malloc arena of 64 MiB), mlockall under
# Debian's 8 MiB memlock, descriptors under an exact RLIMIT_NOFILE or with 0-2 closed, and
# fork handlers that ask for realtime.  tests/probes/guest-costs as the unprivileged test user
# against the real stack.

load common
bats_require_minimum_version 1.5.0

setup_file() {
	tb_start -- --actions-per-burst-max=1000000 --threads-per-user-max=1000 \
		--processes-per-user-max=1000
}
teardown_file() { tb_stop; }

# costs [--noshim] ARGS...: guest-costs ARGS as the test user (at most 120 s), with the shim
# (RTSHIM_TIMEOUT_MS=10000: these tests are not about the timeout) unless --noshim; stderr kept
# apart in $BATS_TEST_TMPDIR/err.
costs() {
	local -a env=(LD_PRELOAD="$SHIM_PRELOAD" RTSHIM_TIMEOUT_MS=10000)
	[[ $1 == --noshim ]] && { env=(); shift; }
	timeout 120 "$TESTBED" run --dir "$TB_DIR" -- env "${env[@]}" \
		prlimit --memlock=8388608:8388608 "$PROBES/guest-costs" "$@" 2>"$BATS_TEST_TMPDIR/err"
}

# value KEY: the first number after "KEY " in $output.
value() { awk -v k="$1" 'index($0, k " ") == 1 { print $(split(k, a, " ") + 1); exit }' <<<"$output"; }

# growth N: VmSize after N never-malloc threads asked, minus before, in KiB (from $output).
growth() { echo $(($(value "vm after") - $(value "vm before"))); }

@test "threads that never called malloc are granted: the address space grows as without the shim (1 thread, 16 threads)" {
	local n plain shimmed
	for n in 1 16; do
		run costs --noshim vm "$n" 10
		[ "$status" -eq 0 ]
		plain=$(growth)
		[ "$(value rt)" = 0 ]
		run costs vm "$n" 10
		echo "$output"
		[ "$status" -eq 0 ]
		[ "$(value rt)" = "$n" ] # every one granted
		shimmed=$(growth)
		echo "$n thread(s): VmSize grew $plain KiB without the shim, $shimmed KiB with it"
		((shimmed - plain <= 512))
	done
}

@test "a 64 KiB-stack worker that never called malloc is granted, then mlockall under an 8 MiB memlock succeeds as without the shim" {
	run costs --noshim mlock 10
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "worker other" ]
	[ "${lines[1]}" = "mlockall rc=0 err=OK" ]
	run costs mlock 10
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "worker realtime" ]
	[ "${lines[1]}" = "mlockall rc=0 err=OK" ]
}

@test "RLIMIT_NOFILE exactly what the program needs: its opens after a request get the descriptors they get without the shim" {
	run costs --noshim nofile 10
	[ "$status" -eq 0 ]
	local plain=${lines[1]}
	[ "${lines[0]}" = "request EPERM" ]
	[[ $plain == "opens "[0-9]*" "[0-9]* ]]
	run costs nofile 10
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "request OK" ]
	[ "${lines[1]}" = "$plain" ]
}

@test "a daemon that closed 0-2 asks, then opens /dev/null three times: 0, 1, 2 and read(0) is EOF, as without the shim" {
	run costs --noshim daemon 10
	[ "$status" -eq 0 ]
	[ "$output" = $'request EPERM\nopens 0 1 2 read 0 err=OK' ]
	run costs daemon 10
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = $'request OK\nopens 0 1 2 read 0 err=OK' ]
}

@test "fork handlers that drop realtime in prepare and ask again in parent and child: forks bounded by the unshimmed time and one grant's, no 'no answer'" {
	run costs --noshim atfork 3 10
	[ "$status" -eq 0 ]
	local plain grant bound
	plain=$(awk '/^forks /{ print $4; exit }' <<<"$output")
	run costs atfork 3 10
	echo "$output"
	cat "$BATS_TEST_TMPDIR/err"
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "grant_us "*" (OK)" ]]
	grant=$(value grant_us)
	local shimmed
	shimmed=$(awk '/^forks /{ print $4; exit }' <<<"$output")
	# a fork now carries two requests (parent and child handlers), each one round trip
	bound=$((4 * plain + 10 * grant + 100000))
	echo "longest fork: $plain us without the shim, $shimmed us with it (bound $bound us; a grant $grant us)"
	((shimmed <= bound))
	run ! grep -q 'no answer' "$BATS_TEST_TMPDIR/err"
}
