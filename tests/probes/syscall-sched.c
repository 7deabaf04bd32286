/* syscall-sched — a program that makes its scheduling calls through syscall(), as chrt and MPD
 * do: sched_setscheduler(SCHED_FIFO, PRIO) on the main thread, then sched_setparam(PRIO - 1) if
 * that worked, then back to SCHED_OTHER.  Single-threaded and short: it is also what the cross
 * builds run under qemu-user (tests/bats/cross.bats).
 * Usage: syscall-sched PRIO
 * Lines: "call setscheduler rc=R err=E", "kernel set POLICY PRIO", then, if granted,
 * "call setparam ...", "kernel param POLICY PRIO", "call other ...", "kernel other ...". */
#include "probe.h"

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct sched_param p = { .sched_priority = argc > 1 ? atoi(argv[1]) : 10 };
	int r = PROBE_SCHED("setscheduler", (int)syscall(SYS_sched_setscheduler, 0, SCHED_FIFO, &p));
	probe_kernel("set");
	if (r != 0)
		return 0;
	p.sched_priority--;
	PROBE_SCHED("setparam", (int)syscall(SYS_sched_setparam, 0, &p));
	probe_kernel("param");
	struct sched_param p0 = { 0 };
	PROBE_SCHED("other", (int)syscall(SYS_sched_setscheduler, 0, SCHED_OTHER, &p0));
	probe_kernel("other");
	return 0;
}
