/* many-ask — many requests for SCHED_FIFO at once, each timed by the thread that makes it.
 * Usage: many-ask [warm] threads N   N threads started together (a barrier), each asks for
 *                                     itself with pthread_setschedparam, then all are joined
 *        many-ask [warm] procs N     N processes forked together, each asks once and exits
 *        many-ask [warm] repeat N    the main thread asks N times in a row
 * warm: the main thread asks once first, untimed ("warm-up rc R"), so that what rtkit answers
 * it is known before the timed requests.  Each request is SCHED_FIFO 10.
 * Prints "asked N ok K slow S over_500ms V max_ms M elapsed_ms E vmpeak_kb P": K requests
 * granted, S took over 100 ms, V over 500 ms, M the longest (ms), E the wall time of the whole
 * run (first fork/create to last join/wait), P this process's VmPeak at the end (threads: the
 * stacks every thread mapped at once; procs: the parent's, which did not ask).
 * Time is read with the raw system call, past any preload. */
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>

#include "probe.h"

#define SLOW_NS 100000000LL
#define VERY_SLOW_NS 500000000LL

static const int prio = 10;

static long long now_ns(void)
{
	struct timespec ts;
	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

struct tally {
	int ok, slow, very_slow;
	long long max_ns;
};

static void count(struct tally *t, int rc, long long ns)
{
	if (rc == 0)
		__atomic_fetch_add(&t->ok, 1, __ATOMIC_RELAXED);
	if (ns > SLOW_NS)
		__atomic_fetch_add(&t->slow, 1, __ATOMIC_RELAXED);
	if (ns > VERY_SLOW_NS)
		__atomic_fetch_add(&t->very_slow, 1, __ATOMIC_RELAXED);
	long long m = __atomic_load_n(&t->max_ns, __ATOMIC_RELAXED);
	while (ns > m && !__atomic_compare_exchange_n(&t->max_ns, &m, ns, false, __ATOMIC_RELAXED,
						      __ATOMIC_RELAXED))
		;
}

static int ask(long long *ns)
{
	struct sched_param sp = { .sched_priority = prio };
	long long t0 = now_ns();
	int rc = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	*ns = now_ns() - t0;
	return rc;
}

static pthread_barrier_t barrier;
static struct tally *tally;

static void *worker(void *arg)
{
	(void)arg;
	long long ns;
	pthread_barrier_wait(&barrier);
	int rc = ask(&ns);
	count(tally, rc, ns);
	return NULL;
}

static int run_threads(int n)
{
	pthread_t *t = calloc((size_t)n, sizeof *t);
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 * 1024);
	if (!t || pthread_barrier_init(&barrier, NULL, (unsigned)n))
		return 2;
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], &a, worker, NULL)) {
			probe_say("pthread_create %d failed", i);
			return 1;
		}
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}

static int run_repeat(int n)
{
	for (int i = 0; i < n; i++) {
		long long ns;
		int rc = ask(&ns);
		count(tally, rc, ns);
	}
	return 0;
}

static int run_procs(int n)
{
	/* a pipe each child waits on: all ask together once the parent closes it */
	int go[2];
	if (pipe(go))
		return 2;
	for (int i = 0; i < n; i++) {
		pid_t p = fork();
		if (p < 0)
			return 2;
		if (p == 0) {
			char c;
			long long ns;
			close(go[1]);
			(void)!read(go[0], &c, 1);
			int rc = ask(&ns);
			count(tally, rc, ns);
			_exit(0);
		}
	}
	close(go[1]);
	close(go[0]);
	while (wait(NULL) > 0)
		;
	return 0;
}

/* VmPeak (kB) from /proc/self/status, -1 if unreadable */
static long vmpeak_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "VmPeak: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

int main(int argc, char **argv)
{
	int a = 1;
	bool warm = argc > a && strcmp(argv[a], "warm") == 0;
	a += warm;
	if (argc < a + 2)
		return 2;
	const char *mode = argv[a];
	int n = atoi(argv[a + 1]);
	if (n < 1)
		return 2;
	tally = mmap(NULL, sizeof *tally, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (tally == MAP_FAILED)
		return 2;
	if (warm) {
		long long ns;
		probe_say("warm-up rc %d", ask(&ns));
	}
	long long t0 = now_ns();
	int r = strcmp(mode, "procs") == 0    ? run_procs(n)
		: strcmp(mode, "repeat") == 0 ? run_repeat(n)
					      : run_threads(n);
	if (r)
		return r;
	long long elapsed = now_ns() - t0;
	probe_say("asked %d ok %d slow %d over_500ms %d max_ms %lld elapsed_ms %lld vmpeak_kb %ld", n,
		  tally->ok, tally->slow, tally->very_slow, tally->max_ns / 1000000, elapsed / 1000000,
		  vmpeak_kb());
	return 0;
}
