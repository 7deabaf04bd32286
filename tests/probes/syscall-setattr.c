/* syscall-setattr — a program that asks through syscall(SYS_sched_setattr) (glibc 2.36 has no
 * wrapper): SCHED_FIFO at PRIO on the main thread, with SCHED_FLAG_RESET_ON_FORK when asked;
 * then a forked child reports the policy it started with, and the main thread drops back to
 * SCHED_OTHER before it exits.
 * Usage: syscall-setattr PRIO [reset]
 *        syscall-setattr deadline   (SCHED_DEADLINE 1 ms every 10 ms, asked twice, no child)
 * Lines: "call setattr rc=R err=E", "kernel main POLICY PRIO", "kernel child POLICY PRIO". */
#include <stdint.h>
#include <sys/wait.h>

#include "probe.h"

int main(int argc, char **argv)
{
	struct probe_sched_attr a = { .size = sizeof a, .policy = SCHED_FIFO };
	if (argc > 1 && strcmp(argv[1], "deadline") == 0) {
		a.policy = 6; /* SCHED_DEADLINE */
		a.runtime = 1000000;
		a.deadline = a.period = 10000000;
		PROBE_SCHED("setattr", (int)syscall(SYS_sched_setattr, 0, &a, 0));
		PROBE_SCHED("setattr", (int)syscall(SYS_sched_setattr, 0, &a, 0));
		probe_kernel("main");
		return 0;
	}
	a.priority = argc > 1 ? (uint32_t)atoi(argv[1]) : 10;
	if (argc > 2 && strcmp(argv[2], "reset") == 0)
		a.flags = 0x01; /* SCHED_FLAG_RESET_ON_FORK */
	PROBE_SCHED("setattr", (int)syscall(SYS_sched_setattr, 0, &a, 0));
	probe_kernel("main");
	pid_t child = fork();
	if (child == 0) {
		probe_kernel("child");
		_exit(0);
	}
	waitpid(child, NULL, 0);
	struct sched_param p0 = { 0 };
	sched_setscheduler(0, SCHED_OTHER, &p0);
	return 0;
}
