/* syscall-setattr — a program that asks through syscall(SYS_sched_setattr) (glibc 2.36 has no
 * wrapper), or with "libc" through the sched_setattr() function of glibc 2.41 (which makes the
 * system call itself): SCHED_FIFO at PRIO on the main thread, with SCHED_FLAG_RESET_ON_FORK when
 * asked; then sched_getattr() reads it back ("libc"), a forked child reports the policy it
 * started with, and the main thread drops back to SCHED_OTHER before it exits.
 * Usage: syscall-setattr PRIO [reset] [libc]
 *        syscall-setattr deadline   (SCHED_DEADLINE 1 ms every 10 ms, asked twice, no child)
 * Lines: "call setattr rc=R err=E" ("libc-setattr": the function; "no libc-setattr": no
 * definition of it is loaded), "read libc-getattr POLICY PRIO", "kernel main POLICY PRIO",
 * "kernel child POLICY PRIO". */
#include <stdint.h>
#include <sys/wait.h>

#include "probe.h"

/* glibc 2.41's functions, under names of their own (<sched.h> of 2.41 declares them with its own
 * struct), weak: null where no loaded object defines them. */
extern int probe_libc_setattr(pid_t pid, struct probe_sched_attr *a, unsigned int flags)
	__asm__("sched_setattr") __attribute__((weak));
extern int probe_libc_getattr(pid_t pid, struct probe_sched_attr *a, unsigned int size, unsigned int flags)
	__asm__("sched_getattr") __attribute__((weak));

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
	int libc = 0;
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "reset") == 0)
			a.flags = 0x01; /* SCHED_FLAG_RESET_ON_FORK */
		else if (strcmp(argv[i], "libc") == 0)
			libc = 1;
	}
	if (!libc) {
		PROBE_SCHED("setattr", (int)syscall(SYS_sched_setattr, 0, &a, 0));
	} else if (!probe_libc_setattr || !probe_libc_getattr) {
		printf("no libc-setattr\n");
		return 0;
	} else {
		PROBE_SCHED("libc-setattr", probe_libc_setattr(0, &a, 0));
		struct probe_sched_attr back = { 0 };
		if (probe_libc_getattr(0, &back, sizeof back, 0) == 0)
			printf("read libc-getattr %s %u\n", probe_policy((int)back.policy | (back.flags & 0x01 ? SCHED_RESET_ON_FORK : 0)),
			       back.priority);
	}
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
