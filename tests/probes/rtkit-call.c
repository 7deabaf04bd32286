/* rtkit-call — drive the daemon client (daemon-client/) by hand or from tests/bats/client.bats.
 * Linked with the client's objects, as the shim and rtrun are (see its rule in the Makefile).
 *
 *   rtkit-call [--timeout MS] COMMAND [ARGS]
 *     limits            max_realtime_priority=20 min_nice_level=-15 rttime_usec_max=200000
 *     self PRIO         ask RT for our own main thread (gettid()), then read it from the kernel
 *     thread PRIO       a second thread asks RT for itself
 *     pid PID TID PRIO  MakeThreadRealtimeWithPID for another process of the same user
 *     nice NICE         MakeThreadHighPriority for our own main thread
 *     repeat N PRIO     N requests for our main thread; counts per result (rtkit's burst limit)
 *     hold N PRIO       N threads ask RT one after the other; then "ready", wait for stdin EOF
 *     fork PRIO         connect, fork: the child asks for itself on its own connection, then
 *                       the parent asks again on its own
 *     fork-stress N     a thread keeps calling while the main thread forks N children that
 *                       each call; a child hung on a lock dies of SIGALRM
 *     cloexec           after a call, the sockets we hold (none) and their FD_CLOEXEC
 *     script            commands from stdin, one a line (limits, self, nice, thread, pid,
 *                       timeout MS, wait-file PATH); each result prefixed by the command
 *
 * The timeout: --timeout MS, else RTSHIM_TIMEOUT_MS from the environment (as the shim reads
 * it), else the client's default.
 * A request prints "ok" or "error ENAME: explanation", then "elapsed_ms=N", then the kernel's
 * view of the thread: "kernel=SCHED_RR|SCHED_RESET_ON_FORK 10" (nice: also "nice=N").
 * Exit status: 0 success, 1 an rtkit error, 2 usage.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "probe.h"
#include "rtkit-client.h"

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif

static const struct rtshim_client_v1 *api = &rtshim_client_v1;
static int timeout_ms;

/* the client's errors come negative */
static const char *errname(int e)
{
	return probe_errname(e < 0 ? -e : e);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static pid_t my_tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* "SCHED_RR|SCHED_RESET_ON_FORK 10", from the kernel, bypassing any interposer. */
static const char *kernel_sched(pid_t tid, char *buf, size_t len)
{
	struct sched_param sp = { 0 };
	const char *base;
	int p = kernel_view_policy(tid);

	if (p < 0 || (sp.sched_priority = kernel_view_prio(tid)) < 0) {
		snprintf(buf, len, "error %s", errname(errno));
		return buf;
	}
	switch (p & ~SCHED_RESET_ON_FORK) {
	case SCHED_OTHER: base = "SCHED_OTHER"; break;
	case SCHED_FIFO: base = "SCHED_FIFO"; break;
	case SCHED_RR: base = "SCHED_RR"; break;
	case SCHED_BATCH: base = "SCHED_BATCH"; break;
	case SCHED_IDLE: base = "SCHED_IDLE"; break;
	default: base = "SCHED_?"; break;
	}
	snprintf(buf, len, "%s%s %d", base, (p & SCHED_RESET_ON_FORK) ? "|SCHED_RESET_ON_FORK" : "",
		 sp.sched_priority);
	return buf;
}

static void report(const char *prefix, int r, long long elapsed)
{
	if (r == 0)
		printf("%sok\n", prefix);
	else
		printf("%serror %s: %s\n", prefix, errname(r), api->strerror(r));
	printf("%selapsed_ms=%lld\n", prefix, elapsed);
}

static void report_kernel(const char *prefix, pid_t tid)
{
	char buf[64];

	printf("%skernel=%s\n", prefix, kernel_sched(tid, buf, sizeof(buf)));
}

static int parse_int(const char *s, int *out)
{
	char *end;
	long v;

	if (!s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < INT_MIN || v > INT_MAX)
		return -1;
	*out = (int)v;
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: rtkit-call [--timeout MS] "
		"limits|self PRIO|thread PRIO|pid PID TID PRIO|nice NICE|repeat N PRIO|"
		"hold N PRIO|fork PRIO|fork-stress N|cloexec|script\n");
	return 2;
}

static int cmd_limits(const char *prefix)
{
	struct rtkit_limits l;
	long long t0 = now_ms();
	int r = api->get_limits(&l);

	if (r < 0) {
		report(prefix, r, now_ms() - t0);
		return 1;
	}
	printf("%smax_realtime_priority=%d min_nice_level=%d rttime_usec_max=%lld\n", prefix,
	       (int)l.max_realtime_priority, (int)l.min_nice_level,
	       (long long)l.rttime_usec_max);
	return 0;
}

static int cmd_self(const char *prefix, int prio)
{
	long long t0 = now_ms();
	int r = api->make_realtime(0, my_tid(), prio);

	report(prefix, r, now_ms() - t0);
	report_kernel(prefix, my_tid());
	return r < 0;
}

static int cmd_pid(const char *prefix, int pid, int tid, int prio)
{
	long long t0 = now_ms();
	int r = api->make_realtime(pid, tid, prio);

	report(prefix, r, now_ms() - t0);
	report_kernel(prefix, tid);
	return r < 0;
}

static int cmd_nice(const char *prefix, int nice)
{
	long long t0 = now_ms();
	int r = api->make_high_priority(0, my_tid(), nice);

	report(prefix, r, now_ms() - t0);
	report_kernel(prefix, my_tid());
	errno = 0;
	printf("%snice=%d\n", prefix, getpriority(PRIO_PROCESS, (id_t)my_tid()));
	return r < 0;
}

struct thread_req {
	int prio;
	int result;
	pid_t tid;
	long long elapsed;
	pthread_mutex_t lock;
	pthread_cond_t done;
	int finished;
};

static void *req_thread(void *arg)
{
	struct thread_req *t = arg;
	long long t0 = now_ms();

	t->tid = my_tid();
	t->result = api->make_realtime(0, t->tid, t->prio);
	t->elapsed = now_ms() - t0;
	pthread_mutex_lock(&t->lock);
	t->finished = 1;
	pthread_cond_signal(&t->done);
	pthread_mutex_unlock(&t->lock);
	/* Stay alive (and RT) until the process ends. */
	for (;;)
		pause();
	return NULL;
}

/* Start a thread that asks RT for itself; wait for its answer. */
static int start_req_thread(struct thread_req *t, int prio)
{
	pthread_t th;

	*t = (struct thread_req){ .prio = prio };
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->done, NULL);
	if (pthread_create(&th, NULL, req_thread, t) != 0)
		return -1;
	pthread_detach(th);
	pthread_mutex_lock(&t->lock);
	while (!t->finished)
		pthread_cond_wait(&t->done, &t->lock);
	pthread_mutex_unlock(&t->lock);
	return 0;
}

static int cmd_thread(const char *prefix, int prio)
{
	struct thread_req t;

	if (start_req_thread(&t, prio) < 0)
		return 2;
	report(prefix, t.result, t.elapsed);
	report_kernel(prefix, t.tid);
	return t.result < 0;
}

static int cmd_hold(int n, int prio)
{
	struct thread_req *t = calloc((size_t)n, sizeof(*t));
	int granted = 0, i;

	if (!t)
		return 2;
	for (i = 0; i < n; i++) {
		if (start_req_thread(&t[i], prio) < 0)
			return 2;
		if (t[i].result == 0) {
			granted++;
			printf("thread %d tid=%d ok\n", i + 1, (int)t[i].tid);
		} else {
			printf("thread %d tid=%d error %s: %s\n", i + 1, (int)t[i].tid,
			       errname(t[i].result), api->strerror(t[i].result));
		}
	}
	printf("pid=%d granted=%d failed=%d\n", (int)getpid(), granted, n - granted);
	probe_wait();
	return granted == n ? 0 : 1;
}

static int cmd_repeat(int n, int prio)
{
	int counts[256] = { 0 }, i, r, first_fail = 0;

	for (i = 0; i < n; i++) {
		r = api->make_realtime(0, my_tid(), prio);
		counts[r == 0 ? 0 : (-r > 0 && -r < 255 ? -r : 255)]++;
		if (r < 0 && !first_fail)
			first_fail = i + 1;
	}
	printf("requests=%d", n);
	for (i = 0; i < 256; i++)
		if (counts[i])
			printf(" %s=%d", errname(i), counts[i]);
	printf(" first_failure=%d\n", first_fail);
	return counts[0] == n ? 0 : 1;
}

static int cmd_fork(int prio)
{
	struct rtkit_limits l;
	int r, status;
	pid_t child;

	/* Open the connection in the parent first. */
	r = api->get_limits(&l);
	if (r < 0) {
		report("parent ", r, 0);
		return 1;
	}
	fflush(stdout);
	child = fork();
	if (child < 0)
		return 2;
	if (child == 0) {
		alarm(30); /* longer than any request's timeout in the suites (10 s) */
		_exit(cmd_self("child ", prio));
	}
	if (waitpid(child, &status, 0) < 0)
		return 2;
	if (!WIFEXITED(status)) {
		printf("child died: signal %d\n", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
		return 1;
	}
	/* The parent's connection must have survived the child. */
	return cmd_self("parent ", prio) || WEXITSTATUS(status) != 0;
}

static volatile int stress_stop;
static long stress_calls, stress_unexpected;

static void *stress_thread(void *arg)
{
	pid_t tid = my_tid();

	(void)arg;
	/* Priority 0 is refused by rtkit (EINVAL) after a full round trip through the bus and
	 * polkit; it does not count against rtkit's per-user burst limit. */
	while (!__atomic_load_n(&stress_stop, __ATOMIC_RELAXED)) {
		int r = api->make_realtime(0, tid, 0);

		__atomic_add_fetch(&stress_calls, 1, __ATOMIC_RELAXED);
		if (r != -EINVAL && __atomic_add_fetch(&stress_unexpected, 1, __ATOMIC_RELAXED) == 1)
			fprintf(stderr, "first unexpected: %s\n", errname(r));
	}
	return NULL;
}

static int cmd_fork_stress(int n)
{
	int ok = 0, failed = 0, hung = 0, i, status;
	pthread_t th;

	if (pthread_create(&th, NULL, stress_thread, NULL) != 0)
		return 2;
	/* Let the thread get going. */
	while (__atomic_load_n(&stress_calls, __ATOMIC_RELAXED) < 1)
		usleep(1000);
	for (i = 0; i < n; i++) {
		pid_t child = fork();

		if (child < 0)
			return 2;
		if (child == 0) {
			/* a child stuck on an inherited lock dies of SIGALRM; a slow answer on a busy
			 * machine comes within the request's timeout (10 s in the suites) */
			alarm(30);
			_exit(api->make_realtime(0, my_tid(), 0) == -EINVAL ? 0 : 1);
		}
		if (waitpid(child, &status, 0) < 0)
			return 2;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			ok++;
		else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
			hung++;
		else
			failed++;
		usleep((useconds_t)(rand() % 3000));
	}
	__atomic_store_n(&stress_stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	printf("forks=%d child_ok=%d child_failed=%d child_hung=%d bg_calls=%ld bg_unexpected=%ld\n",
	       n, ok, failed, hung, stress_calls, stress_unexpected);
	return ok == n && stress_unexpected == 0 ? 0 : 1;
}

static int cmd_cloexec(void)
{
	struct rtkit_limits l;
	char path[64], link[256];
	struct dirent *e;
	int sockets = 0, without = 0, r;
	DIR *d;

	r = api->get_limits(&l);
	if (r < 0) {
		report("", r, 0);
		return 1;
	}
	d = opendir("/proc/self/fd");
	if (!d)
		return 2;
	while ((e = readdir(d))) {
		int fd, flags;
		ssize_t len;

		if (parse_int(e->d_name, &fd) < 0 || fd == dirfd(d))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		len = readlink(path, link, sizeof(link) - 1);
		if (len < 0)
			continue;
		link[len] = 0;
		if (strncmp(link, "socket:", 7) != 0)
			continue;
		flags = fcntl(fd, F_GETFD);
		sockets++;
		without += !(flags & FD_CLOEXEC);
		printf("socket fd=%d cloexec=%s\n", fd, flags & FD_CLOEXEC ? "yes" : "no");
	}
	closedir(d);
	printf("sockets=%d without_cloexec=%d\n", sockets, without);
	return sockets == 0 ? 0 : 1;
}

static void wait_file(const char *path)
{
	struct stat st;

	for (int i = 0; i < 600 && stat(path, &st) < 0; i++)
		usleep(50000);
}

/* One command per line from stdin; results prefixed by "<command>: ". */
static int cmd_script(void)
{
	char line[512];

	while (fgets(line, sizeof(line), stdin)) {
		char *argv[8] = { 0 }, prefix[600];
		int argc = 0, a = 0, b = 0, c = 0;
		char *save = NULL, *tok;

		line[strcspn(line, "\n")] = 0;
		snprintf(prefix, sizeof(prefix), "%s: ", line);
		for (tok = strtok_r(line, " \t", &save); tok && argc < 7;
		     tok = strtok_r(NULL, " \t", &save))
			argv[argc++] = tok;
		if (argc == 0)
			continue;
		if (!strcmp(argv[0], "limits"))
			cmd_limits(prefix);
		else if (!strcmp(argv[0], "self") && !parse_int(argv[1], &a))
			cmd_self(prefix, a);
		else if (!strcmp(argv[0], "thread") && !parse_int(argv[1], &a))
			cmd_thread(prefix, a);
		else if (!strcmp(argv[0], "nice") && !parse_int(argv[1], &a))
			cmd_nice(prefix, a);
		else if (!strcmp(argv[0], "pid") && !parse_int(argv[1], &a) &&
			 !parse_int(argv[2], &b) && !parse_int(argv[3], &c))
			cmd_pid(prefix, a, b, c);
		else if (!strcmp(argv[0], "timeout") && !parse_int(argv[1], &a))
			api->set_timeout_ms(a);
		else if (!strcmp(argv[0], "wait-file") && argv[1])
			wait_file(argv[1]);
		else
			printf("%sunknown command\n", prefix);
		fflush(stdout);
	}
	printf("done\n");
	return 0;
}

int main(int argc, char **argv)
{
	int i = 1, a, b, c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while (i < argc && !strncmp(argv[i], "--", 2)) {
		if (!strcmp(argv[i], "--timeout") && i + 1 < argc &&
		    !parse_int(argv[i + 1], &timeout_ms)) {
			i += 2;
		} else {
			return usage();
		}
	}
	if (i >= argc)
		return usage();
	if (!timeout_ms && parse_int(getenv("RTSHIM_TIMEOUT_MS"), &timeout_ms) < 0)
		timeout_ms = 0;
	if (timeout_ms)
		api->set_timeout_ms(timeout_ms);

	const char *cmd = argv[i];
	char **arg = argv + i + 1;
	int nargs = argc - i - 1;

	if (!strcmp(cmd, "limits") && nargs == 0)
		return cmd_limits("");
	if (!strcmp(cmd, "self") && nargs == 1 && !parse_int(arg[0], &a))
		return cmd_self("", a);
	if (!strcmp(cmd, "thread") && nargs == 1 && !parse_int(arg[0], &a))
		return cmd_thread("", a);
	if (!strcmp(cmd, "pid") && nargs == 3 && !parse_int(arg[0], &a) &&
	    !parse_int(arg[1], &b) && !parse_int(arg[2], &c))
		return cmd_pid("", a, b, c);
	if (!strcmp(cmd, "nice") && nargs == 1 && !parse_int(arg[0], &a))
		return cmd_nice("", a);
	if (!strcmp(cmd, "repeat") && nargs == 2 && !parse_int(arg[0], &a) &&
	    !parse_int(arg[1], &b) && a > 0)
		return cmd_repeat(a, b);
	if (!strcmp(cmd, "hold") && nargs == 2 && !parse_int(arg[0], &a) &&
	    !parse_int(arg[1], &b) && a >= 0)
		return cmd_hold(a, b);
	if (!strcmp(cmd, "fork") && nargs == 1 && !parse_int(arg[0], &a))
		return cmd_fork(a);
	if (!strcmp(cmd, "fork-stress") && nargs == 1 && !parse_int(arg[0], &a) && a > 0)
		return cmd_fork_stress(a);
	if (!strcmp(cmd, "cloexec") && nargs == 0)
		return cmd_cloexec();
	if (!strcmp(cmd, "script") && nargs == 0)
		return cmd_script();
	return usage();
}
