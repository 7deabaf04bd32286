/* shim-script — a legacy-style program driven line by line from stdin, so a test can change the
 * stack (stop rtkit, kill the bus, restart a daemon) between two of its requests and read the
 * kernel in between.  Every request is an ordinary libc call (the shim, when preloaded, sees it);
 * each result line is prefixed by the command, e.g.
 *   "self 5: rc=0 err=OK elapsed_ms=3 kernel=RR|RESET 5".
 *
 *   self PRIO        sched_setscheduler(0, SCHED_FIFO, PRIO) on the main thread
 *   drop             sched_setscheduler(0, SCHED_OTHER, 0) on the main thread
 *   thread PRIO      a new thread asks pthread_setschedparam(self, SCHED_FIFO, PRIO), reports
 *                    ("tid=N" too) and stays alive
 *   runaway PRIO     like thread, and then the thread waits for spin
 *   spin             the runaway thread runs without ever blocking until it is no longer
 *                    realtime (the runaway guard, or the kernel), reports "runaway
 *                    ended tid=N kernel=..." and parks
 *   cycle N PRIO     N times: acquire FIFO/PRIO then drop, on the main thread; counts results
 *   fork PRIO        fork: the child reports the policy it started with, asks FIFO/PRIO itself
 *                    and exits 0 if granted (SIGALRM after 10 s: hung); the parent reports.
 *                    After fill, the child first runs checkfill ("fork P: child descriptors=...")
 *   fork-stress N P  a thread keeps acquiring and dropping FIFO/P (a D-Bus call each time) while
 *                    the main thread forks N children that each ask FIFO/P; a child stuck on
 *                    a lock inherited from the fork dies of SIGALRM, 5 s after the shim's
 *                    timeout (RTSHIM_TIMEOUT_MS)
 *   fork-workers N P the same, but the children are a pre-forking server's workers: each asks
 *                    nothing, counts the sockets it holds (/proc/self/fd) and exits with that
 *                    count; "forks=N with_socket=K ..." (K children held any)
 *   closefds         close every descriptor above 2, as a daemon does
 *   fill N           N socketpairs (they take the lowest free numbers); one byte is queued
 *                    towards each of the 2N descriptors
 *   checkfill        each of those descriptors: still the same socket, exactly that one byte
 *                    queued, nothing written towards its peer
 *   exec PATH ARGS   execv (e.g. this program again)
 *   reap             what a program that waits for all its children does: waitpid(-1) until it
 *                    fails (SIGALRM after 10 s: EINTR); "reap: reaped=N err=E elapsed_ms=M"
 *   sleep MS         nanosleep
 *   nice N           setpriority(PRIO_PROCESS, 0, N) on the main thread, and the kernel's nice
 *   waitchild        waitpid(-1, WNOHANG): a child the program could see ("err=ECHILD": none)
 *   policy           the main thread's policy as the program reads it (sched_getscheduler,
 *                    "|RESET": with the reset-on-fork bit) beside the kernel's
 * "pid N" first, then "ready" (and after each command its result lines); "done" at EOF. */
#include <semaphore.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "probe.h"

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char *kernel_of(pid_t tid)
{
	static __thread char buf[48];
	snprintf(buf, sizeof buf, "%s %d", probe_policy(probe_kernel_policy(tid)),
		 probe_kernel_prio(tid));
	return buf;
}

static int fifo(pid_t pid, int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	return sched_setscheduler(pid, SCHED_FIFO, &sp) == 0 ? 0 : errno;
}

static int other(void)
{
	struct sched_param sp = { .sched_priority = 0 };
	return sched_setscheduler(0, SCHED_OTHER, &sp) == 0 ? 0 : errno;
}

static void cmd_self(const char *pfx, int prio)
{
	long long t0 = now_ms();
	int e = fifo(0, prio);
	probe_say("%src=%d err=%s elapsed_ms=%lld kernel=%s", pfx, e ? -1 : 0, probe_errname(e),
		  now_ms() - t0, kernel_of(probe_gettid()));
}

static void cmd_drop(const char *pfx)
{
	int e = other();
	probe_say("%src=%d err=%s kernel=%s", pfx, e ? -1 : 0, probe_errname(e),
		  kernel_of(probe_gettid()));
}

struct thread_req {
	int prio;
	bool runaway;
	const char *pfx;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int done;
};

static sem_t spin_go;

static void spin_until_demoted(void)
{
	sem_wait(&spin_go);
	for (;;) {
		int pol = probe_kernel_policy(probe_gettid()) & ~SCHED_RESET_ON_FORK;
		if (pol != SCHED_FIFO && pol != SCHED_RR)
			break;
	}
	probe_say("runaway ended tid=%d kernel=%s", (int)probe_gettid(), kernel_of(probe_gettid()));
}

static void *thread_body(void *p)
{
	struct thread_req *r = p;
	struct sched_param sp = { .sched_priority = r->prio };
	long long t0 = now_ms();
	int e = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	probe_say("%src=%d err=%s elapsed_ms=%lld tid=%d kernel=%s", r->pfx, e, probe_errname(e),
		  now_ms() - t0, (int)probe_gettid(), kernel_of(probe_gettid()));
	bool runaway = r->runaway;
	pthread_mutex_lock(&r->lock);
	r->done = 1;
	pthread_cond_signal(&r->cond);
	pthread_mutex_unlock(&r->lock);
	if (runaway)
		spin_until_demoted();
	probe_park();
	return NULL;
}

static void cmd_thread(const char *pfx, int prio, bool runaway)
{
	struct thread_req r = { .prio = prio, .runaway = runaway, .pfx = pfx };
	pthread_t t;
	pthread_mutex_init(&r.lock, NULL);
	pthread_cond_init(&r.cond, NULL);
	int e = pthread_create(&t, NULL, thread_body, &r);
	if (e) {
		probe_say("%spthread_create failed: %s", pfx, probe_errname(e));
		return;
	}
	pthread_detach(t);
	pthread_mutex_lock(&r.lock);
	while (!r.done)
		pthread_cond_wait(&r.cond, &r.lock);
	pthread_mutex_unlock(&r.lock);
}

static void cmd_cycle(const char *pfx, int n, int prio)
{
	int ok = 0, eperm = 0, other_err = 0, first_fail = 0;
	for (int i = 0; i < n; i++) {
		int e = fifo(0, prio);
		if (!e)
			ok++;
		else if (e == EPERM)
			eperm++;
		else
			other_err++;
		if (e && !first_fail)
			first_fail = i + 1;
		other();
	}
	probe_say("%scycles=%d ok=%d eperm=%d other=%d first_failure=%d kernel=%s", pfx, n, ok, eperm,
		  other_err, first_fail, kernel_of(probe_gettid()));
}

#define MAX_FILL 32
static int fill_fd[2 * MAX_FILL];
static ino_t fill_ino[2 * MAX_FILL];
static int fill_n;

static void cmd_checkfill(const char *pfx);

static void cmd_fork(const char *pfx, int prio)
{
	fflush(stdout);
	pid_t child = fork();
	if (child < 0) {
		probe_say("%sfork failed: %s", pfx, probe_errname(errno));
		return;
	}
	if (child == 0) {
		alarm(10);
		const char *start = probe_policy(probe_kernel_policy(probe_gettid()));
		probe_say("%schild pid=%d started=%s", pfx, (int)getpid(), start);
		if (fill_n) {
			char cpfx[640];
			snprintf(cpfx, sizeof cpfx, "%schild ", pfx);
			cmd_checkfill(cpfx);
		}
		int e = fifo(0, prio);
		probe_say("%schild rc=%d err=%s kernel=%s", pfx, e ? -1 : 0, probe_errname(e),
			  kernel_of(probe_gettid()));
		_exit(e ? 1 : 0);
	}
	int status;
	waitpid(child, &status, 0);
	if (WIFEXITED(status))
		probe_say("%schild exit=%d", pfx, WEXITSTATUS(status));
	else
		probe_say("%schild signal=%d", pfx, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

static volatile int stress_stop;
static long stress_calls, stress_failed;
static int stress_prio;

static void *stress_body(void *p)
{
	(void)p;
	while (!__atomic_load_n(&stress_stop, __ATOMIC_RELAXED)) {
		/* not RT before the acquire, so each acquire is a request to rtkit */
		if (fifo(0, stress_prio))
			__atomic_add_fetch(&stress_failed, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&stress_calls, 1, __ATOMIC_RELAXED);
		other();
	}
	return NULL;
}

/* How many sockets this process holds. */
static int count_sockets(void)
{
	char path[64], target[64];
	int n = 0;
	for (int fd = 0; fd < 1024; fd++) {
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		ssize_t len = readlink(path, target, sizeof target - 1);
		if (len > 0 && !strncmp(target, "socket:", 7))
			n++;
	}
	return n;
}

static void cmd_fork_stress(const char *pfx, int n, int prio, bool workers)
{
	int ok = 0, refused = 0, hung = 0, died = 0, with_socket = 0;
	pthread_t t;
	/* a child waits for rtkit's answer up to the shim's timeout: a hang is a child still
	 * waiting 5 s after that (a lock inherited from the fork) */
	const char *ms = getenv("RTSHIM_TIMEOUT_MS");
	unsigned hang_after_s = (ms ? (unsigned)atoi(ms) : 500) / 1000 + 5;
	stress_prio = prio;
	__atomic_store_n(&stress_stop, 0, __ATOMIC_RELAXED);
	stress_calls = stress_failed = 0;
	if (pthread_create(&t, NULL, stress_body, NULL)) {
		probe_say("%spthread_create failed", pfx);
		return;
	}
	while (__atomic_load_n(&stress_calls, __ATOMIC_RELAXED) < 1)
		usleep(1000);
	fflush(stdout);
	for (int i = 0; i < n; i++) {
		pid_t child = fork();
		if (child < 0)
			break;
		if (child == 0) {
			alarm(hang_after_s);
			if (workers)
				_exit(count_sockets() > 0);
			_exit(fifo(0, prio) == 0 ? 0 : 1);
		}
		int status;
		waitpid(child, &status, 0);
		if (WIFEXITED(status) && workers)
			WEXITSTATUS(status) ? with_socket++ : ok++;
		else if (WIFEXITED(status))
			WEXITSTATUS(status) == 0 ? ok++ : refused++;
		else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
			hung++;
		else
			died++;
		usleep((useconds_t)(rand() % 3000));
	}
	__atomic_store_n(&stress_stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	if (workers)
		probe_say("%sforks=%d with_socket=%d child_died=%d bg_calls=%ld bg_failed=%ld", pfx, n,
			  with_socket, hung + died, stress_calls, stress_failed);
	else
		probe_say("%sforks=%d child_ok=%d child_refused=%d child_hung=%d child_died=%d bg_calls=%ld bg_failed=%ld",
			  pfx, n, ok, refused, hung, died, stress_calls, stress_failed);
}

static void cmd_closefds(const char *pfx)
{
	int n = 0;
	for (int fd = 3; fd < 1024; fd++)
		if (close(fd) == 0)
			n++;
	fill_n = 0; /* what fill opened is gone too */
	probe_say("%sclosed=%d", pfx, n);
}


static void cmd_fill(const char *pfx, int n)
{
	if (n > MAX_FILL)
		n = MAX_FILL;
	for (int i = 0; i < n; i++) {
		int sv[2];
		struct stat st;
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
			break;
		for (int k = 0; k < 2; k++) {
			fstat(sv[k], &st);
			fill_fd[fill_n] = sv[k];
			fill_ino[fill_n++] = st.st_ino;
		}
		/* one byte queued towards each end */
		if (write(sv[0], "x", 1) != 1 || write(sv[1], "y", 1) != 1)
			probe_say("%swrite failed", pfx);
	}
	char list[512] = "";
	size_t len = 0;
	for (int i = 0; i < fill_n && len < sizeof list - 8; i++)
		len += (size_t)snprintf(list + len, sizeof list - len, " %d", fill_fd[i]);
	probe_say("%sfds=%s", pfx, list);
}

static void cmd_checkfill(const char *pfx)
{
	int replaced = 0, stray = 0, missing = 0;
	for (int i = 0; i < fill_n; i++) {
		struct stat st;
		if (fstat(fill_fd[i], &st) < 0 || st.st_ino != fill_ino[i]) {
			replaced++;
			continue;
		}
		/* exactly the one byte the peer queued: none taken, none added */
		char buf[256];
		ssize_t got = recv(fill_fd[i], buf, sizeof buf, MSG_DONTWAIT | MSG_PEEK);
		char want = (i % 2 == 0) ? 'y' : 'x';
		if (got < 1 || buf[0] != want)
			missing++;
		if (got > 1)
			stray += (int)got - 1;
	}
	probe_say("%sdescriptors=%d replaced_or_closed=%d bytes_missing=%d stray_bytes=%d", pfx,
		  fill_n, replaced, missing, stray);
}

static void cmd_nice(const char *pfx, int n)
{
	int e = setpriority(PRIO_PROCESS, 0, n) == 0 ? 0 : errno;
	errno = 0;
	int now = getpriority(PRIO_PROCESS, 0);
	probe_say("%src=%d err=%s nice=%d", pfx, e ? -1 : 0, probe_errname(e), now);
}

static void cmd_waitchild(const char *pfx)
{
	int status;
	pid_t r = waitpid(-1, &status, WNOHANG);
	probe_say("%src=%d err=%s", pfx, (int)r, probe_errname(r < 0 ? errno : 0));
}

static void cmd_policy(const char *pfx)
{
	char read[32];
	snprintf(read, sizeof read, "%s", probe_policy(sched_getscheduler(0)));
	probe_say("%sread=%s kernel=%s", pfx, read, kernel_of(probe_gettid()));
}

static void on_alarm(int sig)
{
	(void)sig;
}

static void cmd_reap(const char *pfx)
{
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	long long t0 = now_ms();
	int reaped = 0, status, e;
	sigaction(SIGALRM, &sa, &old); /* no SA_RESTART: the wait ends with EINTR */
	alarm(10);
	while (waitpid(-1, &status, 0) > 0)
		reaped++;
	e = errno;
	alarm(0);
	sigaction(SIGALRM, &old, NULL);
	probe_say("%sreaped=%d err=%s elapsed_ms=%lld", pfx, reaped, probe_errname(e), now_ms() - t0);
}

static int parse(const char *s, int *out)
{
	char *end;
	if (!s)
		return -1;
	long v = strtol(s, &end, 10);
	if (end == s || *end)
		return -1;
	*out = (int)v;
	return 0;
}

int main(void)
{
	char line[512];
	probe_start();
	sem_init(&spin_go, 0, 0);
	probe_say("ready");
	while (fgets(line, sizeof line, stdin)) {
		char *argv[16] = { 0 }, pfx[600], *save = NULL, *tok;
		int argc = 0, a, b;
		line[strcspn(line, "\n")] = 0;
		snprintf(pfx, sizeof pfx, "%s: ", line);
		for (tok = strtok_r(line, " \t", &save); tok && argc < 15; tok = strtok_r(NULL, " \t", &save))
			argv[argc++] = tok;
		if (!argc)
			continue;
		if (!strcmp(argv[0], "self") && !parse(argv[1], &a))
			cmd_self(pfx, a);
		else if (!strcmp(argv[0], "drop"))
			cmd_drop(pfx);
		else if (!strcmp(argv[0], "thread") && !parse(argv[1], &a))
			cmd_thread(pfx, a, false);
		else if (!strcmp(argv[0], "runaway") && !parse(argv[1], &a))
			cmd_thread(pfx, a, true);
		else if (!strcmp(argv[0], "spin"))
			sem_post(&spin_go);
		else if (!strcmp(argv[0], "cycle") && !parse(argv[1], &a) && !parse(argv[2], &b))
			cmd_cycle(pfx, a, b);
		else if (!strcmp(argv[0], "fork") && !parse(argv[1], &a))
			cmd_fork(pfx, a);
		else if (!strcmp(argv[0], "fork-stress") && !parse(argv[1], &a) && !parse(argv[2], &b))
			cmd_fork_stress(pfx, a, b, false);
		else if (!strcmp(argv[0], "fork-workers") && !parse(argv[1], &a) && !parse(argv[2], &b))
			cmd_fork_stress(pfx, a, b, true);
		else if (!strcmp(argv[0], "closefds"))
			cmd_closefds(pfx);
		else if (!strcmp(argv[0], "fill") && !parse(argv[1], &a))
			cmd_fill(pfx, a);
		else if (!strcmp(argv[0], "checkfill"))
			cmd_checkfill(pfx);
		else if (!strcmp(argv[0], "nice") && !parse(argv[1], &a))
			cmd_nice(pfx, a);
		else if (!strcmp(argv[0], "waitchild"))
			cmd_waitchild(pfx);
		else if (!strcmp(argv[0], "policy"))
			cmd_policy(pfx);
		else if (!strcmp(argv[0], "reap"))
			cmd_reap(pfx);
		else if (!strcmp(argv[0], "sleep") && !parse(argv[1], &a))
			usleep((useconds_t)a * 1000);
		else if (!strcmp(argv[0], "exec") && argc >= 2) {
			fflush(stdout);
			execv(argv[1], argv + 1);
			probe_say("%sexec failed: %s", pfx, probe_errname(errno));
		} else
			probe_say("%sunknown command", pfx);
	}
	probe_say("done");
	return 0;
}
