/* test-shim-guard.c — the runaway guard's soft limit (shim/runaway.c), the refusal backoff
 * (shim/budget.c) and the variables of priority mapping, the runaway guard and inheritance
 * (RTSHIM_PRIO_MAP, RTSHIM_TOP, RTSHIM_RUNAWAY, RTSHIM_INHERIT: core/config.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runaway_soft),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_raise_memo),
		cmocka_unit_test(test_budget_process),
		cmocka_unit_test(test_config),
	};
	return cmocka_run_group_tests_name("shim-guard", tests, NULL, NULL);
}
