/* runaway — a realtime thread that never sleeps, and a SCHED_OTHER witness on the same CPU.
 *
 *   runaway spin CPU PRIO   a thread asks pthread_setschedparam(self, SCHED_FIFO, PRIO),
 *                           reports ("call acquire ...", "kernel spin ..."), pins itself to
 *                           CPU and then spins forever: only RLIMIT_RTTIME (the kernel) can
 *                           stop it.  Pinned after the grant: the request itself runs where
 *                           the scheduler puts it, not behind the nice -20 witness on CPU
 *   runaway witness CPU MS  pin to CPU; spin for MS ms of wall time as SCHED_OTHER and report
 *                           how much CPU it got and its longest wait:
 *                           "witness wall_ms=W cpu_ms=C max_gap_ms=G"
 */
#include <time.h>

#include "probe.h"

static int prio = 10, cpu;

static void pin(int c)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(c, &set);
	if (sched_setaffinity(0, sizeof set, &set))
		probe_say("sched_setaffinity failed: %s", probe_errname(errno));
}

static double ms_of(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void *spin(void *p)
{
	(void)p;
	probe_tid("spin");
	struct sched_param sp = { .sched_priority = prio };
	if (PROBE_PTHREAD("acquire", pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp)))
		return NULL;
	probe_kernel("spin");
	fflush(stdout);
	pin(cpu);
	for (volatile unsigned long i = 0;; i++)
		;
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	cpu = atoi(argv[2]);
	probe_start();
	if (!strcmp(argv[1], "spin")) {
		prio = atoi(argv[3]);
		pthread_t t;
		pthread_create(&t, NULL, spin, NULL);
		pthread_join(t, NULL); /* only if the acquire failed */
		probe_say("not realtime: exiting");
		return 1;
	}
	if (!strcmp(argv[1], "witness")) {
		pin(cpu);
		double span = atof(argv[3]), t0 = ms_of(CLOCK_MONOTONIC), c0 = ms_of(CLOCK_THREAD_CPUTIME_ID);
		double last = t0, gap = 0, now;
		probe_say("ready");
		do {
			now = ms_of(CLOCK_MONOTONIC);
			if (now - last > gap)
				gap = now - last;
			last = now;
		} while (now - t0 < span);
		probe_say("witness wall_ms=%.0f cpu_ms=%.0f max_gap_ms=%.0f", now - t0,
			  ms_of(CLOCK_THREAD_CPUTIME_ID) - c0, gap);
		return 0;
	}
	return 2;
}
