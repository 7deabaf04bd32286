/* test-raw-child.c — kernel/raw-child.h: the child runs its function with every signal blocked,
 * holds only the descriptor it keeps, and is invisible to the program: no SIGCHLD, no fork
 * handler, not seen by wait(); rtshim_raw_child_gone reaps it. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "raw-child.h"
#include "raw-time.h"

static volatile sig_atomic_t sigchld_seen;
static int atfork_ran;

static void on_sigchld(int sig)
{
	(void)sig;
	sigchld_seen = 1;
}

static void on_fork(void)
{
	atfork_ran = 1;
}

struct report {
	int fd;
};

/* In the child: its blocked signals, and whether a descriptor beside the kept one is open. */
static void report(void *arg)
{
	const struct report *r = arg;
	unsigned long long blocked = 0;
	rtshim_raw_syscall(SYS_rt_sigprocmask, (long)SIG_BLOCK, NULL, &blocked,
			   RTSHIM_KERNEL_SIGSET_SIZE);
	int others_open = 0;
	for (int fd = 0; fd < 64; fd++)
		if (fd != r->fd && rtshim_raw_syscall(SYS_fcntl, (long)fd, (long)F_GETFD) >= 0)
			others_open++;
	unsigned char out[2] = { (unsigned char)((blocked & (1ULL << (SIGTERM - 1))) != 0),
				 (unsigned char)others_open };
	rtshim_raw_syscall(SYS_write, (long)r->fd, out, 2L);
}

/* Until the child is gone (reaped by rtshim_raw_child_gone), at most 10 s. */
static bool reaped_within_10_s(pid_t pid)
{
	int64_t end = rtshim_raw_now_ns() + 10000000000LL;
	while (rtshim_raw_now_ns() < end) {
		if (rtshim_raw_child_gone(pid))
			return true;
		int idle = 0;
		rtshim_raw_futex_wait(&idle, 0, 1000000);
	}
	return false;
}

static void child_runs_blocked_with_only_its_descriptor_unseen(void **state)
{
	(void)state;
	int p[2], other[2];
	assert_int_equal(pipe(p), 0);
	assert_int_equal(pipe(other), 0); /* a program's pipe: the child must not hold it */
	signal(SIGCHLD, on_sigchld);
	pthread_atfork(NULL, NULL, on_fork);
	sigset_t none, before, after;
	sigemptyset(&none);
	pthread_sigmask(SIG_SETMASK, &none, &before);

	struct report r = { .fd = p[1] };
	pid_t pid = rtshim_raw_child(p[1], report, &r);
	assert_true(pid > 0);
	pthread_sigmask(SIG_SETMASK, NULL, &after);
	assert_false(sigismember(&after, SIGTERM)); /* the caller's mask is back */
	close(p[1]);

	unsigned char got[2] = { 0, 0xff };
	assert_int_equal(read(p[0], got, 2), 2);
	assert_int_equal(got[0], 1); /* every signal blocked in the child */
	assert_int_equal(got[1], 0); /* nothing open there but the kept descriptor */
	assert_int_equal(read(p[0], got, 1), 0); /* and that one closed as it exited */

	assert_true(reaped_within_10_s(pid));
	errno = 0;
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	assert_false(sigchld_seen);
	assert_false(atfork_ran);
	assert_true(rtshim_raw_child_gone(pid)); /* reaped before: gone */
	close(p[0]);
	close(other[0]);
	close(other[1]);
}

static void wait_for_all_children_never_sees_it(void **state)
{
	(void)state;
	int p[2];
	assert_int_equal(pipe(p), 0);
	struct report r = { .fd = p[1] };
	pid_t pid = rtshim_raw_child(p[1], report, &r);
	assert_true(pid > 0);
	close(p[1]);
	unsigned char got[2];
	assert_int_equal(read(p[0], got, 2), 2);
	assert_int_equal(read(p[0], got, 1), 0); /* it has exited (its last descriptor closed) */
	/* exited and not reaped: still no child of the program's wait() */
	errno = 0;
	assert_int_equal(wait(NULL), -1);
	assert_int_equal(errno, ECHILD);
	assert_true(reaped_within_10_s(pid));
	close(p[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(child_runs_blocked_with_only_its_descriptor_unseen),
		cmocka_unit_test(wait_for_all_children_never_sees_it),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
