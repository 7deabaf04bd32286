/* setattr-drop — a program that asks for SCHED_FIFO 10 (by sched_setscheduler, or by
 * syscall(SYS_sched_setattr) with "setattr"), then changes the thread with sched_setattr and no
 * SCHED_FLAG_RESET_ON_FORK: back to SCHED_OTHER ("other"), SCHED_OTHER at nice 5 ("nice"),
 * SCHED_BATCH, SCHED_IDLE, or SCHED_RR 5 ("lower").
 * Usage: setattr-drop HOW [setattr]
 * Lines: "call grant rc=R err=E", "call change rc=R err=E", "kernel after POLICY PRIO",
 * "nice after N", "read after POLICY" (sched_getscheduler, as the program reads it). */
#include <stdint.h>
#include <sys/resource.h>

#include "probe.h"

/* the kernel's struct sched_attr, its first version (SCHED_ATTR_SIZE_VER0, 48 bytes) */
struct attr {
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t priority;
	uint64_t runtime, deadline, period;
};

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "other";
	struct attr a = { .size = sizeof a, .policy = SCHED_FIFO, .priority = 10 };
	struct sched_param p = { .sched_priority = 10 };
	probe_start();
	if (argc > 2 && strcmp(argv[2], "setattr") == 0)
		PROBE_SCHED("grant", (int)syscall(SYS_sched_setattr, 0, &a, 0));
	else
		PROBE_SCHED("grant", sched_setscheduler(0, SCHED_FIFO, &p));

	a = (struct attr){ .size = sizeof a, .policy = SCHED_OTHER };
	if (strcmp(how, "nice") == 0)
		a.nice = 5;
	else if (strcmp(how, "batch") == 0)
		a.policy = SCHED_BATCH;
	else if (strcmp(how, "idle") == 0)
		a.policy = SCHED_IDLE;
	else if (strcmp(how, "lower") == 0)
		a = (struct attr){ .size = sizeof a, .policy = SCHED_RR, .priority = 5 };
	PROBE_SCHED("change", (int)syscall(SYS_sched_setattr, 0, &a, 0));
	probe_kernel("after");
	errno = 0;
	probe_say("nice after %d", getpriority(PRIO_PROCESS, 0));
	probe_say("read after %s", probe_policy(sched_getscheduler(0)));
	return 0;
}
