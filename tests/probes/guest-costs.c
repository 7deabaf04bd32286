/* guest-costs — what a realtime request costs the program around it, in what the kernel counts:
 * address space, locked memory, descriptors, fork time.  Run with and without the shim; the
 * bats suite compares the two.  A request is pthread_setschedparam(self, SCHED_FIFO, PRIO).
 *
 *   guest-costs vm N PRIO       N threads with 64 KiB stacks that never called malloc each ask
 *                               for themselves (all at once), then wait; prints "vm before KB"
 *                               (VmSize once the threads exist), "vm after KB" (once all
 *                               asked), "rt N" (how many the kernel shows realtime)
 *   guest-costs mlock PRIO      a 64 KiB-stack worker that never called malloc asks, then the
 *                               main thread calls mlockall(MCL_CURRENT | MCL_FUTURE): prints
 *                               "worker POLICY", "mlockall rc=R err=E"
 *   guest-costs nofile PRIO     RLIMIT_NOFILE set to exactly the descriptors open and the
 *                               program's two files, a request, then two opens of /dev/null:
 *                               "opens A B" (-1: EMFILE)
 *   guest-costs daemon PRIO     closes 0, 1 and 2, asks, opens /dev/null three times, reads 0:
 *                               "opens A B C read R err=E" (on a descriptor kept above them)
 *   guest-costs atfork N PRIO   fork handlers that drop realtime in prepare and ask again in
 *                               parent and child, registered before the first request; a
 *                               request; N forks: "forks N max_us U total_us T" and
 *                               "grant_us G" (the first request's time) */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

#include "probe.h"

static int prio = 10;

static long vm_kb(void)
{
	char line[128];
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, "VmSize:", 7))
			v = atol(line + 7);
	if (f)
		fclose(f);
	return v;
}

static long long now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int ask(void)
{
	struct sched_param sp = { .sched_priority = prio };
	return pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
}

/* futex-free start line and finish count: the workers touch no malloc, no stdio */
static int go, asked, rt;

static void *worker(void *p)
{
	(void)p;
	while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
		sched_yield();
	(void)ask();
	int pol = (int)syscall(SYS_sched_getscheduler, 0);
	if ((pol & ~SCHED_RESET_ON_FORK) == SCHED_RR || (pol & ~SCHED_RESET_ON_FORK) == SCHED_FIFO)
		__atomic_add_fetch(&rt, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&asked, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&go, __ATOMIC_ACQUIRE) != 2)
		usleep(1000);
	return NULL;
}

static pthread_t start_small(void)
{
	pthread_attr_t a;
	pthread_t t;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 * 1024);
	if (pthread_create(&t, &a, worker, NULL)) {
		perror("pthread_create");
		exit(2);
	}
	pthread_attr_destroy(&a);
	return t;
}

static void wait_asked(int n)
{
	while (__atomic_load_n(&asked, __ATOMIC_ACQUIRE) < n)
		usleep(1000);
}

static int cmd_vm(int n)
{
	pthread_t t[256];
	if (n < 1 || n > 256)
		return 2;
	for (int i = 0; i < n; i++)
		t[i] = start_small();
	printf("vm before %ld\n", vm_kb());
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	wait_asked(n);
	printf("vm after %ld\n", vm_kb());
	printf("rt %d\n", __atomic_load_n(&rt, __ATOMIC_RELAXED));
	__atomic_store_n(&go, 2, __ATOMIC_RELEASE);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}

static int cmd_mlock(void)
{
	pthread_t t = start_small();
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	wait_asked(1);
	printf("worker %s\n", rt ? "realtime" : "other");
	int r = mlockall(MCL_CURRENT | MCL_FUTURE);
	printf("mlockall rc=%d err=%s\n", r, r ? probe_errname(errno) : "OK");
	__atomic_store_n(&go, 2, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	return 0;
}

static int cmd_nofile(void)
{
	int highest = 2;
	for (int fd = 3; fd < 1024; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			highest = fd;
	struct rlimit rl = { (rlim_t)highest + 3, (rlim_t)highest + 3 };
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return 2;
	int r = ask();
	int a = open("/dev/null", O_RDONLY), b = open("/dev/null", O_RDONLY);
	printf("request %s\nopens %d %d\n", probe_errname(r), a, b);
	return 0;
}

static int cmd_daemon(void)
{
	int report = fcntl(1, F_DUPFD_CLOEXEC, 10);
	if (report < 0)
		return 2;
	close(0);
	close(1);
	close(2);
	int r = ask();
	int a = open("/dev/null", O_RDWR), b = open("/dev/null", O_RDWR), c = open("/dev/null", O_RDWR);
	char byte;
	ssize_t n = read(0, &byte, 1);
	dprintf(report, "request %s\nopens %d %d %d read %zd err=%s\n", probe_errname(r), a, b, c, n,
		n < 0 ? probe_errname(errno) : "OK");
	return 0;
}

static void drop(void)
{
	struct sched_param sp = { .sched_priority = 0 };
	(void)pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
}

static void ask_again(void)
{
	(void)ask();
}

static int cmd_atfork(int n)
{
	pthread_atfork(drop, ask_again, ask_again);
	long long t0 = now_us();
	int r = ask();
	printf("grant_us %lld (%s)\n", now_us() - t0, probe_errname(r));
	long long max = 0, total = 0;
	for (int i = 0; i < n; i++) {
		long long t = now_us();
		pid_t child = fork();
		if (child < 0)
			return 2;
		if (child == 0)
			_exit(0);
		long long took = now_us() - t;
		int st;
		waitpid(child, &st, 0);
		total += took;
		if (took > max)
			max = took;
	}
	printf("forks %d max_us %lld total_us %lld\n", n, max, total);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 3)
		return 2;
	const char *cmd = argv[1];
	int n = atoi(argv[2]);
	prio = atoi(argv[argc - 1]);
	if (!strcmp(cmd, "vm") && argc == 4)
		return cmd_vm(n);
	if (!strcmp(cmd, "mlock"))
		return cmd_mlock();
	if (!strcmp(cmd, "nofile"))
		return cmd_nofile();
	if (!strcmp(cmd, "daemon"))
		return cmd_daemon();
	if (!strcmp(cmd, "atfork") && argc == 4)
		return cmd_atfork(n);
	return 2;
}
