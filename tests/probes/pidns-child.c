/* pidns-child — in a PID namespace of its own, a program makes its child realtime by PID, and
 * then itself.  Usage: pidns-child X
 * Forks until a child has PID X (in this namespace; the caller makes X near: ns_last_pid), keeps
 * that child, then sched_setscheduler(child, SCHED_FIFO, 10) and
 * pthread_setschedparam(self, SCHED_FIFO, 10).  Prints "child PID", "call child rc=.. err=..",
 * "kernel child POLICY PRIO", "call self ...", "kernel main ...", "done"; exit 2 if PID X went
 * by. */
#include <signal.h>
#include <sys/wait.h>

#include "probe.h"

int main(int argc, char **argv)
{
	pid_t want = argc > 1 ? (pid_t)atoi(argv[1]) : 0, child = -1;
	probe_start();
	for (int i = 0; i < 100000; i++) {
		pid_t c = fork();
		if (c == 0) {
			if (getpid() == want)
				pause();
			_exit(0);
		}
		if (c < 0)
			return 1;
		if (c == want) {
			child = c;
			break;
		}
		waitpid(c, NULL, 0);
		if (c > want) {
			probe_say("missed %d (got %d)", (int)want, (int)c);
			return 2;
		}
	}
	probe_say("child %d", (int)child);
	struct sched_param sp = { .sched_priority = 10 };
	PROBE_SCHED("child", sched_setscheduler(child, SCHED_FIFO, &sp));
	probe_say("kernel child %s %d", probe_policy(probe_kernel_policy(child)), probe_kernel_prio(child));
	PROBE_PTHREAD("self", pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp));
	probe_kernel("main");
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	probe_say("done");
	return 0;
}
