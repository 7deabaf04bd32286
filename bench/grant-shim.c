/* grant-shim — figure 1 through the shim: what a legacy program does, nothing more.
 *
 *   rtrun grant-shim [N [PRIO]]   N timed grants (default 100) at SCHED_FIFO PRIO (default 10)
 *
 * Each grant is pthread_setschedparam(pthread_self(), SCHED_FIFO, PRIO) in a fresh thread, as
 * the unprivileged user: the kernel says EPERM, the shim asks rtkit.  Not linked with libdbus.
 * Without the shim every grant fails (EPERM), which the script checks.  Same loop as grant-floor.
 */
#include "bench.h"

static int set_fifo(pid_t tid, int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	(void)tid;
	return pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
}

int main(int argc, char **argv)
{
	return bench_grant_loop(set_fifo, (int)bench_arg(argc, argv, 1, 100),
				(int)bench_arg(argc, argv, 2, 10));
}
