/* test-shim-guard.c — the runaway guard's soft limit and SIGXCPU disposition (shim/runaway.c),
 * the refusal backoff (shim/budget.c) and the variables of priority mapping, the runaway guard
 * and inheritance (RTSHIM_PRIO_MAP, RTSHIM_TOP, RTSHIM_RUNAWAY, RTSHIM_INHERIT: core/config.c). */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <string.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "budget.h"
#include "config.h"
#include "prio.h"
#include "runaway.h"

static void test_runaway_soft(void **state)
{
	(void)state;
	assert_true(rtshim_runaway_soft(200000, 200000) == 160000);
	assert_true(rtshim_runaway_soft(RLIM_INFINITY, 200000) == 160000);
	assert_true(rtshim_runaway_soft(100000, 200000) == 100000); /* a lower soft is kept */
	assert_true(rtshim_runaway_soft(5, 5) == 4);
	assert_true(rtshim_runaway_soft(1, 1) == 1);                /* never 0 */
	assert_true(rtshim_runaway_soft(RLIM_INFINITY, RLIM_INFINITY) == RLIM_INFINITY);
	assert_true(rtshim_runaway_soft(3600000000ull, 3600000000ull) == 2880000000ull);
}

static void test_backoff(void **state)
{
	(void)state;
	struct rtshim_backoff b = { 0 };
	assert_true(rtshim_backoff_allows(&b, 0));
	/* a timeout or no daemon teaches nothing */
	rtshim_backoff_record(&b, 1000, -ETIMEDOUT);
	rtshim_backoff_record(&b, 1000, -ENOTCONN);
	assert_true(rtshim_backoff_allows(&b, 1000));
	/* refusals: 1 s, 2 s, 4 s, ... up to the cap */
	rtshim_backoff_record(&b, 1000, -EBUSY);
	assert_false(rtshim_backoff_allows(&b, 1999));
	assert_true(rtshim_backoff_allows(&b, 2000));
	assert_int_equal(b.err, -EBUSY);
	rtshim_backoff_record(&b, 2000, -EPERM);
	assert_false(rtshim_backoff_allows(&b, 3999));
	assert_true(rtshim_backoff_allows(&b, 4000));
	assert_int_equal(b.err, -EPERM);
	int64_t t = 4000;
	for (int i = 0; i < 20; i++) {
		rtshim_backoff_record(&b, t, -EBUSY);
		t = b.until_ms;
	}
	rtshim_backoff_record(&b, t, -EBUSY);
	assert_true(b.until_ms - t == RTSHIM_BACKOFF_MAX_MS);
	/* a success forgets everything */
	rtshim_backoff_record(&b, t, 0);
	assert_true(rtshim_backoff_allows(&b, t));
	rtshim_backoff_record(&b, t, -EBUSY);
	assert_true(b.until_ms - t == RTSHIM_BACKOFF_MIN_MS);
}

/* a flapping priority: the same raise is held back, doubling; another raise is not */
static void test_raise_memo(void **state)
{
	(void)state;
	struct rtshim_raise_memo m = { 0 };
	assert_true(rtshim_raise_allows(&m, 10, 20, 0));
	rtshim_raise_granted(&m, 10, 20, 0);
	assert_false(rtshim_raise_allows(&m, 10, 20, 999));
	assert_true(rtshim_raise_allows(&m, 10, 18, 1));   /* another priority */
	assert_true(rtshim_raise_allows(&m, 11, 20, 1));   /* another thread */
	assert_true(rtshim_raise_allows(&m, 10, 20, 1000));
	rtshim_raise_granted(&m, 10, 20, 1000);
	assert_false(rtshim_raise_allows(&m, 10, 20, 2999));
	assert_true(rtshim_raise_allows(&m, 10, 20, 3000));
	/* another target resets the memory */
	rtshim_raise_granted(&m, 10, 18, 3000);
	assert_true(rtshim_raise_allows(&m, 10, 20, 3001));
	assert_false(rtshim_raise_allows(&m, 10, 18, 3999));
}

static void test_budget_process(void **state)
{
	(void)state;
	int64_t wait = 0;
	rtshim_budget_reset();
	assert_int_equal(rtshim_budget_check(RTSHIM_BUDGET_OWN, &wait), 0);
	rtshim_budget_record(RTSHIM_BUDGET_OWN, -EBUSY);
	assert_int_equal(rtshim_budget_check(RTSHIM_BUDGET_OWN, &wait), -EBUSY);
	assert_true(wait > 0 && wait <= RTSHIM_BACKOFF_MIN_MS);
	/* kinds are independent */
	assert_int_equal(rtshim_budget_check(RTSHIM_BUDGET_OTHER, &wait), 0);
	rtshim_budget_reset();
	assert_int_equal(rtshim_budget_check(RTSHIM_BUDGET_OWN, &wait), 0);
	assert_int_equal(rtshim_budget_check(99, &wait), 0);
}

/* ---- a realtime reader and a SCHED_OTHER writer on one CPU ---- */

static int holding;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* With a write to the memo half done: 100 ms of CPU-bound work, signalled as it starts. */
static void hold_busy(void *arg)
{
	(void)arg;
	__atomic_store_n(&holding, 1, __ATOMIC_RELEASE);
	double end = now_s() + 0.1;
	while (now_s() < end)
		;
}

static void *holder(void *arg)
{
	(void)arg;
	rtshim_budget_locked(hold_busy, NULL);
	return NULL;
}

/* In a child (alarm: a reader that spins forever must fail, not hang the suite): both threads
 * pinned to one CPU; the writer, SCHED_OTHER, is half-way through a write to the memo; the main
 * thread becomes SCHED_FIFO, preempts it and reads the memo.  A spin lock with sched_yield()
 * never lets the writer run again (RT throttling aside: 950 ms); the memo's reader gives up on a
 * write in progress at once and reads nothing held. */
static void test_budget_rt_waiter(void **state)
{
	(void)state;
	struct sched_param fifo = { .sched_priority = 10 };
	if (sched_setscheduler(0, SCHED_FIFO, &fifo) != 0) {
		/* no privilege: this test needs root (tests/run is run as root, as in CI) */
		fail_msg("sched_setscheduler(SCHED_FIFO): %s: run as root", strerror(errno));
	}
	struct sched_param other = { .sched_priority = 0 };
	sched_setscheduler(0, SCHED_OTHER, &other);
	pid_t child = fork();
	if (child == 0) {
		alarm(5);
		cpu_set_t one;
		CPU_ZERO(&one);
		CPU_SET(0, &one);
		sched_setaffinity(0, sizeof one, &one);
		rtshim_budget_reset();
		pthread_t h;
		if (pthread_create(&h, NULL, holder, NULL))
			_exit(3);
		while (!__atomic_load_n(&holding, __ATOMIC_ACQUIRE))
			usleep(1000);
		if (sched_setscheduler(0, SCHED_FIFO, &fifo))
			_exit(4);
		double t0 = now_s();
		int64_t wait;
		rtshim_budget_check(RTSHIM_BUDGET_OWN, &wait);
		double took = now_s() - t0;
		sched_setscheduler(0, SCHED_OTHER, &other);
		pthread_join(h, NULL);
		printf("# realtime reader had its answer after %.0f ms\n", took * 1e3);
		fflush(stdout);
		_exit(took < 0.5 ? 0 : 5); /* a spin lock: 950 ms here, RT throttling's share */
	}
	int st = -1;
	assert_int_equal(waitpid(child, &st, 0), child);
	if (WIFSIGNALED(st))
		fail_msg("the realtime reader never had its answer (killed by signal %d)", WTERMSIG(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void test_config(void **state)
{
	(void)state;
	struct rtshim_config c;
	rtshim_config_defaults(&c);
	assert_int_equal(c.prio_map, RTSHIM_PRIO_CLAMP);
	assert_int_equal(c.prio_top, 0);
	assert_int_equal(c.runaway, RTSHIM_RUNAWAY_DEMOTE);
	assert_false(c.inherit);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_PRIO_MAP", "scale"), 0);
	assert_int_equal(c.prio_map, RTSHIM_PRIO_SCALE);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_PRIO_MAP", "OFFSET"), 0);
	assert_int_equal(c.prio_map, RTSHIM_PRIO_OFFSET);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_PRIO_MAP", "linear"), -EINVAL);
	assert_int_equal(c.prio_map, RTSHIM_PRIO_OFFSET);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_TOP", "70"), 0);
	assert_int_equal(c.prio_top, 70);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_TOP", "0"), -EINVAL);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_TOP", "100"), -EINVAL);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_TOP", "7x"), -EINVAL);
	assert_int_equal(c.prio_top, 70);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_RUNAWAY", "kill"), 0);
	assert_int_equal(c.runaway, RTSHIM_RUNAWAY_KILL);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_RUNAWAY", "ignore"), -EINVAL);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_RUNAWAY", "demote"), 0);
	assert_int_equal(c.runaway, RTSHIM_RUNAWAY_DEMOTE);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_INHERIT", "yes"), 0);
	assert_true(c.inherit);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_INHERIT", "maybe"), -EINVAL);
	assert_true(c.inherit);
}

static volatile sig_atomic_t h_calls;
static void h_one(int sig)
{
	(void)sig;
	h_calls += 1;
}
static void h_ten(int sig)
{
	(void)sig;
	h_calls += 10;
}

/* Does a thread named rtshim-guard run in this process? */
static bool guard_thread_runs(void)
{
	bool found = false;
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	while (d && (e = readdir(d))) {
		char path[300], comm[32] = "";
		snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
		FILE *f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(comm, sizeof comm, f) && !strcmp(comm, "rtshim-guard\n"))
			found = true;
		fclose(f);
	}
	if (d)
		closedir(d);
	return found;
}

/* A thread that blocks SIGXCPU (inherited), publishes its TID, waits to be told to end. */
static void *blocked_thread(void *arg)
{
	pid_t *tid = arg;
	__atomic_store_n(tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	while (__atomic_load_n(tid, __ATOMIC_ACQUIRE) != -1)
		usleep(1000);
	return NULL;
}

/* Once armed, the program's SIGXCPU disposition is the one chained and the one it reads back,
 * while the kernel keeps the guard's handler.  (Last test: it arms the guard in this process.) */
/* Before a grant: the real call, no guard thread. */
static void disposition_before_arm(struct sigaction *a)
{
	struct sigaction k;
	memset(a, 0, sizeof *a);
	sigemptyset(&a->sa_mask);
	a->sa_handler = h_one;
	assert_int_equal(rtshim_runaway_sigaction(a, NULL), 0);
	sigaction(SIGXCPU, NULL, &k);
	assert_ptr_equal(k.sa_handler, h_one);
	assert_false(rtshim_runaway_armed());
	assert_false(guard_thread_runs());
}

/* Armed and granted to this thread: SIGXCPU blocked here is unblocked for real, the program's
 * view of its mask kept. */
static void mask_of_granted_thread(void)
{
	assert_int_equal(rtshim_runaway_arm(160000), 0);
	assert_true(rtshim_runaway_armed());
	assert_false(guard_thread_runs()); /* not before rtkit granted */
	pid_t me = (pid_t)syscall(SYS_gettid);
	rtshim_runaway_granted(me);
	assert_false(guard_thread_runs()); /* SIGXCPU not blocked here: the handler suffices */
	/* blocked in the granted thread itself: unblocked for real, the program's view kept */
	sigset_t xcpu, was, now;
	sigemptyset(&xcpu);
	sigaddset(&xcpu, SIGXCPU);
	pthread_sigmask(SIG_BLOCK, &xcpu, &was);
	rtshim_runaway_granted(me);
	assert_false(guard_thread_runs());
	pthread_sigmask(SIG_BLOCK, NULL, &now);
	assert_false(sigismember(&now, SIGXCPU));
	assert_int_equal(rtshim_runaway_sigmask(SIG_BLOCK, NULL, &now), 0);
	assert_true(sigismember(&now, SIGXCPU));
	/* the program blocks it again, then unblocks it: never blocked for real, read back */
	assert_int_equal(rtshim_runaway_sigmask(SIG_BLOCK, &xcpu, NULL), 0);
	pthread_sigmask(SIG_BLOCK, NULL, &now);
	assert_false(sigismember(&now, SIGXCPU));
	assert_int_equal(rtshim_runaway_sigmask(SIG_UNBLOCK, &xcpu, &now), 0);
	assert_true(sigismember(&now, SIGXCPU));
	assert_int_equal(rtshim_runaway_sigmask(SIG_SETMASK, &was, &now), 0);
	assert_false(sigismember(&now, SIGXCPU));
	assert_int_equal(rtshim_runaway_sigmask(42, &was, NULL), EINVAL);
}

/* Another thread, granted by this one, that blocks SIGXCPU: the guard thread starts, lazily; the
 * kernel's disposition is the guard's (*guard), the program reads its own back. */
static void guard_thread_for_blocked_other(struct sigaction *guard)
{
	struct sigaction o;
	sigset_t xcpu, was;
	pthread_t other;
	pid_t other_tid = 0;
	sigemptyset(&xcpu);
	sigaddset(&xcpu, SIGXCPU);
	pthread_sigmask(SIG_BLOCK, &xcpu, &was);
	assert_int_equal(pthread_create(&other, NULL, blocked_thread, &other_tid), 0);
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	while (!__atomic_load_n(&other_tid, __ATOMIC_ACQUIRE))
		sched_yield();
	rtshim_runaway_granted(other_tid);
	assert_true(guard_thread_runs());
	__atomic_store_n(&other_tid, -1, __ATOMIC_RELEASE);
	pthread_join(other, NULL);
	sigaction(SIGXCPU, NULL, guard);
	assert_true(guard->sa_flags & SA_SIGINFO);
	assert_int_equal(rtshim_runaway_sigaction(NULL, &o), 0);
	assert_ptr_equal(o.sa_handler, h_one);
	assert_false(o.sa_flags & SA_SIGINFO);
	/* a SIGXCPU that is not RLIMIT_RTTIME's reaches the program's handler */
	h_calls = 0;
	raise(SIGXCPU);
	assert_int_equal(h_calls, 1);
}

/* SIG_IGN: the kernel keeps the guard's handler, the program reads SIG_IGN back. */
static void ignored_after_arm(struct sigaction *a, const struct sigaction *guard)
{
	struct sigaction o, k;
	a->sa_handler = SIG_IGN;
	sigaddset(&a->sa_mask, SIGKILL);
	assert_int_equal(rtshim_runaway_sigaction(a, &o), 0);
	assert_ptr_equal(o.sa_handler, h_one);
	sigaction(SIGXCPU, NULL, &k);
	assert_ptr_equal(k.sa_sigaction, guard->sa_sigaction);
	assert_int_equal(rtshim_runaway_sigaction(NULL, &o), 0);
	assert_ptr_equal(o.sa_handler, SIG_IGN);
	assert_false(sigismember(&o.sa_mask, SIGKILL)); /* as the kernel reports it */
	raise(SIGXCPU);
	assert_int_equal(h_calls, 1);
}

/* SA_RESETHAND: called once, then the default; the kernel's handler stays the guard's. */
static void reset_hand_after_arm(struct sigaction *a, const struct sigaction *guard)
{
	struct sigaction o, k;
	a->sa_handler = h_ten;
	a->sa_flags = SA_RESETHAND;
	assert_int_equal(rtshim_runaway_sigaction(a, NULL), 0);
	raise(SIGXCPU);
	assert_int_equal(h_calls, 11);
	assert_int_equal(rtshim_runaway_sigaction(NULL, &o), 0);
	assert_ptr_equal(o.sa_handler, SIG_DFL);
	sigaction(SIGXCPU, NULL, &k);
	assert_ptr_equal(k.sa_sigaction, guard->sa_sigaction);
}

/* fork: the child has no guard thread until it arms again. */
static void fork_child_without_guard_thread(struct sigaction *a)
{
	a->sa_handler = SIG_IGN;
	a->sa_flags = 0;
	rtshim_runaway_sigaction(a, NULL);
	pid_t child = fork();
	if (child == 0) {
		int r = guard_thread_runs() ? 1 : !rtshim_runaway_armed() ? 2
			: rtshim_runaway_arm(160000) ? 3 : guard_thread_runs() ? 4 : 0;
		_exit(r);
	}
	int st = -1;
	assert_int_equal(waitpid(child, &st, 0), child);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* One sequence: the guard's state is the process's, each step starts from the one before. */
static void test_disposition_after_arm(void **state)
{
	(void)state;
	struct sigaction a, guard;
	disposition_before_arm(&a);
	mask_of_granted_thread();
	guard_thread_for_blocked_other(&guard);
	ignored_after_arm(&a, &guard);
	reset_hand_after_arm(&a, &guard);
	fork_child_without_guard_thread(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runaway_soft),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_raise_memo),
		cmocka_unit_test(test_budget_process),
		cmocka_unit_test(test_budget_rt_waiter),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_disposition_after_arm),
	};
	return cmocka_run_group_tests_name("shim-guard", tests, NULL, NULL);
}
