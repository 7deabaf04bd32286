/* bench.h — what the benchmark programs share: a clock and the grant loop.
 *
 * The programs print raw numbers, one per line, on stdout; scripts/bench turns them into
 * medians, percentiles and ratios.  Diagnostics go to stderr.
 */
#ifndef RTSHIM_BENCH_H
#define RTSHIM_BENCH_H

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static inline int64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline long bench_arg(int argc, char **argv, int i, long def)
{
	return argc > i ? strtol(argv[i], NULL, 10) : def;
}

/* The kernel's view of the calling thread, bypassing any interposed reader. */
static inline int bench_kernel_policy(void)
{
	return (int)syscall(SYS_sched_getscheduler, 0) & ~SCHED_RESET_ON_FORK;
}

/* The grant loop of figure 1, the same for the floor and the shim: each grant goes to a fresh
 * thread (a thread already RT would not be asked for again), timed around the request alone.
 * `request` returns 0 or an errno.  The first grant is a warm-up (connection, RLIMIT_RTTIME,
 * limits cache) and is not printed.  Prints one line per grant: nanoseconds. */
struct bench_grant {
	int (*request)(pid_t tid, int prio);
	int prio;
	int64_t ns;
	int rc;
	int policy;
};

static void *bench_grant_thread(void *arg)
{
	struct bench_grant *g = arg;
	pid_t tid = (pid_t)syscall(SYS_gettid);
	int64_t t0 = bench_now_ns();

	g->rc = g->request(tid, g->prio);
	g->ns = bench_now_ns() - t0;
	g->policy = bench_kernel_policy();
	return NULL;
}

static inline int bench_grant_loop(int (*request)(pid_t, int), int n, int prio)
{
	int i, failed = 0;

	for (i = 0; i <= n; i++) {
		struct bench_grant g = { .request = request, .prio = prio };
		pthread_t t;
		int rc = pthread_create(&t, NULL, bench_grant_thread, &g);

		if (rc) {
			fprintf(stderr, "pthread_create: %s\n", strerror(rc));
			return 1;
		}
		pthread_join(t, NULL);
		if (g.rc || (g.policy != SCHED_RR && g.policy != SCHED_FIFO)) {
			fprintf(stderr, "grant %d failed: %s (kernel policy %d)\n", i,
				g.rc ? strerror(g.rc) : "returned 0", g.policy);
			if (++failed >= 3)
				return 1;
			continue;
		}
		if (i > 0)
			printf("%lld\n", (long long)g.ns);
	}
	return failed ? 1 : 0;
}

#endif
