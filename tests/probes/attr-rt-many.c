/* attr-rt-many — JACK2-style start-up: N threads, one after the other, each created with an
 * explicit SCHED_FIFO attribute and joined before the next; a thread the kernel refused is
 * created again with the default attribute (what a program with a fallback does).
 * Usage: attr-rt-many [N] [PRIO]  (default 16, 10)
 * Prints "created C of N rt R" (C with the RT attribute, R of them realtime in the kernel) and
 * "done".  The elapsed time is measured by the caller, from outside any preload. */
#include "probe.h"

static void *body(void *p)
{
	int policy = probe_kernel_policy(probe_gettid());
	*(int *)p = (policy & ~SCHED_RESET_ON_FORK) == SCHED_FIFO ||
		    (policy & ~SCHED_RESET_ON_FORK) == SCHED_RR;
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 16;
	int prio = argc > 2 ? atoi(argv[2]) : 10;
	int created = 0, rt = 0;
	probe_start();
	for (int i = 0; i < n; i++) {
		pthread_attr_t attr;
		struct sched_param sp = { .sched_priority = prio };
		pthread_t t;
		int is_rt = 0;
		pthread_attr_init(&attr);
		pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
		pthread_attr_setschedparam(&attr, &sp);
		int e = pthread_create(&t, &attr, body, &is_rt);
		pthread_attr_destroy(&attr);
		if (e == 0)
			created++;
		else if ((e = pthread_create(&t, NULL, body, &is_rt)) != 0) {
			probe_say("pthread_create: %s", probe_errname(e));
			return 1;
		}
		pthread_join(t, NULL);
		rt += is_rt;
	}
	probe_say("created %d of %d rt %d", created, n, rt);
	probe_say("done");
	return 0;
}
