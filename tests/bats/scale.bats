#!/usr/bin/env bats
# Many requests while rtkit refuses every one: once rtkit has said no for a reason that lasts (its
# per-user limits), the next requests cost about what they cost without the shim.  Each run of
# tests/probes/many-ask is timed by the probe itself (raw clock_gettime) and compared with the
# same run without the shim, measured in the same test: the best of a few runs each side.

load common

# One request per hour per user: the first request of the suite spends it, rtkit refuses (EBUSY)
# every later one at once.
setup_file() {
	tb_start -- --actions-burst-sec=3600 --actions-per-burst-max=1 --threads-per-user-max=1
	as_user env LD_PRELOAD="$SHIM_PRELOAD" RTSHIM_TIMEOUT_MS=10000 "$PROBES/many-ask" repeat 2
}
teardown_file() { tb_stop; }

# many_ask [--noshim] ARGS...: the probe as the test user; ELAPSED (ms), OK (granted) and
# VMPEAK (kB) from its summary line
many_ask() {
	local -a env=(RTSHIM_TIMEOUT_MS=10000 "LD_PRELOAD=$SHIM_PRELOAD")
	[[ $1 == --noshim ]] && { env=(); shift; }
	output=$(timeout 120 "$TESTBED" run --dir "$TB_DIR" -- env "${env[@]}" "$PROBES/many-ask" "$@" 2>&1)
	local summary
	summary=$(grep '^asked ' <<<"$output")
	echo "${env[*]:+shim: }${env[*]:-plain: }$summary"
	[[ -n $summary ]]
	ELAPSED=$(awk '{ for (i = 1; i < NF; i++) if ($i == "elapsed_ms") print $(i + 1) }' <<<"$summary")
	VMPEAK=$(awk '{ for (i = 1; i < NF; i++) if ($i == "vmpeak_kb") print $(i + 1) }' <<<"$summary")
	OK=$(awk '{ print $4 }' <<<"$summary")
	[[ $ELAPSED =~ ^[0-9]+$ && $VMPEAK =~ ^[0-9]+$ ]]
}

# best_of RUNS [--noshim] ARGS...: BEST, the shortest ELAPSED of RUNS runs, and PEAK, the largest
# VMPEAK; every request refused
best_of() {
	local runs=$1 i
	shift
	BEST='' PEAK=0
	for ((i = 0; i < runs; i++)); do
		many_ask "$@"
		[ "$OK" = 0 ]
		if [[ -z $BEST ]] || ((ELAPSED < BEST)); then BEST=$ELAPSED; fi
		if ((VMPEAK > PEAK)); then PEAK=$VMPEAK; fi
	done
}

@test "rtkit refuses every request: 5000 requests in a row cost at most three times what they cost without the shim" {
	best_of 3 --noshim warm repeat 5000
	local plain=$BEST
	best_of 3 warm repeat 5000
	echo "5000 refused requests: $plain ms without the shim, $BEST ms with it"
	((BEST <= 3 * plain + 100))
}

@test "rtkit refuses every request: 2000 threads that ask at once take at most three times as long as without the shim" {
	best_of 2 --noshim threads 2000
	local plain=$BEST
	best_of 2 threads 2000
	echo "2000 threads: $plain ms without the shim, $BEST ms with it"
	((BEST <= 3 * plain + 1500))
}

# Last in the file: polkit's refusal stays for the rest of the stack's life (teardown_file stops
# it).  polkit answers before rtkit's burst limit, so every request is refused by polkit, and
# with the default nice fallback the nice level is asked and refused too: the threads that wait
# at the gate hear both refusals from the memo, on their own stacks.
@test "polkit refuses every request: 2000 threads that ask at once map no stack of the shim's each (VmPeak at most 1.2 times without the shim) and take at most three times as long" {
	tb_polkit deny
	best_of 2 --noshim threads 2000
	local plain=$BEST plain_peak=$PEAK
	best_of 2 threads 2000
	echo "2000 threads, polkit refusing: $plain ms and VmPeak $plain_peak kB without the shim, $BEST ms and $PEAK kB with it"
	((PEAK * 10 <= plain_peak * 12))
	((BEST <= 3 * plain + 1500))
}
