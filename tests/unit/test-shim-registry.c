/* test-shim-registry.c — shim/registry.c and signal handlers: a handler that reads scheduling
 * while its own thread holds the registry's lock (starting or ending a thread, forking) must get
 * "not found" at once instead of relocking; other threads still wait for the lock and find. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "registry.h"

static int64_t ms_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static struct rtshim_thread me;
static volatile int in_handler[5];

static void reader(int sig)
{
	(void)sig;
	pid_t tid = 0;
	int flags = 0;
	in_handler[0] = rtshim_registry_by_handle(me.handle, &tid, &flags);
	in_handler[1] = rtshim_registry_by_tid(me.tid, &flags);
	in_handler[2] = rtshim_registry_update(true, me.handle, 0, RTSHIM_TF_GRANTED, 0);
	in_handler[3] = rtshim_registry_wait_settled(true, me.handle, 0, 100);
	in_handler[4] = (int)rtshim_registry_count();
}

/* In a child process (a deadlock must not take the test runner with it): the handler runs while
 * this thread holds the lock.  Exit status 0: every call returned at once, "not found". */
static int child_body(void)
{
	me.handle = pthread_self();
	me.tid = 4321;
	rtshim_registry_add(&me);
	rtshim_registry_pending_begin(&me); /* a request in flight: wait_settled would lock */
	struct sigaction sa = { .sa_handler = reader };
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL))
		return 10;
	rtshim_registry_atfork_prepare(); /* holds the lock, as around fork() */
	raise(SIGUSR1);
	rtshim_registry_atfork_parent();
	if (in_handler[0] != -ESRCH || in_handler[1] != -ESRCH || in_handler[2] != -ESRCH)
		return 11;
	if (in_handler[3] != 0)
		return 12;
	/* released: found again, and from a handler that interrupts nothing of ours too */
	pid_t tid = 0;
	if (rtshim_registry_by_handle(me.handle, &tid, NULL) != 0 || tid != 4321)
		return 13;
	raise(SIGUSR1);
	if (in_handler[0] != 0 || in_handler[1] != 0 || in_handler[2] != 0)
		return 14;
	rtshim_registry_pending_end(&me);
	rtshim_registry_remove(&me);
	return 0;
}

static void test_handler_interrupting_the_lock_holder(void **state)
{
	(void)state;
	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0)
		_exit(child_body());
	int status = 0;
	pid_t done = 0;
	for (int64_t t0 = ms_now(); ms_now() - t0 < 5000;) {
		done = waitpid(child, &status, WNOHANG);
		if (done)
			break;
		usleep(10 * 1000);
	}
	if (!done) {
		kill(child, SIGKILL);
		waitpid(child, &status, 0);
		fail_msg("the signal handler deadlocked on the registry's lock held by its own thread");
	}
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* Another thread holding the lock: a lookup waits for it and finds the record. */
struct holder {
	int held;
};

static void *hold_100ms(void *p)
{
	struct holder *h = p;
	rtshim_registry_atfork_prepare();
	__atomic_store_n(&h->held, 1, __ATOMIC_RELEASE);
	usleep(100 * 1000);
	rtshim_registry_atfork_parent();
	return NULL;
}

static void test_other_threads_wait_for_the_lock(void **state)
{
	(void)state;
	struct rtshim_thread rec = { .handle = pthread_self(), .tid = 5678 };
	rtshim_registry_add(&rec);
	struct holder h = { 0 };
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, hold_100ms, &h), 0);
	while (!__atomic_load_n(&h.held, __ATOMIC_ACQUIRE))
		usleep(100);
	int64_t t0 = ms_now();
	pid_t tid = 0;
	assert_int_equal(rtshim_registry_by_handle(rec.handle, &tid, NULL), 0);
	assert_int_equal(tid, 5678);
	assert_true(ms_now() - t0 >= 50);
	pthread_join(t, NULL);
	rtshim_registry_remove(&rec);
	assert_int_equal(rtshim_registry_by_tid(5678, NULL), -ESRCH);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handler_interrupting_the_lock_holder),
		cmocka_unit_test(test_other_threads_wait_for_the_lock),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
