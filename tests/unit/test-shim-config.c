/* test-shim-config.c — RTSHIM_* parsing (core/config.c): defaults, every valid spelling, and
 * garbage, empty, negative, overflowing and huge values (one warning each, default kept). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config.h"
#include "log.h"
#include "prio.h"
#include "prio.h"

static void test_defaults(void **state)
{
	(void)state;
	struct rtshim_config c;
	rtshim_config_defaults(&c);
	assert_int_equal(c.log_level, RTSHIM_LOG_WARN);
	assert_int_equal(c.timeout_ms, 500);
	assert_int_equal(c.rttime_us, 200000);
	assert_false(c.reset_on_fork);
	assert_false(c.strict);
	assert_int_equal(c.policy, RTSHIM_POLICY_ASKED);
	assert_int_equal(c.prio_map, RTSHIM_PRIO_CLAMP);
}

static void test_valid_values(void **state)
{
	(void)state;
	struct rtshim_config c;
	rtshim_config_defaults(&c);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_LOG", "quiet"), 0);
	assert_int_equal(c.log_level, RTSHIM_LOG_QUIET);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_LOG", "DEBUG"), 0);
	assert_int_equal(c.log_level, RTSHIM_LOG_DEBUG);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_LOG", "info"), 0);
	assert_int_equal(c.log_level, RTSHIM_LOG_INFO);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_TIMEOUT_MS", "1"), 0);
	assert_int_equal(c.timeout_ms, 1);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_TIMEOUT_MS", "60000"), 0);
	assert_int_equal(c.timeout_ms, 60000);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_RTTIME_US", "50000"), 0);
	assert_int_equal(c.rttime_us, 50000);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_RTTIME_US", "3600000000"), 0);
	assert_int_equal(c.rttime_us, 3600000000LL);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_RESET_ON_FORK", "0"), 0);
	assert_false(c.reset_on_fork);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_RESET_ON_FORK", "yes"), 0);
	assert_true(c.reset_on_fork);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_STRICT", "TRUE"), 0);
	assert_true(c.strict);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_STRICT", "off"), 0);
	assert_false(c.strict);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_POLICY", "rr"), 0);
	assert_int_equal(c.policy, RTSHIM_POLICY_RR);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_POLICY", "FIFO"), 0);
	assert_int_equal(c.policy, RTSHIM_POLICY_FIFO);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_POLICY", "asked"), 0);
	assert_int_equal(c.policy, RTSHIM_POLICY_ASKED);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_NOPE", "1"), -ENOENT);
}

/* Every variable, every bad value: -EINVAL and the field unchanged. */
static void test_bad_values(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"", " ", "abc", "-1", "-0", "+5", " 5", "5 ", "5x", "0x10", "1e3", "99999999999999999999",
		"18446744073709551616", "18446744073709551615", "36000000000", "\xff\xfe", "5\n",
		"yesno", "quiet!", "fifo rr", NULL,
	};
	size_t n;
	const struct rtshim_config_var *vars = rtshim_config_vars(&n);
	assert_true(n >= 6);
	for (size_t v = 0; v < n; v++) {
		/* RTSHIM_ONLY takes free-form patterns ("abc" is one): tests/unit/test-reach.c */
		if (!strcmp(vars[v].name, "RTSHIM_ONLY"))
			continue;
		for (int i = 0; bad[i]; i++) {
			struct rtshim_config c, before;
			rtshim_config_defaults(&c);
			before = c;
			assert_int_equal(rtshim_config_set(&c, vars[v].name, bad[i]), -EINVAL);
			assert_memory_equal(&c, &before, sizeof c);
		}
	}
	struct rtshim_config c;
	rtshim_config_defaults(&c);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_TIMEOUT_MS", "0"), -EINVAL);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_TIMEOUT_MS", "60001"), -EINVAL);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_TIMEOUT_MS", "2147483648"), -EINVAL);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_RTTIME_US", "0"), -EINVAL);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_RTTIME_US", "3600000001"), -EINVAL);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_RESET_ON_FORK", "2"), -EINVAL);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_LOG", NULL), -EINVAL);
}

/* A fake environment for rtshim_config_load. */
static const char *const *fake_env;

static char *fake_get(const char *name)
{
	size_t len = strlen(name);
	for (int i = 0; fake_env[i]; i++)
		if (!strncmp(fake_env[i], name, len) && fake_env[i][len] == '=')
			return (char *)fake_env[i] + len + 1;
	return NULL;
}

static int warnings;
static char warned[8][32];

static void count_warn(void *ctx, const struct rtshim_config_var *var, const char *value)
{
	(void)ctx, (void)value;
	if (warnings < 8)
		strncpy(warned[warnings], var->name, sizeof warned[0] - 1);
	warnings++;
}

static void test_load(void **state)
{
	(void)state;
	static const char *const env[] = {
		"RTSHIM_LOG=info", "RTSHIM_TIMEOUT_MS=abc", "RTSHIM_RTTIME_US=100000",
		"RTSHIM_RESET_ON_FORK=", "RTSHIM_STRICT=1", "RTSHIM_POLICY=deadline", "OTHER=x", NULL,
	};
	struct rtshim_config c;
	fake_env = env;
	warnings = 0;
	memset(warned, 0, sizeof warned);
	assert_int_equal(rtshim_config_load(&c, fake_get, count_warn, NULL), 3);
	assert_int_equal(warnings, 3);
	assert_string_equal(warned[0], "RTSHIM_TIMEOUT_MS");
	assert_string_equal(warned[1], "RTSHIM_RESET_ON_FORK");
	assert_string_equal(warned[2], "RTSHIM_POLICY");
	assert_int_equal(c.log_level, RTSHIM_LOG_INFO);
	assert_int_equal(c.timeout_ms, 500);
	assert_int_equal(c.rttime_us, 100000);
	assert_false(c.reset_on_fork);
	assert_true(c.strict);
	assert_int_equal(c.policy, RTSHIM_POLICY_ASKED);

	static const char *const none[] = { NULL };
	fake_env = none;
	warnings = 0;
	assert_int_equal(rtshim_config_load(&c, fake_get, count_warn, NULL), 0);
	assert_int_equal(warnings, 0);
	assert_int_equal(c.timeout_ms, 500);
}

/* RTSHIM_PRIO_MAP=offset needs RTSHIM_TOP: without it, one warning (about the map) and the
 * clamp, not an anchor of 99 that puts 70 and 65 both at 1 */
static void test_offset_without_top(void **state)
{
	(void)state;
	static const char *const alone[] = { "RTSHIM_PRIO_MAP=offset", NULL };
	static const char *const bad_top[] = { "RTSHIM_PRIO_MAP=offset", "RTSHIM_TOP=500", NULL };
	static const char *const with_top[] = { "RTSHIM_PRIO_MAP=offset", "RTSHIM_TOP=70", NULL };
	struct rtshim_config c;

	fake_env = alone;
	warnings = 0;
	memset(warned, 0, sizeof warned);
	assert_int_equal(rtshim_config_load(&c, fake_get, count_warn, NULL), 1);
	assert_int_equal(warnings, 1);
	assert_string_equal(warned[0], "RTSHIM_PRIO_MAP");
	assert_int_equal(c.prio_map, RTSHIM_PRIO_CLAMP);

	/* a bad top is said, then what it leaves: offset without a top */
	fake_env = bad_top;
	warnings = 0;
	memset(warned, 0, sizeof warned);
	assert_int_equal(rtshim_config_load(&c, fake_get, count_warn, NULL), 2);
	assert_string_equal(warned[0], "RTSHIM_TOP");
	assert_string_equal(warned[1], "RTSHIM_PRIO_MAP");
	assert_int_equal(c.prio_map, RTSHIM_PRIO_CLAMP);

	fake_env = with_top;
	warnings = 0;
	assert_int_equal(rtshim_config_load(&c, fake_get, count_warn, NULL), 0);
	assert_int_equal(c.prio_map, RTSHIM_PRIO_OFFSET);
	assert_int_equal(c.prio_top, 70);
}

static void test_parse_u64(void **state)
{
	(void)state;
	uint64_t v = 7;
	assert_int_equal(rtshim_parse_u64("0", 0, 10, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(rtshim_parse_u64("18446744073709551615", 0, UINT64_MAX, &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(rtshim_parse_u64("18446744073709551616", 0, UINT64_MAX, &v), -EINVAL);
	assert_int_equal(rtshim_parse_u64("000123", 0, 1000, &v), 0);
	assert_int_equal(v, 123);
	assert_int_equal(rtshim_parse_u64(NULL, 0, 10, &v), -EINVAL);
}

/* The formatter the logs use (no stdio in the hooks). */
static void test_format(void **state)
{
	(void)state;
	char buf[64];
	rtshim_format(buf, sizeof buf, "a%db%sc%ud%lld%%%x", -12, "XY", 7u, -9000000000LL, 255u);
	assert_string_equal(buf, "a-12bXYc7d-9000000000%ff");
	rtshim_format(buf, sizeof buf, "%.*s|%zu|%c", 2, "abcdef", (size_t)42, 'q');
	assert_string_equal(buf, "ab|42|q");
	assert_int_equal(rtshim_format(buf, 5, "%s", "truncated"), 4);
	assert_string_equal(buf, "trun");
	const char *volatile nothing = NULL;
	rtshim_format(buf, sizeof buf, "%s", nothing);
	assert_string_equal(buf, "(null)");
	rtshim_format(buf, sizeof buf, "%d", (int)(-2147483647 - 1));
	assert_string_equal(buf, "-2147483648");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),   cmocka_unit_test(test_valid_values),
		cmocka_unit_test(test_bad_values), cmocka_unit_test(test_load),
		cmocka_unit_test(test_offset_without_top),
		cmocka_unit_test(test_parse_u64),  cmocka_unit_test(test_format),
	};
	return cmocka_run_group_tests_name("shim-config", tests, NULL, NULL);
}
