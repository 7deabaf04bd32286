#!/usr/bin/env bats
# What a successful call promises (rule 6), case by case from POSIX: the probe posix-sched runs
# every scheduling interface the shim interposes and prints one line per case (call, errno,
# what the program's readers say).  It runs four ways against the real stack: as root, as the
# test user without the shim, with LD_PRELOAD, under rtrun --inherit.  No case may be worse
# with the shim than without it, and every case where a shim run still differs from root has
# a reason below (README lists them).

load common

# the runs that are not about rtkit's budget must not run out of it (about 50 grants each)
setup_file() {
	tb_start -- --actions-per-burst-max=1000000 --threads-per-user-max=1000 \
		--processes-per-user-max=1000
	local d=$BATS_FILE_TMPDIR
	export RUNS=$d
	as_root env "$PROBES/posix-sched" >"$d/root"
	as_user env "$PROBES/posix-sched" >"$d/plain"
	as_user env RTSHIM_TIMEOUT_MS=10000 LD_PRELOAD="$SHIM_PRELOAD" "$PROBES/posix-sched" >"$d/preload"
	tb_restart_rtkit
	as_user "$RTRUN" --timeout 10000 --inherit -- "$PROBES/posix-sched" >"$d/rtrun"
}
teardown_file() { tb_stop; }

# The case name and the columns compared: ret/errno and read (promise and kernel are not).
cols() { awk -F' [|] ' '{ print $1 " | " $2 " | " $3 }' "$RUNS/$1"; }

# Why a shim run may differ from root on a case (an extended regular expression on its name).
reason() {
	case $1 in
	"fork from "*) echo "rtkit grants with SCHED_RESET_ON_FORK: a forked child starts SCHED_OTHER" ;;
	"inherited from "*) [[ $2 == preload ]] &&
		echo "SCHED_RESET_ON_FORK: a new thread inherits realtime only with --inherit (RTSHIM_INHERIT=1)" ;;
	esac
}

@test "every run prints every case" {
	local n
	n=$(wc -l <"$RUNS/root")
	((n >= 70))
	for run in plain preload rtrun; do
		diff <(cut -d'|' -f1 "$RUNS/root") <(cut -d'|' -f1 "$RUNS/$run")
	done
	# the test user really is unprivileged: without the shim a realtime request fails
	grep -q '^sched_setscheduler FIFO 1 | ret=-1 errno=EPERM' "$RUNS/plain"
}

@test "a success with the shim reads back what it set, from every reader" {
	for run in preload rtrun; do
		run grep -E 'promise=broken|DISAGREE' "$RUNS/$run"
		echo "$run: $output"
		[ "$status" -eq 1 ]
	done
	# rtkit's maximum (20) and SCHED_RR are what the kernel has; the readers say what was asked
	grep -q '^sched_setscheduler FIFO policy-max | ret=0 errno=OK | read=FIFO/99 | promise=kept | kernel=RR|RESET/20$' "$RUNS/preload"
	grep -q '^pthread_create explicit FIFO policy-max | ret=0 errno=OK | read=FIFO/99 creator=FIFO/99 | promise=kept' "$RUNS/rtrun"
	grep -q '^pthread_setschedprio RR 1 then 99 | ret=0 errno=OK | read=RR/99 | promise=kept' "$RUNS/preload"
}

@test "an invalid argument gets the errno it gets without the shim" {
	local bad=0
	while IFS= read -r line; do
		name=${line%% | *}
		for run in preload rtrun root; do
			got=$(grep -F "$name | " "$RUNS/$run" | cut -d'|' -f2)
			want=$(grep -F "$name | " "$RUNS/plain" | cut -d'|' -f2)
			[[ $got == "$want" ]] || { echo "$run: $name:$got, without the shim:$want"; bad=1; }
		done
	done < <(grep '^invalid ' "$RUNS/plain")
	((bad == 0))
	[ "$(grep -c '^invalid .*ret=-1 errno=E' "$RUNS/preload")" -ge 20 ]
}

@test "a granted success leaves errno as it was" {
	for run in preload rtrun; do
		[ "$(grep -c '^errno kept .* | ret=0 errno=ENOTCONN |' "$RUNS/$run")" -eq 2 ]
	done
}

@test "where the shim still differs from root, each case has its reason" {
	local bad=0 run name
	for run in preload rtrun; do
		while IFS= read -r name; do
			why=$(reason "$name" "$run")
			printf '# %-8s %-28s %s\n' "$run" "$name" "${why:-NO REASON}" >&3
			if [[ -z $why ]]; then
				diff <(grep -F "$name | " "$RUNS/root") <(grep -F "$name | " "$RUNS/$run") || true
				bad=1
			fi
		done < <(diff <(cols root) <(cols "$run") | sed -n 's/^> \([^|]*\) | .*/\1/p')
	done
	((bad == 0))
	# under rtrun --inherit a thread created by a FIFO thread reads as its creator, as root's does
	grep -q '^inherited from FIFO 50 | ret=0 errno=OK | read=FIFO/50 |' "$RUNS/rtrun"
}

# 50 and 51 both clamp to rtkit's 20: the creator goes one below (rtshim(7), Priority mapping),
# so the kernel runs the worker above it, as root's does; 1 and 2 fit as they are.
@test "a worker created one above its creator runs above it in the kernel, as with privilege" {
	local run pair
	for run in root preload rtrun; do
		for pair in "1 and 2" "50 and 51" "policy-max-1 and policy-max"; do
			grep -q "^worker above its creator FIFO $pair | ret=0 errno=OK | .* order=above |" "$RUNS/$run"
			grep -q "^worker above its creator RR $pair | ret=0 errno=OK | .* order=above |" "$RUNS/$run"
		done
	done
	# each reads what it asked, the creator after it was placed below
	grep -q '^worker above its creator FIFO 50 and 51 | ret=0 errno=OK | read=FIFO/50 worker=FIFO/51 order=above |' "$RUNS/preload"
}

# rtkit's budget: a request for what the thread has already (its readers' own priority minus
# one, mapped to rtkit's maximum) costs no request.
@test "the cases spend one rtkit request per thread made realtime" {
	tb_restart_rtkit
	local before after
	before=$(rtkit_grants)
	run as_user env RTSHIM_TIMEOUT_MS=10000 LD_PRELOAD="$SHIM_PRELOAD" "$PROBES/posix-sched" \
		"sched_setscheduler FIFO" "derived FIFO 50"
	echo "$output"
	[ "$(grep -c 'promise=kept' <<<"$output")" -eq 5 ]
	after=$(rtkit_grants)
	echo "rtkit grants: $before -> $after"
	[ $((after - before)) -eq 5 ]
}

# A priority derived from a read (policy-max, then one less): each --map reads back 98; what
# the kernel gets is the map's (clamp: rtkit's maximum; offset --top 99: one below it).
@test "a priority derived from what the readers say is mapped like any other" {
	local mode
	for mode in "clamp" "scale" "offset --top 99"; do
		# shellcheck disable=SC2086 # the mode's words are rtrun's options
		run as_user "$RTRUN" --timeout 10000 --map $mode -- "$PROBES/posix-sched" \
			"derived FIFO policy-max"
		echo "$mode: $output"
		[[ $output == *"| ret=0 errno=OK | read=FIFO/98 | promise=kept | kernel=RR|RESET/"* ]]
		case $mode in
		clamp | scale) [[ $output == *"kernel=RR|RESET/20" ]] ;;
		offset*) [[ $output == *"kernel=RR|RESET/19" ]] ;;
		esac
	done
}
