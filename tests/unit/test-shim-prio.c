/* test-shim-prio.c — priority mapping (core/prio.c) and the RLIMIT_RTTIME rule (core/rttime.c).
 * The thread registry (shim/registry.c) has test-shim-registry.c. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>

#include <cmocka.h>

#include "prio.h"
#include "rttime.h"

static void test_clamp(void **state)
{
	(void)state;
	struct rtshim_prio_map m = { .mode = RTSHIM_PRIO_CLAMP, .max_prio = 20 };
	bool changed;
	assert_int_equal(rtshim_prio_map(&m, 70, &changed), 20);
	assert_true(changed);
	assert_int_equal(rtshim_prio_map(&m, 99, &changed), 20);
	assert_int_equal(rtshim_prio_map(&m, 20, &changed), 20);
	assert_false(changed);
	assert_int_equal(rtshim_prio_map(&m, 10, &changed), 10);
	assert_false(changed);
	assert_int_equal(rtshim_prio_map(&m, 1, &changed), 1);
	assert_int_equal(rtshim_prio_map(&m, 0, &changed), 1);
	assert_true(changed);
	assert_int_equal(rtshim_prio_map(&m, -5, NULL), 1);
	m.max_prio = 99;
	assert_int_equal(rtshim_prio_map(&m, 70, &changed), 70);
	m.max_prio = 1;
	assert_int_equal(rtshim_prio_map(&m, 70, NULL), 1);
	m.max_prio = 0;
	assert_int_equal(rtshim_prio_map(&m, 70, NULL), -EINVAL);
	m.max_prio = 20;
	m.mode = 42;
	assert_int_equal(rtshim_prio_map(&m, 70, NULL), -EINVAL);
}

/* scale: 1..99 onto 1..max, rounded; never inverts an order; identity when max >= 99 */
static void test_scale(void **state)
{
	(void)state;
	struct rtshim_prio_map m = { .mode = RTSHIM_PRIO_SCALE, .max_prio = 20 };
	bool changed;
	assert_int_equal(rtshim_prio_map(&m, 1, &changed), 1);
	assert_false(changed);
	assert_int_equal(rtshim_prio_map(&m, 99, &changed), 20);
	assert_true(changed);
	assert_int_equal(rtshim_prio_map(&m, 70, NULL), 14);
	assert_int_equal(rtshim_prio_map(&m, 65, NULL), 13);
	assert_int_equal(rtshim_prio_map(&m, 50, NULL), 11); /* 10.5: rounded up */
	assert_int_equal(rtshim_prio_map(&m, 0, NULL), 1);
	assert_int_equal(rtshim_prio_map(&m, 150, NULL), 20);
	/* monotonic over the whole range, for several maxima; every step at most 1 */
	for (int max = 1; max <= 99; max++) {
		m.max_prio = max;
		int last = rtshim_prio_map(&m, 1, NULL);
		assert_int_equal(last, 1);
		for (int p = 2; p <= 99; p++) {
			int v = rtshim_prio_map(&m, p, NULL);
			assert_true(v >= last && v <= last + 1);
			assert_true(v >= 1 && v <= max);
			last = v;
		}
		assert_int_equal(last, max);
	}
	m.max_prio = 99;
	assert_int_equal(rtshim_prio_map(&m, 70, &changed), 70);
	assert_false(changed);
	m.max_prio = 0;
	assert_int_equal(rtshim_prio_map(&m, 70, NULL), -EINVAL);
}

/* offset: anchored at top (top → max, top-k → max-k, floor 1, above top → max) */
static void test_offset(void **state)
{
	(void)state;
	struct rtshim_prio_map m = { .mode = RTSHIM_PRIO_OFFSET, .max_prio = 20, .top = 70 };
	bool changed;
	assert_int_equal(rtshim_prio_map(&m, 70, &changed), 20);
	assert_true(changed);
	assert_int_equal(rtshim_prio_map(&m, 69, NULL), 19);
	assert_int_equal(rtshim_prio_map(&m, 65, NULL), 15);
	assert_int_equal(rtshim_prio_map(&m, 51, NULL), 1);
	assert_int_equal(rtshim_prio_map(&m, 50, NULL), 1);
	assert_int_equal(rtshim_prio_map(&m, 1, NULL), 1);
	assert_int_equal(rtshim_prio_map(&m, 80, NULL), 20);
	assert_int_equal(rtshim_prio_map(&m, 99, NULL), 20);
	/* a small top: unchanged below it */
	m.top = 15;
	assert_int_equal(rtshim_prio_map(&m, 15, NULL), 20);
	assert_int_equal(rtshim_prio_map(&m, 10, NULL), 15);
	/* unset top: anchored at 99 */
	m.top = 0;
	assert_int_equal(rtshim_prio_map(&m, 99, NULL), 20);
	assert_int_equal(rtshim_prio_map(&m, 90, NULL), 11);
	assert_int_equal(rtshim_prio_map(&m, 70, NULL), 1);
	/* monotonic for every top */
	for (int top = 1; top <= 99; top++) {
		m.top = top;
		int last = 0;
		for (int p = 1; p <= 99; p++) {
			int v = rtshim_prio_map(&m, p, NULL);
			assert_true(v >= last && v >= 1 && v <= 20);
			last = v;
		}
	}
	/* max >= top: the order and the values are kept */
	m.max_prio = 99;
	m.top = 99;
	assert_int_equal(rtshim_prio_map(&m, 70, &changed), 70);
	assert_false(changed);
	assert_string_equal(rtshim_prio_mode_name(RTSHIM_PRIO_OFFSET), "offset");
	assert_string_equal(rtshim_prio_mode_name(RTSHIM_PRIO_SCALE), "scale");
	assert_string_equal(rtshim_prio_mode_name(RTSHIM_PRIO_CLAMP), "clamp");
	assert_null(rtshim_prio_mode_name(42));
}

/* The JACK case the modes exist for: server -P 70, clients at 65..69 */
static void test_jack_order(void **state)
{
	(void)state;
	struct rtshim_prio_map m = { .max_prio = 20, .top = 70 };
	m.mode = RTSHIM_PRIO_CLAMP;
	assert_int_equal(rtshim_prio_map(&m, 70, NULL), rtshim_prio_map(&m, 65, NULL)); /* collapsed */
	m.mode = RTSHIM_PRIO_SCALE;
	assert_true(rtshim_prio_map(&m, 70, NULL) > rtshim_prio_map(&m, 65, NULL));
	m.mode = RTSHIM_PRIO_OFFSET;
	for (int c = 65; c <= 69; c++)
		assert_true(rtshim_prio_map(&m, 70, NULL) > rtshim_prio_map(&m, c, NULL));
}

/* the order kept: room for each higher priority held above, never below 1 */
static void test_keep_order(void **state)
{
	(void)state;
	assert_int_equal(rtshim_prio_keep_order(20, 20, 0), 20);
	assert_int_equal(rtshim_prio_keep_order(20, 20, 1), 19);
	assert_int_equal(rtshim_prio_keep_order(20, 20, 3), 17);
	assert_int_equal(rtshim_prio_keep_order(5, 20, 3), 5);
	assert_int_equal(rtshim_prio_keep_order(17, 20, 3), 17);
	assert_int_equal(rtshim_prio_keep_order(18, 20, 3), 17);
	assert_int_equal(rtshim_prio_keep_order(20, 20, 19), 1);
	assert_int_equal(rtshim_prio_keep_order(20, 20, 40), 1);
	assert_int_equal(rtshim_prio_keep_order(7, 20, -1), 7);
}

static void test_rttime(void **state)
{
	(void)state;
	rlim_t s, h;
	const rlim_t INF = RLIM_INFINITY;
	/* unlimited: set to the configured value, soft = hard */
	assert_int_equal(rtshim_rttime_plan(INF, INF, 200000, 200000, &s, &h), RTSHIM_RTTIME_LOWER);
	assert_true(s == 200000 && h == 200000);
	/* daemon max lower than configured: the daemon's */
	assert_int_equal(rtshim_rttime_plan(INF, INF, 200000, 50000, &s, &h), RTSHIM_RTTIME_LOWER);
	assert_true(s == 50000 && h == 50000);
	/* configured lower than daemon max */
	assert_int_equal(rtshim_rttime_plan(INF, INF, 100000, 200000, &s, &h), RTSHIM_RTTIME_LOWER);
	assert_true(s == 100000 && h == 100000);
	/* hard already acceptable: nothing changes (never raised, not even the soft) */
	assert_int_equal(rtshim_rttime_plan(10000, 150000, 200000, 200000, &s, &h), RTSHIM_RTTIME_OK);
	assert_true(s == 10000 && h == 150000);
	assert_int_equal(rtshim_rttime_plan(200000, 200000, 200000, 200000, &s, &h), RTSHIM_RTTIME_OK);
	/* hard too high: lowered; a lower soft kept */
	assert_int_equal(rtshim_rttime_plan(100000, 900000, 200000, 200000, &s, &h), RTSHIM_RTTIME_LOWER);
	assert_true(s == 100000 && h == 200000);
	assert_int_equal(rtshim_rttime_plan(INF, 900000, 200000, 200000, &s, &h), RTSHIM_RTTIME_LOWER);
	assert_true(s == 200000 && h == 200000);
	/* 0 anywhere: refuse (the kernel would kill the thread at once) */
	assert_int_equal(rtshim_rttime_plan(0, 0, 200000, 200000, &s, &h), -EPERM);
	assert_int_equal(rtshim_rttime_plan(0, 100000, 200000, 200000, &s, &h), -EPERM);
	/* unknown daemon max: the configured value */
	assert_int_equal(rtshim_rttime_plan(INF, INF, 200000, 0, &s, &h), RTSHIM_RTTIME_LOWER);
	assert_true(h == 200000);
	assert_int_equal(rtshim_rttime_plan(INF, INF, 0, 200000, &s, &h), -EPERM);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clamp),
		cmocka_unit_test(test_scale),
		cmocka_unit_test(test_offset),
		cmocka_unit_test(test_jack_order),
		cmocka_unit_test(test_keep_order),
		cmocka_unit_test(test_rttime),
	};
	return cmocka_run_group_tests_name("shim-prio", tests, NULL, NULL);
}
