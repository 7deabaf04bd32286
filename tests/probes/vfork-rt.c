/* vfork-rt — a program that has realtime (SCHED_RR 10 for its main thread, asked with
 * sched_setscheduler) vforks a child that asks for realtime for itself before _exit, as a
 * spawn helper might.  The child shares the parent's memory until it exits: the parent must
 * see the same afterwards as before, also once another of its threads has asked for realtime.
 *   call parent rc=R err=E / before POLICY FDS / call-in-child rc=R err=E /
 *   call worker rc=R err=E / after POLICY FDS / kernel parent|worker POLICY PRIO */
#include <dirent.h>
#include <sys/wait.h>

#include "probe.h"

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;
	if (!d)
		return -1;
	for (struct dirent *e; (e = readdir(d));)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1; /* not the directory's own descriptor */
}

static volatile int child_rc = -100, child_err;

static void *worker(void *p)
{
	(void)p;
	struct sched_param sp = { .sched_priority = 10 };
	PROBE_PTHREAD("worker", pthread_setschedparam(pthread_self(), SCHED_RR, &sp));
	probe_kernel("worker");
	return NULL;
}

int main(void)
{
	probe_start();
	struct sched_param sp = { .sched_priority = 10 };
	PROBE_SCHED("parent", sched_setscheduler(0, SCHED_RR, &sp));
	probe_say("before %s %d", probe_policy(sched_getscheduler(0)), open_fds());
	pid_t child = vfork();
	if (child == 0) {
		struct sched_param csp = { .sched_priority = 10 };
		child_rc = sched_setscheduler(0, SCHED_RR, &csp);
		child_err = child_rc ? errno : 0;
		_exit(0);
	}
	int status;
	waitpid(child, &status, 0);
	probe_say("call-in-child rc=%d err=%s", child_rc, probe_errname(child_err));
	pthread_t t;
	if (pthread_create(&t, NULL, worker, NULL) == 0)
		pthread_join(t, NULL);
	probe_say("after %s %d", probe_policy(sched_getscheduler(0)), open_fds());
	probe_kernel("parent");
	return 0;
}
