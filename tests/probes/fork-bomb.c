/* fork-bomb — a thread asks for SCHED_FIFO/PRIO (pthread_setschedparam on itself), then forks N
 * children as fast as it can.  Each child reports through a pipe the policy the kernel gave it
 * at birth and then blocks until the parent lets it go, so a test can read every child's
 * policy from /proc as well.  Prints "tid rt T", "call acquire rc=.. err=..", "kernel rt ...",
 * then "children=N forked=F rt=R other=O", "ready"; at stdin EOF the children are released and
 * reaped.
 * Usage: fork-bomb [N [PRIO]]   (default 100, 10) */
#include <signal.h>
#include <sys/wait.h>

#include "probe.h"

static int n = 100, prio = 10;
static int report[2], hold[2];
static pid_t *kids;
static int forked;

static void *rt(void *p)
{
	(void)p;
	probe_tid("rt");
	struct sched_param sp = { .sched_priority = prio };
	PROBE_PTHREAD("acquire", pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp));
	probe_kernel("rt");
	fflush(stdout);
	for (int i = 0; i < n; i++) {
		pid_t c = fork();
		if (c < 0)
			break;
		if (c == 0) {
			int pol = probe_kernel_policy(probe_gettid()) & ~SCHED_RESET_ON_FORK;
			char b = (pol == SCHED_FIFO || pol == SCHED_RR) ? 'R' : 'O';
			close(report[0]);
			close(hold[1]);
			if (write(report[1], &b, 1) != 1)
				_exit(2);
			close(report[1]);
			alarm(150); /* never outlive a forgotten test */
			char x;
			while (read(hold[0], &x, 1) > 0)
				;
			_exit(0);
		}
		kids[forked++] = c;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		n = atoi(argv[1]);
	if (argc > 2)
		prio = atoi(argv[2]);
	if (n < 1 || n > 10000)
		return 2;
	kids = calloc((size_t)n, sizeof *kids);
	if (!kids || pipe(report) || pipe(hold))
		return 2;
	probe_start();
	pthread_t t;
	pthread_create(&t, NULL, rt, NULL);
	pthread_join(t, NULL);
	close(report[1]);
	close(hold[0]);
	int rtc = 0, oth = 0;
	char b;
	while (read(report[0], &b, 1) == 1)
		b == 'R' ? rtc++ : oth++;
	/* report[0] hit EOF: every child wrote (or died) */
	probe_say("children=%d forked=%d rt=%d other=%d", n, forked, rtc, oth);
	probe_wait();
	close(hold[1]);
	for (int i = 0; i < forked; i++)
		waitpid(kids[i], NULL, 0);
	return 0;
}
