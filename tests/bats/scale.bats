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

# many_ask [--noshim] ARGS...: the probe as the test user; ELAPSED (ms) and OK (granted) from
# its summary line
many_ask() {
	local -a env=(RTSHIM_TIMEOUT_MS=10000 "LD_PRELOAD=$SHIM_PRELOAD")
	[[ $1 == --noshim ]] && { env=(); shift; }
	output=$(timeout 120 "$TESTBED" run --dir "$TB_DIR" -- env "${env[@]}" "$PROBES/many-ask" "$@" 2>&1)
	local summary
	summary=$(grep '^asked ' <<<"$output")
	echo "${env[*]:+shim: }${env[*]:-plain: }$summary"
	[[ -n $summary ]]
	ELAPSED=$(awk '{ print $NF }' <<<"$summary")
	OK=$(awk '{ print $4 }' <<<"$summary")
}

# best_of RUNS [--noshim] ARGS...: BEST, the shortest ELAPSED of RUNS runs; every request refused
best_of() {
	local runs=$1 i
	shift
	BEST=
	for ((i = 0; i < runs; i++)); do
		many_ask "$@"
		[ "$OK" = 0 ]
		if [[ -z $BEST ]] || ((ELAPSED < BEST)); then BEST=$ELAPSED; fi
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
