/* rt-fork — an RT thread forks: the child must start SCHED_OTHER (SCHED_RESET_ON_FORK), and
 * a thread the RT thread creates with default attributes too.  The child reports the kernel's
 * view and its own sched_getscheduler, then waits like the parent.
 * Usage: rt-fork [PRIO]   (default 70) */
#include <sys/wait.h>

#include "probe.h"

static int prio = 70;

static void *plain(void *p)
{
	(void)p;
	probe_tid("grandthread");
	probe_kernel("grandthread");
	probe_park();
	return NULL;
}

static void *rt(void *p)
{
	(void)p;
	probe_tid("rt");
	struct sched_param sp = { .sched_priority = prio };
	if (PROBE_PTHREAD("acquire", pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp)))
		return NULL;
	probe_kernel("rt");
	pthread_t t;
	pthread_create(&t, NULL, plain, NULL);
	pid_t child = fork();
	if (child == 0) {
		probe_say("child %d", (int)getpid());
		probe_kernel("child");
		probe_say("child-sees %s", probe_policy(sched_getscheduler(0)));
		probe_wait();
		_exit(0);
	}
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
	pthread_create(&t, NULL, rt, NULL);
	probe_wait();
	return 0;
}
