#!/usr/bin/env bats
# stress-ng (Debian 12's 0.15.06), unmodified: `stress-ng --schedpolicy 1 -t 5` as the unprivileged
# test user against the real rtkit stack with rtkit's DEFAULT limits.  Its worker cycles through
# the policies; after a sched_setscheduler(pid, SCHED_FIFO or SCHED_RR, p) that returns 0 it
# checks that sched_getscheduler(pid) & 0xff is the policy it asked, and counts a failure
# otherwise ("unsuccessful run", exit 2).  EPERM it accepts.  Plain, its FIFO/RR calls get EPERM;
# under rtrun rtkit grants them (SCHED_RR|SCHED_RESET_ON_FORK in the kernel), and the readers
# report the SCHED_FIFO it asked (rtshim(7), "Readers").

load ../bats/common
load apps

setup_file() { tb_start; }
teardown_file() { tb_stop; }
setup() { apps_setup; }
teardown() { apps_teardown; }

# schedpolicy [--rtrun]: stress-ng --schedpolicy 1 -t 5 to its end; sets STATUS and LOG.  While
# it runs, its processes' policies are sampled from the kernel (every 20 ms): SEEN holds each
# distinct "POLICY PRIO" that chrt -p read.
schedpolicy() {
	LOG=$APP_TMP/stress-ng.log
	mkdir -p "$APP_TMP/tmp" && chown "$TEST_USER" "$APP_TMP/tmp" # its temp-path, the user's
	spawn "$@" "$LOG" stress-ng --temp-path "$APP_TMP/tmp" --schedpolicy 1 -t 5
	local w i
	SEEN=
	for ((i = 0; i < 1000; i++)); do
		kill -0 "$SPAWNED" 2>/dev/null || break
		for w in $(descendants "$SPAWNED"); do
			SEEN+=$(sched_of "$w" 2>/dev/null)$'\n'
		done
		sleep 0.02
	done
	STATUS=0
	wait "$SPAWNED" || STATUS=$?
	SEEN=$(sort -u <<<"$SEEN" | sed '/^$/d')
	echo "exit $STATUS; the kernel's view of the worker:"
	echo "$SEEN"
	tail -n 5 "$LOG"
}

@test "stress-ng --schedpolicy without rtrun: FIFO/RR refused (EPERM), accepted: successful run, exit 0" {
	schedpolicy
	[ "$STATUS" -eq 0 ]
	grep -q 'successful run completed' "$LOG"
	! grep -q 'SCHED_RR\|SCHED_FIFO' <<<"$SEEN" || false
}

@test "stress-ng --schedpolicy under rtrun: FIFO granted as rtkit's RR, read back as FIFO: successful run, exit 0" {
	local before
	before=$(rtkit_grants)
	schedpolicy --rtrun
	[ "$STATUS" -eq 0 ]
	grep -q 'successful run completed' "$LOG"
	! grep -q 'sched_getscheduler failed' "$LOG" || false
	# its FIFO requests were granted (rtkit made its worker RR|RESET_ON_FORK: a phase of
	# microseconds between two of its calls, too short to sample from outside), up to rtkit's
	# burst limit; the rest EPERM, as without rtrun
	local granted=$(($(rtkit_grants) - before))
	echo "rtkit granted $granted requests"
	((granted > 0))
}
