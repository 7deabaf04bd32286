/* rt-inherit — a realtime thread creates threads the way code written for RLIMIT_RTPRIO does:
 * with default attributes (inherit: under rlimits they would be realtime too), and with an
 * explicit SCHED_OTHER attribute (never realtime).
 * Usage: rt-inherit [N] [PRIO]   (N default-attribute children, default 2; PRIO default 70)
 * Prints "tid parent T", "call parent ...", "tid childK T" + "kernel childK POLICY PRIO",
 * "tid other T" + "kernel other ...", then waits. */
#include "probe.h"

static void *child(void *arg)
{
	char label[32];
	snprintf(label, sizeof label, "%s", (const char *)arg);
	probe_tid(label);
	probe_kernel(label);
	probe_park();
	return NULL;
}

static int n = 2, prio = 70;

static void *parent(void *arg)
{
	(void)arg;
	probe_tid("parent");
	struct sched_param sp = { .sched_priority = prio };
	PROBE_PTHREAD("parent", pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp));
	probe_kernel("parent");
	static char labels[64][16];
	for (int i = 0; i < n && i < 64; i++) {
		pthread_t t;
		snprintf(labels[i], sizeof labels[i], "child%d", i);
		pthread_create(&t, NULL, child, labels[i]);
	}
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, SCHED_OTHER);
	struct sched_param zero = { .sched_priority = 0 };
	pthread_attr_setschedparam(&a, &zero);
	pthread_t o;
	PROBE_PTHREAD("create-other", pthread_create(&o, &a, child, "other"));
	probe_park();
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		n = atoi(argv[1]);
	if (argc > 2)
		prio = atoi(argv[2]);
	probe_start();
	pthread_t p;
	pthread_create(&p, NULL, parent, NULL);
	probe_wait();
	return 0;
}
