/* test-keep.c — grants that last (core/keep.c): which observations mean "taken from outside",
 * when the keeper may ask again, and how much of the user's rtkit budget it takes. */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "keep.h"

static enum rtshim_keep_event seen(enum rtshim_keep_state st, int policy, bool flag)
{
	struct rtshim_keep_seen s = { .policy = policy, .reset_on_fork = flag, .prio = 20 };
	return rtshim_keep_observe(st, &s);
}

static void only_a_flagless_demotion_is_taken(void **state)
{
	(void)state;
	/* rtkit's reset: SCHED_OTHER from root, the flag cleared */
	assert_int_equal(seen(RTSHIM_KEEP_WATCHING, SCHED_OTHER, false), RTSHIM_KEEP_DEMOTED);
	/* the program's own drop (or the runaway guard's) must keep the flag */
	assert_int_equal(seen(RTSHIM_KEEP_WATCHING, SCHED_OTHER, true), RTSHIM_KEEP_DROPPED);
	assert_int_equal(seen(RTSHIM_KEEP_WATCHING, SCHED_BATCH, true), RTSHIM_KEEP_DROPPED);
	assert_int_equal(seen(RTSHIM_KEEP_WATCHING, SCHED_RR, true), RTSHIM_KEEP_NOTHING);
	/* root's chrt without the flag: not rtkit's grant */
	assert_int_equal(seen(RTSHIM_KEEP_WATCHING, SCHED_FIFO, false), RTSHIM_KEEP_FOREIGN);
	/* a thread the program left stays left, until it is realtime again */
	assert_int_equal(seen(RTSHIM_KEEP_LEFT, SCHED_OTHER, false), RTSHIM_KEEP_NOTHING);
	assert_int_equal(seen(RTSHIM_KEEP_LEFT, SCHED_OTHER, true), RTSHIM_KEEP_NOTHING);
	assert_int_equal(seen(RTSHIM_KEEP_LEFT, SCHED_RR, true), RTSHIM_KEEP_GRANTED);
	/* taken or refused, then granted by the program's own new request */
	assert_int_equal(seen(RTSHIM_KEEP_TAKEN, SCHED_RR, true), RTSHIM_KEEP_GRANTED);
	assert_int_equal(seen(RTSHIM_KEEP_REFUSED, SCHED_OTHER, false), RTSHIM_KEEP_NOTHING);
	assert_int_equal(seen(RTSHIM_KEEP_TAKEN, SCHED_OTHER, true), RTSHIM_KEEP_DROPPED);
}

static void asks_after_the_refusal_window_only(void **state)
{
	struct rtshim_keep_canary on = { .on = true, .refuse_sec = 8 }, off = { .on = false };
	(void)state;
	/* rtkit's window ends at whole seconds of the demotion + 8 */
	assert_int_equal(rtshim_keep_ask_at(100250, RTSHIM_KEEP_DAEMON_SAME, &on),
			 108000 + RTSHIM_KEEP_MARGIN_MS);
	assert_int_equal(rtshim_keep_ask_at(100999, RTSHIM_KEEP_DAEMON_SAME, &on),
			 108000 + RTSHIM_KEEP_MARGIN_MS);
	/* no canary: nothing refuses, ask at once; a new daemon has no window */
	assert_int_equal(rtshim_keep_ask_at(100250, RTSHIM_KEEP_DAEMON_SAME, &off), 100250);
	assert_int_equal(rtshim_keep_ask_at(100250, RTSHIM_KEEP_DAEMON_NEW, &on), 100250);
	/* nobody on the bus: not yet */
	assert_int_equal(rtshim_keep_ask_at(100250, RTSHIM_KEEP_DAEMON_NONE, &on), -1);
}

static void reads_the_canary_from_the_command_line(void **state)
{
	static const char a[] = "/usr/libexec/rtkit-daemon\0--canary-refuse-sec=8\0--stderr";
	static const char b[] = "rtkit-daemon\0--canary-refuse-sec\0" "12";
	static const char c[] = "rtkit-daemon\0--no-canary\0--canary-refuse-sec=x";
	struct rtshim_keep_canary k;
	(void)state;
	rtshim_keep_canary_parse(a, sizeof a, &k);
	assert_true(k.on);
	assert_int_equal(k.refuse_sec, 8);
	rtshim_keep_canary_parse(b, sizeof b, &k);
	assert_int_equal(k.refuse_sec, 12);
	rtshim_keep_canary_parse(c, sizeof c, &k);
	assert_false(k.on);
	assert_int_equal(k.refuse_sec, RTSHIM_KEEP_REFUSE_SEC_DEFAULT);
	rtshim_keep_canary_parse("", 0, &k); /* unreadable: rtkit's defaults */
	assert_true(k.on);
	assert_int_equal(k.refuse_sec, 300);
}

static void leaves_a_share_of_the_burst_to_the_programs(void **state)
{
	struct rtshim_keep_budget b = { .n = 0 };
	int64_t next = 0;
	int asked = 0;
	(void)state;
	while (rtshim_keep_budget_allows(&b, 1000, 20, 25, &next)) {
		rtshim_keep_budget_spend(&b, 1000, 20);
		asked++;
	}
	assert_int_equal(asked, 25 - RTSHIM_KEEP_BUDGET_LEFT);
	assert_int_equal(next, 21000);
	assert_false(rtshim_keep_budget_allows(&b, 20999, 20, 25, &next));
	assert_true(rtshim_keep_budget_allows(&b, 21000, 20, 25, &next));
	/* a tiny burst still lets one through */
	struct rtshim_keep_budget one = { .n = 0 };
	assert_true(rtshim_keep_budget_allows(&one, 0, 20, 2, &next));
	rtshim_keep_budget_spend(&one, 0, 20);
	assert_false(rtshim_keep_budget_allows(&one, 0, 20, 2, &next));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(only_a_flagless_demotion_is_taken),
		cmocka_unit_test(asks_after_the_refusal_window_only),
		cmocka_unit_test(reads_the_canary_from_the_command_line),
		cmocka_unit_test(leaves_a_share_of_the_burst_to_the_programs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
