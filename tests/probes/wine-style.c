/* wine-style — wineserver raises the priority of a thread of *another* process of the same
 * user: sched_setscheduler(unix_tid, SCHED_FIFO|SCHED_RESET_ON_FORK... ) (here without the
 * flag, as older wine-staging does).  This probe forks a child (the "client"), then calls
 * sched_setscheduler(child_pid, SCHED_FIFO, prio) from the parent.
 * Usage: wine-style [PRIO] [PID]   (default 10; with PID: target that process instead) */
#include <signal.h>
#include <sys/wait.h>

#include "probe.h"

int main(int argc, char **argv)
{
	int prio = argc > 1 ? atoi(argv[1]) : 10;
	pid_t target = argc > 2 ? atoi(argv[2]) : 0;
	probe_start();
	probe_tid("main");
	pid_t child = 0;
	if (!target) {
		int pipefd[2];
		if (pipe(pipefd) < 0)
			return 1;
		child = fork();
		if (child == 0) {
			close(pipefd[1]);
			char c;
			while (read(pipefd[0], &c, 1) > 0)
				;
			_exit(0); /* the parent's end of the pipe closed: parent gone */
		}
		close(pipefd[0]);
		target = child;
	}
	probe_say("target %d", (int)target);
	struct sched_param sp = { .sched_priority = prio };
	PROBE_SCHED("setscheduler-other-process", sched_setscheduler(target, SCHED_FIFO, &sp));
	probe_say("kernel target %s %d", probe_policy(probe_kernel_policy(target)),
		  probe_kernel_prio(target));
	probe_wait();
	if (child) {
		kill(child, SIGTERM);
		waitpid(child, NULL, 0);
	}
	return 0;
}
