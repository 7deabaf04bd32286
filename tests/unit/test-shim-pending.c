/* test-shim-pending.c — a reader waiting for another thread's request in flight
 * (shim/registry.c: rtshim_registry_pending_begin/end, rtshim_registry_wait_settled). */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
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

/* a requesting thread: its record linked (its real TID: readers find a thread by its handle
 * through glibc's TID), its request in flight for `hold_ms`, then ended */
struct requester {
	struct rtshim_thread rec;
	int hold_ms;
	int began; /* set once the request is in flight */
	int quit;  /* the requester ends without ending its request (cancelled mid-call) */
};

static void *requester(void *p)
{
	struct requester *q = p;
	q->rec.handle = pthread_self();
	q->rec.tid = gettid();
	rtshim_registry_add(&q->rec);
	rtshim_registry_pending_begin(&q->rec);
	__atomic_store_n(&q->began, 1, __ATOMIC_RELEASE);
	usleep((useconds_t)q->hold_ms * 1000);
	if (q->quit) { /* what the thread's end does (shim/thread.c: thread_ends) */
		rtshim_registry_pending_end(&q->rec);
		rtshim_registry_remove(&q->rec);
		return NULL;
	}
	rtshim_registry_pending_end(&q->rec);
	usleep(200 * 1000); /* stays registered a while after its outcome */
	rtshim_registry_remove(&q->rec);
	return NULL;
}

static void start(struct requester *q, pthread_t *t)
{
	assert_int_equal(pthread_create(t, NULL, requester, q), 0);
	while (!__atomic_load_n(&q->began, __ATOMIC_ACQUIRE))
		usleep(100);
}

static void test_nothing_in_flight(void **state)
{
	(void)state;
	int64_t t0 = ms_now();
	assert_int_equal(rtshim_registry_wait_settled(true, pthread_self(), 0, 500), 0);
	assert_int_equal(rtshim_registry_wait_settled(false, 0, 12345, 500), 0);
	assert_true(ms_now() - t0 < 50);
}

static void test_waits_for_outcome(void **state)
{
	(void)state;
	struct requester q = { .hold_ms = 100 };
	pthread_t t;
	start(&q, &t);
	int64_t t0 = ms_now();
	assert_int_equal(rtshim_registry_wait_settled(true, t, 0, 2000), 1);
	int64_t took = ms_now() - t0;
	assert_true(took >= 50 && took < 1000);
	assert_int_equal(__atomic_load_n(&q.rec.pending, __ATOMIC_ACQUIRE), 0);
	/* settled: the next reader does not wait */
	assert_int_equal(rtshim_registry_wait_settled(false, 0, q.rec.tid, 2000), 0);
	pthread_join(t, NULL);
}

static void test_by_tid_and_other_threads(void **state)
{
	(void)state;
	struct requester q = { .hold_ms = 100 };
	pthread_t t;
	start(&q, &t);
	/* a thread that is not in flight (this one, unregistered) is answered at once */
	int64_t t0 = ms_now();
	assert_int_equal(rtshim_registry_wait_settled(true, pthread_self(), 0, 2000), 0);
	assert_true(ms_now() - t0 < 50);
	assert_int_equal(rtshim_registry_wait_settled(false, 0, q.rec.tid, 2000), 1);
	pthread_join(t, NULL);
}

static void test_bounded(void **state)
{
	(void)state;
	struct requester q = { .hold_ms = 600 };
	pthread_t t;
	start(&q, &t);
	int64_t t0 = ms_now();
	assert_int_equal(rtshim_registry_wait_settled(true, t, 0, 150), -ETIMEDOUT);
	int64_t took = ms_now() - t0;
	assert_true(took >= 140 && took < 400);
	pthread_join(t, NULL);
}

static void test_thread_ends_mid_request(void **state)
{
	(void)state;
	struct requester q = { .hold_ms = 100, .quit = 1 };
	pthread_t t;
	start(&q, &t);
	int64_t t0 = ms_now();
	int r = rtshim_registry_wait_settled(true, t, 0, 2000);
	assert_true(r == 1 || r == 0);
	assert_true(ms_now() - t0 < 1000);
	pthread_join(t, NULL);
	/* nothing is left in flight: readers look no further */
	assert_int_equal(rtshim_registry_wait_settled(false, 0, q.rec.tid, 2000), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nothing_in_flight),
		cmocka_unit_test(test_waits_for_outcome),
		cmocka_unit_test(test_by_tid_and_other_threads),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_thread_ends_mid_request),
	};
	return cmocka_run_group_tests_name("shim-pending", tests, NULL, NULL);
}
