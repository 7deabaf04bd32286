/* at-once — figure 9: many requests for realtime at the same moment, rtkit refusing most.
 *
 *   at-once threads N [PRIO]   N threads (64 KiB stacks) wait on a barrier, then each asks for
 *                              itself: pthread_setschedparam(pthread_self(), SCHED_FIFO, PRIO);
 *                              all are joined
 *   at-once procs N [PRIO]     N processes forked first wait on a pipe, then each asks once
 *                              for its main thread and exits; all are reaped
 *
 * Prints "ELAPSED-ns VMPEAK-kB GRANTED": the wall time from the first create or fork to the
 * last join or wait, the largest VmPeak (/proc/self/status) of the process that asked (threads:
 * this one; procs: the largest child's), and how many requests the kernel saw granted.
 * Run as the unprivileged user with and without the shim: without it every call fails (EPERM).
 * at-once-peer is the same program asking rtkit itself, as an rtkit client does (the reference).
 * The clock is the raw system call, past any preload; PRIO defaults to 10.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "bench.h"

struct shared {
	long vmpeak_kb; /* the largest seen */
	int granted;
};

static struct shared *shared;
static pthread_barrier_t barrier;
static int prio = 10;

static int64_t raw_now_ns(void)
{
	struct timespec ts;

	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* VmPeak of this process in kB, read with raw system calls (nothing allocated), 0 if unknown */
static long vmpeak_kb(void)
{
	char buf[4096];
	int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/status", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = syscall(SYS_read, fd, buf, sizeof buf - 1);
	syscall(SYS_close, fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	const char *p = strstr(buf, "VmPeak:");
	return p ? strtol(p + 7, NULL, 10) : 0;
}

static void note_peak(long kb)
{
	long m = __atomic_load_n(&shared->vmpeak_kb, __ATOMIC_RELAXED);
	while (kb > m && !__atomic_compare_exchange_n(&shared->vmpeak_kb, &m, kb, 0, __ATOMIC_RELAXED,
						      __ATOMIC_RELAXED))
		;
}

/* The request itself: the legacy program's call (at-once-peer.c, an rtkit client's own, defines
 * AT_ONCE_PEER and its request_realtime before it includes this file). */
#ifndef AT_ONCE_PEER
static int request_realtime(int p)
{
	struct sched_param sp = { .sched_priority = p };

	return pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
}
#endif

static void ask(void)
{
	if (request_realtime(prio) == 0 &&
	    (bench_kernel_policy() == SCHED_RR || bench_kernel_policy() == SCHED_FIFO))
		__atomic_fetch_add(&shared->granted, 1, __ATOMIC_RELAXED);
}

static void *worker(void *arg)
{
	pthread_barrier_wait(&barrier);
	ask();
	return arg;
}

static int run_threads(int n)
{
	pthread_t *t = calloc((size_t)n, sizeof *t);
	pthread_attr_t a;

	if (!t || pthread_attr_init(&a) || pthread_attr_setstacksize(&a, 64 * 1024) ||
	    pthread_barrier_init(&barrier, NULL, (unsigned)n))
		return 2;
	for (int i = 0; i < n; i++) {
		int e = pthread_create(&t[i], &a, worker, NULL);
		if (e) {
			fprintf(stderr, "pthread_create %d: %s\n", i, strerror(e));
			return 1;
		}
	}
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	note_peak(vmpeak_kb());
	return 0;
}

static int run_procs(int n)
{
	int go[2];

	if (pipe(go))
		return 2;
	for (int i = 0; i < n; i++) {
		pid_t p = fork();
		if (p < 0) {
			perror("fork");
			return 1;
		}
		if (p == 0) {
			char c;
			close(go[1]);
			(void)!read(go[0], &c, 1);
			ask();
			note_peak(vmpeak_kb());
			_exit(0);
		}
	}
	close(go[0]);
	close(go[1]);
	while (wait(NULL) > 0)
		;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3 || (strcmp(argv[1], "threads") && strcmp(argv[1], "procs"))) {
		fprintf(stderr, "usage: at-once threads|procs N [PRIO]\n");
		return 2;
	}
	int n = (int)bench_arg(argc, argv, 2, 0);
	prio = (int)bench_arg(argc, argv, 3, 10);
	if (n < 1 || n > 10000)
		return 2;
	shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		return 2;
	int64_t t0 = raw_now_ns();
	int r = strcmp(argv[1], "procs") == 0 ? run_procs(n) : run_threads(n);
	if (r)
		return r;
	printf("%lld %ld %d\n", (long long)(raw_now_ns() - t0), shared->vmpeak_kb, shared->granted);
	return 0;
}
