/* cyclictest-style — rt-tests' cyclictest: each measurement thread calls
 * sched_setscheduler(0, SCHED_FIFO, prio) itself; on failure it reports and goes on non-RT.
 * Usage: cyclictest-style [THREADS] [PRIO] [reset]   (default 4 threads, priority 80; "reset":
 * the program itself asks for SCHED_FIFO|SCHED_RESET_ON_FORK) */
#include "probe.h"

static int prio = 80;
static int flag;

static void *measure(void *p)
{
	long i = (long)p;
	char label[16];
	snprintf(label, sizeof label, "t%ld", i);
	probe_tid(label);
	struct sched_param sp = { .sched_priority = prio };
	char call[32];
	snprintf(call, sizeof call, "setscheduler-%s", label);
	PROBE_SCHED(call, sched_setscheduler(0, SCHED_FIFO | flag, &sp));
	int pol = sched_getscheduler(0);
	probe_say("sees %s %s", label, probe_policy(pol));
	probe_park();
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 4;
	if (argc > 2)
		prio = atoi(argv[2]);
	if (argc > 3 && !strcmp(argv[3], "reset"))
		flag = SCHED_RESET_ON_FORK;
	probe_start();
	probe_tid("main");
	for (long i = 0; i < n; i++) {
		pthread_t t;
		pthread_create(&t, NULL, measure, (void *)i);
	}
	probe_wait();
	return 0;
}
