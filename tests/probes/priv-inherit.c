/* priv-inherit — a privileged program (root, or RLIMIT_RTPRIO) makes itself SCHED_FIFO 20 with
 * sched_setscheduler(0, ...), then starts a thread with default attributes and forks a child;
 * each reports what the kernel says it has (inheritance, as under limits.conf rtprio).
 *   call setscheduler rc=R err=E / kernel main|thread|child POLICY PRIO */
#include <sys/wait.h>

#include "probe.h"

static void *thread_main(void *p)
{
	(void)p;
	probe_kernel("thread");
	return NULL;
}

int main(void)
{
	probe_start();
	struct sched_param sp = { .sched_priority = 20 };
	if (PROBE_SCHED("setscheduler", sched_setscheduler(0, SCHED_FIFO, &sp)) != 0)
		return 1;
	probe_kernel("main");
	pthread_t t;
	if (pthread_create(&t, NULL, thread_main, NULL) != 0)
		return 1;
	pthread_join(t, NULL);
	pid_t child = fork();
	if (child == 0) {
		probe_kernel("child");
		_exit(0);
	}
	int status;
	waitpid(child, &status, 0);
	return 0;
}
