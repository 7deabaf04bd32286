/* supervisor — a program that forks a worker which computes for 1 s of CPU time, then boosts
 * it: sched_setscheduler(worker, SCHED_FIFO, 10), as a job supervisor might (an EPERM is fine
 * with it), and waits for it.
 * Lines: "call boost rc=R err=E", "kernel worker POLICY PRIO" (right after the call),
 * "worker exit N" or "worker signal N"; exit 0. */
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include "probe.h"

int main(void)
{
	int go[2];
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (pipe(go) < 0)
		return 1;
	pid_t worker = fork();
	if (worker == 0) {
		char c;
		close(go[1]);
		if (read(go[0], &c, 1) != 1) /* computes once it may have been boosted */
			_exit(3);
		struct timespec t0, t;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
		do
			clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
		while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < 1000);
		_exit(0);
	}
	close(go[0]);
	struct sched_param p = { .sched_priority = 10 };
	PROBE_SCHED("boost", sched_setscheduler(worker, SCHED_FIFO, &p));
	probe_say("kernel worker %s %d", probe_policy(probe_kernel_policy(worker)), probe_kernel_prio(worker));
	if (write(go[1], "g", 1) != 1)
		return 1;
	int status;
	waitpid(worker, &status, 0);
	if (WIFSIGNALED(status))
		probe_say("worker signal %d", WTERMSIG(status));
	else
		probe_say("worker exit %d", WEXITSTATUS(status));
	return 0;
}
