#!/usr/bin/env bats
# `make demo` (scripts/demo) as the README's quick start runs it: as root, with a private rtkit
# stack, jackd plain and under rtrun.  What a user reads: the threads' table from the kernel,
# what jackd asked for and got, rtkit's grants explained, the benchmark's figures labelled as
# such; --help prints help and starts nothing.

bats_require_minimum_version 1.5.0
load common

@test "scripts/demo --help prints its help and starts nothing; an unknown argument is a usage error" {
	run -0 "$RTSHIM_ROOT/scripts/demo" --help
	[ "${lines[0]}" = "Usage: scripts/demo [-h|--help]      (or: make demo, as root)" ]
	[[ $output == *"what it buys, as measured by the last \`make bench\`"* ]]
	run -0 "$RTSHIM_ROOT/scripts/demo" -h
	[ "${lines[0]}" = "Usage: scripts/demo [-h|--help]      (or: make demo, as root)" ]
	run -2 --separate-stderr "$RTSHIM_ROOT/scripts/demo" --frobnicate
	# shellcheck disable=SC2154 # stderr_lines: set by bats' run --separate-stderr
	[ "${stderr_lines[0]}" = "demo: unknown argument '--frobnicate'" ]
	[ -z "$output" ]
}

@test "scripts/demo: the audio thread plain and under rtrun, jackd's 70 and rtkit's 20 said, each rtkit grant explained, the benchmark's xruns labelled" {
	run -0 --separate-stderr env B="$B" RTSHIM_DEMO_STACK=private "$RTSHIM_ROOT/scripts/demo"
	printf '%s\n' "$output"
	local max=20 out=$output
	grep -Fx "jackd's threads        plain                              under rtrun" <<<"$output"
	grep -Fx "main thread            SCHED_OTHER 0                      SCHED_OTHER 0" <<<"$output"
	grep -Fx "audio thread           SCHED_OTHER 0                      SCHED_RR|SCHED_RESET_ON_FORK $max" <<<"$output"
	# no two rows with the same name (every thread of jackd is called jackd)
	run -0 bash -c "sed -n '/^jackd.s threads/,/^RLIMIT_RTTIME/p' <<<\"\$1\" | cut -c1-22 | sort | uniq -d" _ "$out"
	[ -z "$output" ]
	output=$out
	grep -Fx "jackd asked for FIFO/70 for its audio thread (-P 70) and got $max: rtkit grants" <<<"$output"
	# each grant of rtkit's log gets its explanation line; the audio thread's names the 70
	local grants explained
	grants=$(grep -c "Successfully made thread" <<<"$output")
	explained=$(grep -cE '^    = (the audio thread|a helper thread|another thread of jackd), which asked for (FIFO|RR)/[0-9]+' <<<"$output")
	[ "$grants" -ge 1 ]
	[ "$explained" = "$grants" ]
	grep -Fx "    = the audio thread, which asked for FIFO/70" <<<"$output"
	# what it buys: the figures of README's benchmark summary, labelled as not measured here
	local fig
	fig=$(grep -o 'had [0-9]* xruns in [0-9]* s without rtrun and [0-9]* with it (root: [0-9]*)' "$RTSHIM_ROOT/README.md")
	read -r plain _ rt root < <(sed -E 's/had ([0-9]+) xruns in ([0-9]+) s without rtrun and ([0-9]+) with it \(root: ([0-9]+)\)/\1 \2 \3 \4/' <<<"$fig")
	[[ $output == *"What it buys, as the last 'make bench' measured it on "*" (not this demo): under a"* ]]
	[[ $output == *"had $plain xruns in 14 s"$'\n'"without rtrun, $rt under rtrun, $root as root"* ]]
	[[ ${out##*$'\n'} == "Result: jackd's audio thread ran SCHED_OTHER 0 plain, and SCHED_RR|SCHED_RESET_ON_FORK $max under rtrun (granted by rtkit)." ]]
}
