/* test-asked-line.c — the record of what threads asked for (core/asked-line.c): a line read back
 * as written, lines that are not one refused, paths that do not fit refused. */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "asked-line.h"

static void test_round_trip(void **state)
{
	(void)state;
	struct rtshim_asked a = { .start = 4959747, .tid = 4242, .policy = SCHED_FIFO, .prio = 70 }, b;
	char line[96];
	size_t n = rtshim_asked_format(&a, line, sizeof line);
	assert_string_equal(line, "4959747 4242 FIFO 70\n");
	assert_int_equal(n, strlen(line));
	line[n - 1] = '\0';
	assert_true(rtshim_asked_parse(line, &b));
	assert_true(b.start == a.start && b.tid == a.tid && b.policy == a.policy && b.prio == a.prio);
	assert_true(rtshim_asked_parse("1 7 OTHER 0", &b));
	assert_int_equal(b.policy, SCHED_OTHER);
	assert_true(rtshim_asked_parse("1 7 RR 5", &b));
	assert_int_equal(b.policy, SCHED_RR);
}

static void test_not_a_line(void **state)
{
	(void)state;
	struct rtshim_asked b;
	static const char *const bad[] = {
		"", "1", "1 7", "1 7 FIFO", "1 7 FIFO ", "1 7 FIFO 100", "1 7 FIFO -1", "1 0 FIFO 5",
		"x 7 FIFO 5", "1 7 FIF 5", "1 7 FIFOX 5", "1 7 FIFO 5 6", "1  7 FIFO 5", " 1 7 FIFO 5", "1 7 FIFO +5", "1 -7 FIFO 5",
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		assert_false(rtshim_asked_parse(bad[i], &b));
}

static void test_paths(void **state)
{
	(void)state;
	char buf[32];
	assert_string_equal(rtshim_asked_path("/run/user/1000", 42, buf, sizeof buf),
			    "/run/user/1000/rtshim/42");
	assert_string_equal(rtshim_asked_dir("/run/user/1000", buf, sizeof buf), "/run/user/1000/rtshim");
	assert_null(rtshim_asked_path("run/user/1000", 42, buf, sizeof buf));
	assert_null(rtshim_asked_path("/run/user/1000/a/long/directory", 42, buf, sizeof buf));
	/* 24 characters: kept in 26 bytes (a byte to spare tells a fit from a truncation) */
	assert_non_null(rtshim_asked_path("/run/user/1000", 42, buf, 26));
	assert_null(rtshim_asked_path("/run/user/1000", 42, buf, 25));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_not_a_line),
		cmocka_unit_test(test_paths),
	};
	return cmocka_run_group_tests_name("asked-line", tests, NULL, NULL);
}
