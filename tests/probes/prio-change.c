/* prio-change — a thread that is RT changes its priority with sched_setparam and
 * pthread_setschedprio, down and up (zita/aeolus-style clients adjust priorities this way).
 * Usage: prio-change [PRIO]   (default 10: start at PRIO, then PRIO-5, PRIO+5, PRIO-2, PRIO+8) */
#include "probe.h"

static int prio = 10;

static void *worker(void *p)
{
	(void)p;
	probe_tid("worker");
	struct sched_param sp = { .sched_priority = prio };
	PROBE_SCHED("setscheduler", sched_setscheduler(0, SCHED_FIFO, &sp));
	probe_kernel("start");
	sp.sched_priority = prio - 5;
	PROBE_SCHED("setparam-down", sched_setparam(0, &sp));
	probe_kernel("setparam-down");
	sp.sched_priority = prio + 5;
	PROBE_SCHED("setparam-up", sched_setparam(0, &sp));
	probe_kernel("setparam-up");
	PROBE_PTHREAD("setschedprio-down", pthread_setschedprio(pthread_self(), prio - 2));
	probe_kernel("setschedprio-down");
	PROBE_PTHREAD("setschedprio-up", pthread_setschedprio(pthread_self(), prio + 8));
	probe_kernel("setschedprio-up");
	int policy;
	pthread_getschedparam(pthread_self(), &policy, &sp);
	probe_say("sees worker %s %d", probe_policy(policy), sp.sched_priority);
	probe_park();
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		prio = atoi(argv[1]);
	probe_start();
	probe_tid("main");
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	probe_wait();
	return 0;
}
