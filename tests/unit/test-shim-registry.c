/* test-shim-registry.c — shim/registry.c: a pthread_t's TID from glibc, thread records and side
 * records, fork, and signal handlers: a handler that reads scheduling while its own thread holds
 * the registry's lock (linking or unlinking a record, forking) must get "not found" at once
 * instead of relocking; other threads still wait for the lock and find. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
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

/* ---- threads that wait until told to end --------------------------------------------------- */

struct parked {
	pthread_t handle;
	pid_t tid;
	int reset;   /* it gives itself SCHED_OTHER|SCHED_RESET_ON_FORK (no privilege needed) */
	int started; /* futex-free flags, polled */
	int quit;
};

static void *park(void *p)
{
	struct parked *k = p;
	struct sched_param zero = { .sched_priority = 0 };
	if (k->reset)
		sched_setscheduler(0, SCHED_OTHER | SCHED_RESET_ON_FORK, &zero);
	__atomic_store_n(&k->tid, gettid(), __ATOMIC_RELEASE);
	__atomic_store_n(&k->started, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&k->quit, __ATOMIC_ACQUIRE))
		usleep(1000);
	return NULL;
}

static void park_start(struct parked *k, int reset)
{
	*k = (struct parked){ .reset = reset };
	assert_int_equal(pthread_create(&k->handle, NULL, park, k), 0);
	while (!__atomic_load_n(&k->started, __ATOMIC_ACQUIRE))
		usleep(100);
}

/* Tell it to end and wait until the kernel has cleared its TID (ended, not joined yet). */
static void park_end(struct parked *k)
{
	pid_t tid;
	__atomic_store_n(&k->quit, 1, __ATOMIC_RELEASE);
	for (int64_t t0 = ms_now(); rtshim_registry_tid_of(k->handle, &tid) == 0;) {
		assert_true(ms_now() - t0 < 5000);
		usleep(1000);
	}
}

/* ---- the TID of a pthread_t, records and side records --------------------------------------- */

/* Rule 6: the asked priority is reported while the thread still has what it got, and the
 * kernel's own value once anything else set it (a drop, a change from outside). */
static void test_asked_priority_reported_while_granted(void **state)
{
	(void)state;
	int f = RTSHIM_TF_GRANTED | rtshim_asked_prio_flags(99, 20);
	assert_int_equal(rtshim_prio_reported(SCHED_RR | SCHED_RESET_ON_FORK, 20, f), 99);
	assert_int_equal(rtshim_prio_reported(SCHED_FIFO, 20, f), 99);
	assert_int_equal(rtshim_prio_reported(SCHED_RR | SCHED_RESET_ON_FORK, 15, f), 15);
	assert_int_equal(rtshim_prio_reported(SCHED_OTHER, 0, f), 0);
	assert_int_equal(rtshim_prio_reported(SCHED_RR, 20, RTSHIM_TF_GRANTED), 20);
	assert_int_equal(rtshim_asked_prio_flags(256, 20), 0);
	assert_true(rtshim_registry_asked_prio_ever());
}

static void test_tid_from_glibc(void **state)
{
	(void)state;
	struct parked k;
	pid_t tid = 0;
	int flags = -1;
	assert_int_equal(rtshim_registry_tid_of(pthread_self(), &tid), 0);
	assert_int_equal(tid, gettid());
	park_start(&k, 0);
	/* a thread without a record: found by its handle, no flags; not by its TID */
	assert_int_equal(rtshim_registry_by_handle(k.handle, &tid, &flags), 0);
	assert_int_equal(tid, k.tid);
	assert_int_equal(flags, 0);
	assert_int_equal(rtshim_registry_by_tid(k.tid, NULL), -ESRCH);
	park_end(&k);
	/* ended, not joined: glibc's ESRCH */
	assert_int_equal(rtshim_registry_by_handle(k.handle, &tid, &flags), -ESRCH);
	pthread_join(k.handle, NULL);
}

static void test_own_records(void **state)
{
	(void)state;
	struct parked ka, kb;
	struct rtshim_thread a = { 0 }, a2 = { 0 };
	pid_t tid;
	int flags;
	park_start(&ka, 0);
	park_start(&kb, 0);
	size_t base = rtshim_registry_count();
	a.handle = ka.handle;
	a.tid = ka.tid;
	rtshim_registry_add(&a);
	assert_int_equal(rtshim_registry_count(), base + 1);
	assert_int_equal(rtshim_registry_by_tid(ka.tid, &flags), 0);
	assert_int_equal(flags, 0);
	assert_int_equal(rtshim_registry_update(true, ka.handle, 0, RTSHIM_TF_FLAG_ADDED, 0), 0);
	assert_int_equal(rtshim_registry_by_handle(ka.handle, &tid, &flags), 0);
	assert_int_equal(tid, ka.tid);
	assert_int_equal(flags, RTSHIM_TF_FLAG_ADDED);
	assert_int_equal(rtshim_registry_update(false, 0, ka.tid, 0, RTSHIM_TF_FLAG_ADDED), 0);
	assert_int_equal(rtshim_registry_by_tid(ka.tid, &flags), 0);
	assert_int_equal(flags, 0);
	/* clearing a flag of a thread without a record records nothing */
	assert_int_equal(rtshim_registry_update(true, kb.handle, 0, 0, RTSHIM_TF_FLAG_ADDED), -ESRCH);
	/* a flag set on a thread that does not carry SCHED_RESET_ON_FORK (what every flag is about):
	 * nothing recorded either */
	assert_int_equal(rtshim_registry_update(true, kb.handle, 0, RTSHIM_TF_FLAG_ADDED, 0), -ESRCH);
	assert_int_equal(rtshim_registry_count(), base + 1);
	/* the same TID linked again (a stale record) replaces the entry */
	a2.handle = ka.handle;
	a2.tid = ka.tid;
	rtshim_registry_add(&a2);
	assert_int_equal(rtshim_registry_count(), base + 1);
	rtshim_registry_remove(&a); /* no longer linked: harmless */
	rtshim_registry_remove(&a2);
	assert_int_equal(rtshim_registry_count(), base);
	assert_int_equal(rtshim_registry_by_tid(ka.tid, NULL), -ESRCH);
	park_end(&ka);
	park_end(&kb);
	pthread_join(ka.handle, NULL);
	pthread_join(kb.handle, NULL);
}

/* A flag set on a thread without a record (another thread made it realtime): a side record,
 * which the thread takes over when it links its own. */
static void test_side_record_taken_over(void **state)
{
	(void)state;
	struct parked k;
	struct rtshim_thread own = { 0 };
	int flags;
	park_start(&k, 1);
	size_t base = rtshim_registry_count();
	assert_false(rtshim_registry_has_side_records());
	assert_int_equal(rtshim_registry_update(true, k.handle, 0, RTSHIM_TF_FLAG_ADDED | RTSHIM_TF_GRANTED, 0), 0);
	assert_true(rtshim_registry_has_side_records());
	assert_int_equal(rtshim_registry_count(), base + 1);
	assert_int_equal(rtshim_registry_by_tid(k.tid, &flags), 0);
	assert_int_equal(flags, RTSHIM_TF_FLAG_ADDED | RTSHIM_TF_GRANTED);
	assert_int_equal(rtshim_registry_update(false, 0, k.tid, 0, RTSHIM_TF_GRANTED), 0);
	assert_int_equal(rtshim_registry_by_handle(k.handle, NULL, &flags), 0);
	assert_int_equal(flags, RTSHIM_TF_FLAG_ADDED);
	own.handle = k.handle;
	own.tid = k.tid;
	rtshim_registry_add(&own);
	assert_false(rtshim_registry_has_side_records());
	assert_int_equal(rtshim_registry_count(), base + 1);
	assert_int_equal(own.flags, RTSHIM_TF_FLAG_ADDED);
	rtshim_registry_remove(&own);
	assert_int_equal(rtshim_registry_count(), base);
	park_end(&k);
	pthread_join(k.handle, NULL);
}

/* pthread_join returns when the kernel has cleared the thread's TID word, a moment before the
 * kernel forgets the thread: wait (at most 2 s) until tgkill says it is gone. */
static void wait_gone(pid_t tid)
{
	int64_t end = ms_now() + 2000;
	while (syscall(SYS_tgkill, getpid(), tid, 0) == 0 && ms_now() < end)
		sched_yield();
}

/* A side record whose thread ended is dropped when met, and never taken over by a thread that
 * gets the same TID without the flag. */
static void test_side_record_of_an_ended_thread(void **state)
{
	(void)state;
	struct parked k;
	int flags;
	park_start(&k, 1);
	size_t base = rtshim_registry_count();
	assert_int_equal(rtshim_registry_update(false, 0, k.tid, RTSHIM_TF_FLAG_ADDED, 0), 0);
	assert_int_equal(rtshim_registry_count(), base + 1);
	park_end(&k);
	pthread_join(k.handle, NULL);
	wait_gone(k.tid);
	assert_int_equal(rtshim_registry_by_tid(k.tid, &flags), -ESRCH);
	assert_int_equal(rtshim_registry_count(), base);
	assert_false(rtshim_registry_has_side_records());
	/* a TID of another process (this process's parent): never a side record */
	assert_int_equal(rtshim_registry_update(false, 0, getppid(), RTSHIM_TF_FLAG_ADDED, 0), -ESRCH);
	assert_int_equal(rtshim_registry_count(), base);
}

/* Side records of threads that ended unseen do not pile up: a sweep drops them. */
static void test_side_records_swept(void **state)
{
	(void)state;
	size_t base = rtshim_registry_count();
	for (int i = 0; i < 100; i++) {
		struct parked k;
		park_start(&k, 1);
		assert_int_equal(rtshim_registry_update(true, k.handle, 0, RTSHIM_TF_FLAG_ADDED, 0), 0);
		park_end(&k);
		pthread_join(k.handle, NULL);
	}
	assert_true(rtshim_registry_count() < base + 40);
}

/* The child of a fork keeps only the forking thread's record, with its new TID. */
static void test_fork(void **state)
{
	(void)state;
	struct rtshim_thread self = { 0 }, other = { 0 };
	struct parked k;
	park_start(&k, 1);
	assert_int_equal(rtshim_registry_update(true, k.handle, 0, RTSHIM_TF_FLAG_ADDED, 0), 0);
	self.handle = pthread_self();
	self.tid = 11;
	self.flags = RTSHIM_TF_FLAG_ADDED;
	other.handle = (pthread_t)0x1234;
	other.tid = 12;
	rtshim_registry_add(&self);
	rtshim_registry_add(&other);
	rtshim_registry_atfork_prepare();
	rtshim_registry_atfork_child(&self, 99);
	assert_int_equal(rtshim_registry_count(), 1);
	assert_false(rtshim_registry_has_side_records());
	int flags = -1;
	assert_int_equal(rtshim_registry_by_tid(99, &flags), 0);
	assert_int_equal(flags, 0);
	assert_int_equal(self.tid, 99);
	assert_int_equal(rtshim_registry_by_tid(12, NULL), -ESRCH);
	assert_int_equal(rtshim_registry_by_tid(k.tid, NULL), -ESRCH);
	rtshim_registry_remove(&self);
	assert_int_equal(rtshim_registry_count(), 0);
	park_end(&k);
	pthread_join(k.handle, NULL);
}

/* ---- signal handlers ------------------------------------------------------------------------ */

static struct rtshim_thread me;
static volatile int in_handler[5];
static volatile pid_t handler_tid;

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
	handler_tid = tid;
}

/* In a child process (a deadlock must not take the test runner with it): the handler runs while
 * this thread holds the lock.  Exit status 0: every call returned at once, "not found". */
static int child_body(void)
{
	me.handle = pthread_self();
	me.tid = gettid();
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
	if (rtshim_registry_by_handle(me.handle, &tid, NULL) != 0 || tid != gettid())
		return 13;
	raise(SIGUSR1);
	if (in_handler[0] != 0 || in_handler[1] != 0 || in_handler[2] != 0 || handler_tid != gettid())
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
	struct rtshim_thread rec = { .handle = pthread_self(), .tid = gettid(), .flags = RTSHIM_TF_GRANTED };
	rtshim_registry_add(&rec);
	struct holder h = { 0 };
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, hold_100ms, &h), 0);
	while (!__atomic_load_n(&h.held, __ATOMIC_ACQUIRE))
		usleep(100);
	int64_t t0 = ms_now();
	pid_t tid = 0;
	int flags = 0;
	assert_int_equal(rtshim_registry_by_handle(rec.handle, &tid, &flags), 0);
	assert_int_equal(tid, gettid());
	assert_int_equal(flags, RTSHIM_TF_GRANTED);
	assert_true(ms_now() - t0 >= 50);
	pthread_join(t, NULL);
	rtshim_registry_remove(&rec);
	assert_int_equal(rtshim_registry_by_tid(gettid(), NULL), -ESRCH);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_asked_priority_reported_while_granted),
		cmocka_unit_test(test_tid_from_glibc),
		cmocka_unit_test(test_own_records),
		cmocka_unit_test(test_side_record_taken_over),
		cmocka_unit_test(test_side_record_of_an_ended_thread),
		cmocka_unit_test(test_side_records_swept),
		cmocka_unit_test(test_handler_interrupting_the_lock_holder),
		cmocka_unit_test(test_other_threads_wait_for_the_lock),
		cmocka_unit_test(test_fork), /* last: it leaves the registry as a forked child has it */
	};
	return cmocka_run_group_tests_name("shim-registry", tests, NULL, NULL);
}
