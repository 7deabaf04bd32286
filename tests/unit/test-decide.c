/* test-decide.c — the decision core (core/decide.c): each rule of rtshim(7) as rows of facts
 * and the step they must lead to.  No root, no rtkit: the facts say what the kernel and rtkit
 * said. */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "config.h"
#include "decide.h"
#include "prio.h"

#define RR SCHED_RR
#define FIFO SCHED_FIFO
#define OTHER SCHED_OTHER
#define FLAG SCHED_RESET_ON_FORK
#define INF RLIM_INFINITY

static struct rtshim_config cfg;

/* An unprivileged user's RT request that the kernel refused, about the calling thread, which is
 * SCHED_OTHER; rtkit's default limits answer, RLIMIT_RTTIME unlimited. */
static struct rtshim_facts refused(int policy, int prio)
{
	struct rtshim_facts f;
	rtshim_config_defaults(&cfg);
	rtshim_facts_init(&f, &cfg, true, policy, prio);
	f.direct = (struct rtshim_step){ true, -EPERM };
	f.target = RTSHIM_TARGET_SELF;
	f.tid = 100;
	f.cur_policy = OTHER;
	f.guard_possible = true;
	f.limits = (struct rtshim_step){ true, 0 };
	f.lim = (struct rtkit_limits){ .max_realtime_priority = 20, .min_nice_level = -15,
				       .rttime_usec_max = 200000 };
	f.rttime_soft = INF;
	f.rttime_hard = INF;
	return f;
}

/* Rule 1 */
static void test_privileged_path_is_exactly_the_call(void **state)
{
	(void)state;
	struct rtshim_facts f;
	rtshim_config_defaults(&cfg);
	rtshim_facts_init(&f, &cfg, true, FIFO, 20);
	struct rtshim_decision d = rtshim_decide(&f);
	assert_int_equal(d.action, RTSHIM_CALL);
	assert_int_equal(d.policy, FIFO); /* no SCHED_RESET_ON_FORK: children inherit */

	f.direct.done = true;
	d = rtshim_decide(&f);
	assert_int_equal(d.action, RTSHIM_DONE);
	assert_int_equal(d.program_errno, 0);
	assert_int_equal(d.why, RTSHIM_WHY_DIRECT);
	assert_int_equal(d.flag_owner, RTSHIM_FLAG_PROGRAMS);

	/* the program's own flag is the program's */
	rtshim_facts_init(&f, &cfg, true, RR | FLAG, 5);
	assert_int_equal(rtshim_decide(&f).policy, RR | FLAG);
	f.direct.done = true;
	assert_int_equal(rtshim_decide(&f).flag_owner, RTSHIM_FLAG_PROGRAMS);

	/* a priority alone never gets a policy */
	rtshim_facts_init(&f, &cfg, false, 0, 5);
	assert_int_equal(rtshim_decide(&f).policy, 0);
}

/* Rule 1 */
static void test_privileged_opt_ins(void **state)
{
	(void)state;
	struct rtshim_facts f;
	rtshim_config_defaults(&cfg);
	cfg.reset_on_fork = true;
	rtshim_facts_init(&f, &cfg, true, FIFO, 20);
	assert_int_equal(rtshim_decide(&f).policy, FIFO | FLAG);
	f.direct.done = true;
	/* readers mask what the shim added */
	assert_int_equal(rtshim_decide(&f).flag_owner, RTSHIM_FLAG_SHIMS);

	/* the flag is never added to a non-RT policy */
	rtshim_facts_init(&f, &cfg, true, OTHER, 0);
	assert_int_equal(rtshim_decide(&f).policy, OTHER);

	cfg.reset_on_fork = false;
	cfg.policy = RTSHIM_POLICY_RR;
	rtshim_facts_init(&f, &cfg, true, FIFO | FLAG, 20);
	assert_int_equal(rtshim_decide(&f).policy, RR | FLAG);
	cfg.policy = RTSHIM_POLICY_FIFO;
	rtshim_facts_init(&f, &cfg, true, RR, 20);
	assert_int_equal(rtshim_decide(&f).policy, FIFO);
}

/* The shim's privileged path applies rule 1 without the facts: the same call, the same
 * decision once the kernel granted it, for every opt-in and every kind of request. */
/* Rule 1 */
static void test_privileged_shortcut_decides_as_the_core(void **state)
{
	(void)state;
	static const int policies[] = { FIFO, RR, FIFO | FLAG, RR | FLAG, OTHER, OTHER | FLAG, SCHED_BATCH, 42 };
	for (int opt = 0; opt < 6; opt++) {
		rtshim_config_defaults(&cfg);
		cfg.reset_on_fork = opt & 1;
		cfg.policy = opt / 2 == 0 ? RTSHIM_POLICY_ASKED : opt / 2 == 1 ? RTSHIM_POLICY_RR : RTSHIM_POLICY_FIFO;
		for (size_t i = 0; i < sizeof policies / sizeof *policies; i++) {
			for (int has = 0; has < 2; has++) {
				struct rtshim_facts f;
				rtshim_facts_init(&f, &cfg, has, policies[i], 10);
				struct rtshim_decision core = rtshim_decide(&f);
				assert_int_equal(rtshim_direct_policy(&cfg, has, policies[i]), core.policy);
				f.direct.done = true;
				core = rtshim_decide(&f);
				struct rtshim_decision cut = rtshim_direct_succeeded(&cfg, has, policies[i]);
				assert_int_equal(cut.action, core.action);
				assert_int_equal(cut.program_errno, core.program_errno);
				assert_int_equal(cut.why, core.why);
				assert_int_equal(cut.flag_owner, core.flag_owner);
				assert_int_equal(rtshim_direct_flag_owner(has, policies[i],
									  rtshim_direct_policy(&cfg, has, policies[i])),
						 core.flag_owner);
				/* a priority alone leaves the thread's record as it is */
				if (!has)
					assert_int_equal(core.flag_owner, RTSHIM_FLAG_UNTOUCHED);
				struct rtshim_direct both = rtshim_direct(&cfg, has, policies[i]);
				assert_int_equal(both.policy, rtshim_direct_policy(&cfg, has, policies[i]));
				assert_int_equal(both.flag_owner, core.flag_owner);
			}
		}
	}
}

/* Rule 1 */
static void test_other_errors_are_the_kernels(void **state)
{
	(void)state;
	int errs[] = { EINVAL, ESRCH, EFAULT };
	for (size_t i = 0; i < sizeof errs / sizeof errs[0]; i++) {
		struct rtshim_facts f = refused(FIFO, 200);
		f.direct.err = -errs[i];
		struct rtshim_decision d = rtshim_decide(&f);
		assert_int_equal(d.action, RTSHIM_DONE);
		assert_int_equal(d.program_errno, errs[i]);
	}
}

/* Rule 2 */
static void test_only_our_users_threads(void **state)
{
	(void)state;
	struct rtshim_facts f = refused(FIFO, 10);
	f.target = RTSHIM_TARGET_UNKNOWN;
	struct rtshim_decision d = rtshim_decide(&f);
	assert_int_equal(d.action, RTSHIM_DONE);
	assert_int_equal(d.program_errno, EPERM);
	assert_int_equal(d.why, RTSHIM_WHY_NOT_OURS);
}

/* RTSHIM_DISABLE: the call as the program made it (no opt-in applies), and the kernel's answer
 * as it is, EPERM included; a thread created with a realtime attribute fails as without the
 * shim. */
static void test_switched_off_is_the_kernels_answer(void **state)
{
	(void)state;
	struct rtshim_facts f;
	rtshim_config_defaults(&cfg);
	cfg.disabled = true;
	cfg.reset_on_fork = true;
	cfg.policy = RTSHIM_POLICY_RR;
	rtshim_facts_init(&f, &cfg, true, FIFO, 20);
	struct rtshim_decision d = rtshim_decide(&f);
	assert_int_equal(d.action, RTSHIM_CALL);
	assert_int_equal(d.policy, FIFO);
	f = refused(FIFO, 10);
	cfg.disabled = true;
	d = rtshim_decide(&f);
	assert_int_equal(d.action, RTSHIM_DONE);
	assert_int_equal(d.program_errno, EPERM);
	assert_int_equal(d.why, RTSHIM_WHY_DIRECT);
	assert_false(rtshim_creation_runs(&cfg, EPERM));
	assert_true(rtshim_direct_is_as_asked(&cfg));
}

/* Rule 3 */
static void test_drops_keep_the_flag(void **state)
{
	(void)state;
	/* JACK's freewheel: an rtkit thread dropped to SCHED_OTHER */
	struct rtshim_facts f = refused(OTHER, 0);
	f.cur_policy = RR | FLAG;
	f.cur_prio = 20;
	f.shim_flag = true;
	struct rtshim_decision d = rtshim_decide(&f);
	assert_int_equal(d.action, RTSHIM_CALL_KEEPING_FLAG);
	assert_int_equal(d.policy, OTHER | FLAG);
	f.keeping_flag = (struct rtshim_step){ true, 0 };
	d = rtshim_decide(&f);
	assert_int_equal(d.action, RTSHIM_DONE);
	assert_int_equal(d.program_errno, 0);
	assert_int_equal(d.why, RTSHIM_WHY_KEPT_FLAG);
	assert_int_equal(d.flag_owner, RTSHIM_FLAG_SHIMS);

	/* refused even with the flag: a drop is no realtime request */
	f.keeping_flag.err = -EPERM;
	d = rtshim_decide(&f);
	assert_int_equal(d.program_errno, EPERM);
	assert_int_equal(d.why, RTSHIM_WHY_NOT_RT);

	/* a thread without the flag is not retried */
	f = refused(OTHER, 0);
	d = rtshim_decide(&f);
	assert_int_equal(d.action, RTSHIM_DONE);
	assert_int_equal(d.why, RTSHIM_WHY_NOT_RT);
}

/* Rule 4 */
static void test_priority_alone_asks_rt_only_on_rt_threads(void **state)
{
	(void)state;
	struct rtshim_facts f = refused(0, 30);
	f.has_policy = false;
	f.policy = 0;
	struct rtshim_decision d = rtshim_decide(&f);
	assert_int_equal(d.why, RTSHIM_WHY_NOT_RT);

	/* pthread_setschedprio(15 → 20) on a thread rtkit made RR 15: a raise through rtkit */
	f.cur_policy = RR | FLAG;
	f.cur_prio = 15;
	f.shim_flag = true;
	f.prio = 20;
	d = rtshim_decide(&f);
	assert_int_equal(d.action, RTSHIM_ASK_RTKIT);
	assert_int_equal(d.prio, 20);
	assert_int_equal(d.budget_kind, RTSHIM_BUDGET_RAISE);
	f.rtkit.done = true;
	d = rtshim_decide(&f);
	assert_int_equal(d.flag_owner, RTSHIM_FLAG_SHIMS);
	/* the program's own flag stays the program's */
	f.shim_flag = false;
	assert_int_equal(rtshim_decide(&f).flag_owner, RTSHIM_FLAG_PROGRAMS);
}

/* Rule 4 */
static void test_limits_are_read_only_for_rt_requests(void **state)
{
	(void)state;
	struct rtshim_facts f = refused(RR, 10);
	f.limits.done = false;
	assert_int_equal(rtshim_decide(&f).action, RTSHIM_READ_LIMITS);

	f.limits = (struct rtshim_step){ true, -ELIBACC };
	struct rtshim_decision d = rtshim_decide(&f);
	assert_int_equal(d.program_errno, EPERM);
	assert_int_equal(d.why, RTSHIM_WHY_NO_CLIENT);

	f.limits.err = -ETIMEDOUT;
	d = rtshim_decide(&f);
	assert_int_equal(d.why, RTSHIM_WHY_NO_DAEMON);
	assert_int_equal(d.why_err, -ETIMEDOUT);
}

/* Rule 5: below each distinct higher priority another thread of the process holds */
static void test_mapped_below_the_higher_priorities_held(void **state)
{
	(void)state;
	struct rtshim_facts f = refused(FIFO, 50);
	f.above = 1; /* a thread asked 51 and has 20 */
	struct rtshim_decision d = rtshim_decide(&f);
	assert_int_equal(d.action, RTSHIM_ASK_RTKIT);
	assert_int_equal(d.prio, 19);
	assert_true(d.prio_changed);

	f = refused(FIFO, 2); /* room below: as asked */
	f.above = 1;
	d = rtshim_decide(&f);
	assert_int_equal(d.prio, 2);
	assert_false(d.prio_changed);

	f = refused(FIFO, 20);
	f.above = 30; /* more than rtkit's range: the lowest step */
	assert_int_equal(rtshim_decide(&f).prio, 1);

	f = refused(FIFO, 50); /* an inherited priority is its creator's, in place already */
	f.inherited = true;
	f.above = 1;
	assert_int_equal(rtshim_decide(&f).prio, 20);

	f = refused(FIFO, 19); /* RTSHIM_STRICT: a priority that would change is refused */
	cfg.strict = true;
	f.above = 2;
	d = rtshim_decide(&f);
	assert_int_equal(d.program_errno, EPERM);
	assert_int_equal(d.why, RTSHIM_WHY_STRICT);
}

/* Rule 9 and 10 */
static void test_grant_with_bounded_rttime_and_guard(void **state)
{
	(void)state;
	struct rtshim_facts f = refused(FIFO, 80);
	struct rtshim_decision d = rtshim_decide(&f);
	assert_int_equal(d.action, RTSHIM_ASK_RTKIT);
	assert_int_equal(d.prio, 20); /* clamped */
	assert_true(d.prio_changed);
	assert_true(d.set_rttime);
	assert_int_equal(d.hard, 200000);
	assert_int_equal(d.soft, 160000); /* the runaway guard's 80 % */
	assert_true(d.arm_guard);
	assert_int_equal(d.budget_kind, RTSHIM_BUDGET_OWN);

	f.rtkit.done = true;
	d = rtshim_decide(&f);
	assert_int_equal(d.action, RTSHIM_DONE);
	assert_int_equal(d.program_errno, 0);
	assert_int_equal(d.why, RTSHIM_WHY_GRANTED);
	assert_int_equal(d.flag_owner, RTSHIM_FLAG_SHIMS); /* rtkit's flag, not the program's */

	/* arming failed: the kernel's behaviour, soft = hard */
	f = refused(RR, 10);
	f.guard_failed = true;
	d = rtshim_decide(&f);
	assert_false(d.arm_guard);
	assert_int_equal(d.soft, 200000);

	/* RTSHIM_RUNAWAY=kill, and another process (no handler of ours there) */
	f = refused(RR, 10);
	cfg.runaway = RTSHIM_RUNAWAY_KILL;
	assert_int_equal(rtshim_decide(&f).soft, 200000);
	f = refused(RR, 10);
	f.target = RTSHIM_TARGET_OTHER;
	f.other_explicit = true;
	f.guard_possible = false;
	d = rtshim_decide(&f);
	assert_false(d.arm_guard);
	assert_int_equal(d.soft, 200000);
	assert_int_equal(d.budget_kind, RTSHIM_BUDGET_OTHER);

	/* a limit already acceptable is kept (never raised); the guard still lowers the soft */
	f = refused(RR, 10);
	f.rttime_soft = 50000;
	f.rttime_hard = 100000;
	d = rtshim_decide(&f);
	assert_false(d.set_rttime);
	assert_int_equal(d.hard, 100000);
	assert_int_equal(d.soft, 50000);
	f.rttime_soft = 100000;
	d = rtshim_decide(&f);
	assert_true(d.set_rttime);
	assert_int_equal(d.soft, 80000);

	/* RTSHIM_RTTIME_US below rtkit's max */
	f = refused(RR, 10);
	cfg.rttime_us = 50000;
	d = rtshim_decide(&f);
	assert_int_equal(d.hard, 50000);
	assert_int_equal(d.soft, 40000);
}

/* Rule 9 */
static void test_rttime_that_cannot_be_had(void **state)
{
	(void)state;
	struct rtshim_facts f = refused(RR, 10);
	f.rttime_hard = 0;
	struct rtshim_decision d = rtshim_decide(&f);
	assert_int_equal(d.program_errno, EPERM);
	assert_int_equal(d.why, RTSHIM_WHY_RTTIME_ZERO);

	f = refused(RR, 10);
	f.rttime_err = -EPERM;
	assert_int_equal(rtshim_decide(&f).why, RTSHIM_WHY_RTTIME_UNREADABLE);

	f = refused(RR, 10);
	f.rttime_set = (struct rtshim_step){ true, -EPERM };
	d = rtshim_decide(&f);
	assert_int_equal(d.action, RTSHIM_DONE);
	assert_int_equal(d.why, RTSHIM_WHY_RTTIME_UNSET);
}

/* Rule 5 */
static void test_mapping_modes(void **state)
{
	(void)state;
	struct { int mode, top, asked, want; } rows[] = {
		{ RTSHIM_PRIO_CLAMP, 0, 10, 10 },  { RTSHIM_PRIO_CLAMP, 0, 99, 20 },
		{ RTSHIM_PRIO_SCALE, 0, 99, 20 },  { RTSHIM_PRIO_SCALE, 0, 50, 11 },
		{ RTSHIM_PRIO_OFFSET, 70, 70, 20 }, { RTSHIM_PRIO_OFFSET, 70, 65, 15 },
		{ RTSHIM_PRIO_OFFSET, 0, 98, 19 },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		struct rtshim_facts f = refused(RR, rows[i].asked);
		cfg.prio_map = rows[i].mode;
		cfg.prio_top = rows[i].top;
		struct rtshim_decision d = rtshim_decide(&f);
		assert_int_equal(d.action, RTSHIM_ASK_RTKIT);
		assert_int_equal(d.prio, rows[i].want);
	}
	/* an inherited priority is rtkit's already: never mapped twice */
	struct rtshim_facts f = refused(RR, 15);
	cfg.prio_map = RTSHIM_PRIO_SCALE;
	f.inherited = true;
	assert_int_equal(rtshim_decide(&f).prio, 15);

	f = refused(RR, 10);
	f.lim.max_realtime_priority = 0;
	assert_int_equal(rtshim_decide(&f).why, RTSHIM_WHY_NO_PRIORITY);
}

/* Rule 5 */
static void test_strict_refuses_another_priority(void **state)
{
	(void)state;
	struct rtshim_facts f = refused(FIFO, 80);
	cfg.strict = true;
	struct rtshim_decision d = rtshim_decide(&f);
	assert_int_equal(d.action, RTSHIM_DONE);
	assert_int_equal(d.program_errno, EPERM);
	assert_int_equal(d.why, RTSHIM_WHY_STRICT);
	f.prio = 20;
	assert_int_equal(rtshim_decide(&f).action, RTSHIM_ASK_RTKIT);
}

/* Rule 6 */
static void test_already_rt_spends_no_budget(void **state)
{
	(void)state;
	/* FIFO 80 asked again by a thread rtkit made RR 20 */
	struct rtshim_facts f = refused(FIFO, 80);
	f.cur_policy = RR | FLAG;
	f.cur_prio = 20;
	struct rtshim_decision d = rtshim_decide(&f);
	assert_int_equal(d.action, RTSHIM_CALL_KEEPING_FLAG);
	assert_int_equal(d.policy, FIFO | FLAG);
	f.keeping_flag = (struct rtshim_step){ true, -EPERM }; /* a change of policy */
	d = rtshim_decide(&f);
	assert_int_equal(d.action, RTSHIM_DONE);
	assert_int_equal(d.program_errno, 0);
	assert_int_equal(d.why, RTSHIM_WHY_ALREADY);
	assert_int_equal(d.flag_owner, RTSHIM_FLAG_SHIMS);
	assert_true(d.prio_changed);
	/* the program asked for the flag itself: it stays visible */
	f.policy = FIFO | FLAG;
	assert_int_equal(rtshim_decide(&f).flag_owner, RTSHIM_FLAG_PROGRAMS);
}

/* Rule 7 */
static void test_lowering_within_the_grant(void **state)
{
	(void)state;
	struct rtshim_facts f = refused(FIFO, 5);
	f.cur_policy = RR | FLAG;
	f.cur_prio = 20;
	struct rtshim_decision d = rtshim_decide(&f);
	assert_int_equal(d.action, RTSHIM_CALL_KEEPING_FLAG); /* the kernel may allow it as asked */
	f.keeping_flag = (struct rtshim_step){ true, -EPERM }; /* FIFO is a change of policy */
	d = rtshim_decide(&f);
	assert_int_equal(d.action, RTSHIM_LOWER);
	assert_int_equal(d.policy, RR | FLAG);
	assert_int_equal(d.prio, 5);
	f.lowered = (struct rtshim_step){ true, 0 };
	d = rtshim_decide(&f);
	assert_int_equal(d.why, RTSHIM_WHY_LOWERED);
	assert_int_equal(d.program_errno, 0);
	/* lowering refused (never seen): rtkit is asked */
	f.lowered.err = -EPERM;
	d = rtshim_decide(&f);
	assert_int_equal(d.action, RTSHIM_ASK_RTKIT);
	assert_int_equal(d.budget_kind, RTSHIM_BUDGET_RAISE);
}

/* Rule 10 */
static void test_nice_fallback(void **state)
{
	(void)state;
	struct rtshim_facts f = refused(RR, 10);
	cfg.nice_fallback = RTSHIM_NICE_ALWAYS;
	struct rtshim_decision d = rtshim_decide(&f);
	assert_int_equal(d.action, RTSHIM_ASK_NICE);
	assert_int_equal(d.why, RTSHIM_WHY_NICE_ONLY);
	assert_int_equal(d.program_errno, EPERM);

	/* refused: nice by default, not with RTSHIM_NICE_FALLBACK=off */
	f = refused(RR, 10);
	f.rtkit = (struct rtshim_step){ true, -EPERM };
	d = rtshim_decide(&f);
	assert_int_equal(d.action, RTSHIM_ASK_NICE);
	assert_int_equal(d.why, RTSHIM_WHY_REFUSED);
	assert_int_equal(d.why_err, -EPERM);
	cfg.nice_fallback = RTSHIM_NICE_OFF;
	d = rtshim_decide(&f);
	assert_int_equal(d.action, RTSHIM_DONE);
	assert_int_equal(d.program_errno, EPERM);
	/* a per-user limit (EBUSY) would refuse the nice level too: not asked */
	f = refused(RR, 10);
	f.rtkit = (struct rtshim_step){ true, -EBUSY };
	d = rtshim_decide(&f);
	assert_int_equal(d.action, RTSHIM_DONE);
	assert_int_equal(d.why, RTSHIM_WHY_REFUSED);
	assert_int_equal(d.why_err, -EBUSY);
	assert_int_equal(d.program_errno, EPERM);
	/* no answer is no refusal: no nice level either */
	f = refused(RR, 10);
	f.rtkit = (struct rtshim_step){ true, -ETIMEDOUT };
	d = rtshim_decide(&f);
	assert_int_equal(d.action, RTSHIM_DONE);
	assert_int_equal(d.why_err, -ETIMEDOUT);
}

/* Rule 8 */
static void test_backoff(void **state)
{
	(void)state;
	struct rtshim_facts f = refused(RR, 10);
	f.held_ms[RTSHIM_BUDGET_OWN] = 800;
	f.held_err[RTSHIM_BUDGET_OWN] = -EBUSY;
	struct rtshim_decision d = rtshim_decide(&f);
	assert_int_equal(d.action, RTSHIM_ASK_NICE);
	assert_int_equal(d.why, RTSHIM_WHY_HELD);
	assert_int_equal(d.wait_ms, 800);
	assert_int_equal(d.why_err, -EBUSY);
	/* another kind is not held */
	f.target = RTSHIM_TARGET_OTHER;
	f.other_explicit = true;
	assert_int_equal(rtshim_decide(&f).action, RTSHIM_ASK_RTKIT);

	/* a raise that flaps: the same thread to the same priority */
	f = refused(RR, 15);
	f.cur_policy = RR | FLAG;
	f.cur_prio = 10;
	f.keeping_flag = (struct rtshim_step){ true, -EPERM };
	f.raise_tid = 100;
	f.raise_prio = 15;
	f.raise_hold_ms = 1000;
	d = rtshim_decide(&f);
	assert_int_equal(d.why, RTSHIM_WHY_FLAPPING);
	assert_int_equal(d.wait_ms, 1000);
	f.raise_prio = 12;
	assert_int_equal(rtshim_decide(&f).action, RTSHIM_ASK_RTKIT);
}

/* A thread created with an explicit attribute that sets no realtime policy, after glibc gave it
 * the creating thread's recorded (realtime) scheduling: it asks for what the creator has now,
 * flag dropped; a creator that is not realtime gives it nothing to ask for. */
/* Rule 18 */
static void test_creation_copies_the_creators_realtime(void **state)
{
	(void)state;
	int policy = -1, prio = -1;
	assert_true(rtshim_creation_copies(RR | FLAG, 20, &policy, &prio));
	assert_int_equal(policy, RR);
	assert_int_equal(prio, 20);
	assert_true(rtshim_creation_copies(FIFO, 70, &policy, &prio));
	assert_int_equal(policy, FIFO);
	assert_int_equal(prio, 70);

	policy = prio = -1;
	assert_false(rtshim_creation_copies(OTHER | FLAG, 0, &policy, &prio));
	assert_false(rtshim_creation_copies(SCHED_BATCH, 0, &policy, &prio));
	assert_false(rtshim_creation_copies(RR, 0, &policy, &prio));
	assert_int_equal(policy, -1);
	assert_int_equal(prio, -1);
}

/* Rule 8's flapping test on its own: what budget.c's memo asks too */
static void test_raise_flaps(void **state)
{
	(void)state;
	assert_true(rtshim_raise_flaps(100, 15, 1, 100, 15));
	assert_false(rtshim_raise_flaps(100, 15, 0, 100, 15)); /* no longer held */
	assert_false(rtshim_raise_flaps(100, 15, 1, 101, 15)); /* another thread */
	assert_false(rtshim_raise_flaps(100, 15, 1, 100, 14)); /* another priority */
}

/* A nice request: thread SCHED_OTHER at 0, rtkit's MinNiceLevel -15, no backoff. */
static struct rtshim_nice_facts nice_facts(int want)
{
	return (struct rtshim_nice_facts){ .want = want, .cur_policy = OTHER, .cur_nice = 0,
					   .min_nice_level = -15 };
}

/* Rule 11 */
static void test_nice_skips_realtime_threads(void **state)
{
	(void)state;
	struct rtshim_nice_facts f = nice_facts(-10);
	f.cur_policy = RR | FLAG;
	assert_int_equal(rtshim_decide_nice(&f).step, RTSHIM_NICE_SKIP_RT);
	f.cur_policy = FIFO;
	f.cur_err = -ESRCH; /* not even read: a realtime thread is left alone */
	assert_int_equal(rtshim_decide_nice(&f).step, RTSHIM_NICE_SKIP_RT);
	f.cur_policy = OTHER;
	struct rtshim_nice_decision d = rtshim_decide_nice(&f);
	assert_int_equal(d.step, RTSHIM_NICE_FAILED);
	assert_int_equal(d.err, -ESRCH);
}

/* Rule 12 */
static void test_nice_within_min_nice_level(void **state)
{
	(void)state;
	struct rtshim_nice_facts f = nice_facts(-10);
	struct rtshim_nice_decision d = rtshim_decide_nice(&f);
	assert_int_equal(d.step, RTSHIM_NICE_ASK);
	assert_int_equal(d.send, -10);
	assert_false(d.clamped);
	f.want = -19;
	d = rtshim_decide_nice(&f);
	assert_int_equal(d.send, -15);
	assert_true(d.clamped);
	/* the kernel's own clamp first: -30 is -20, which rtkit's -20 allows as it is */
	f.want = -30;
	f.min_nice_level = -20;
	d = rtshim_decide_nice(&f);
	assert_int_equal(d.send, -20);
	assert_false(d.clamped);
}

/* Rule 13 */
static void test_nice_already_nicer(void **state)
{
	(void)state;
	struct rtshim_nice_facts f = nice_facts(-19);
	f.cur_nice = -15;
	struct rtshim_nice_decision d = rtshim_decide_nice(&f);
	assert_int_equal(d.step, RTSHIM_NICE_ALREADY);
	assert_int_equal(d.send, -15);
	f.cur_nice = -14;
	assert_int_equal(rtshim_decide_nice(&f).step, RTSHIM_NICE_ASK);
}

/* Rule 14 */
static void test_nice_backoff(void **state)
{
	(void)state;
	struct rtshim_nice_facts f = nice_facts(-10);
	f.held_err = -EPERM;
	struct rtshim_nice_decision d = rtshim_decide_nice(&f);
	assert_int_equal(d.step, RTSHIM_NICE_HELD);
	assert_int_equal(d.err, -EPERM);
	/* nice enough already: done, held or not */
	f.cur_nice = -12;
	assert_int_equal(rtshim_decide_nice(&f).step, RTSHIM_NICE_ALREADY);
}

/* Rule 15 */
static void test_creation_explicit_rt_attribute_is_promoted(void **state)
{
	(void)state;
	assert_true(rtshim_creation_promotes(true, FIFO, 70));
	assert_true(rtshim_creation_promotes(true, RR, 1));
	assert_false(rtshim_creation_promotes(false, FIFO, 70)); /* inherited: glibc ignores it */
	assert_false(rtshim_creation_promotes(true, OTHER, 0));
	assert_false(rtshim_creation_promotes(true, FIFO, 0));  /* glibc's EINVAL stands */
}

/* Rule 16 */
static void test_creation_strict(void **state)
{
	(void)state;
	rtshim_config_defaults(&cfg);
	assert_true(rtshim_creation_runs(&cfg, 0));
	assert_true(rtshim_creation_runs(&cfg, EPERM));   /* SCHED_OTHER, with one warning */
	assert_false(rtshim_creation_runs(&cfg, EINVAL));
	cfg.strict = true;
	assert_true(rtshim_creation_runs(&cfg, 0));
	assert_false(rtshim_creation_runs(&cfg, EPERM));  /* pthread_create fails instead */
}

/* Rule 17 */
static void test_creation_inherits(void **state)
{
	(void)state;
	int policy = -1, prio = -1;
	rtshim_config_defaults(&cfg);
	assert_false(rtshim_creation_inherits(&cfg, true, true, RR | FLAG, 15, &policy, &prio));
	cfg.inherit = true;
	assert_true(rtshim_creation_inherits(&cfg, true, true, RR | FLAG, 15, &policy, &prio));
	assert_int_equal(policy, RR);
	assert_int_equal(prio, 15);
	policy = prio = -1;
	assert_false(rtshim_creation_inherits(&cfg, false, true, RR | FLAG, 15, &policy, &prio));
	assert_false(rtshim_creation_inherits(&cfg, true, false, RR | FLAG, 15, &policy, &prio));
	/* realtime without the flag is the program's own (RLIMIT_RTPRIO): glibc's business */
	assert_false(rtshim_creation_inherits(&cfg, true, true, RR, 15, &policy, &prio));
	assert_false(rtshim_creation_inherits(&cfg, true, true, OTHER | FLAG, 0, &policy, &prio));
	assert_int_equal(policy, -1);
}

/* Rule 19 */
static void test_setattr_as_setscheduler(void **state)
{
	(void)state;
	int policy = -1;
	assert_true(rtshim_attr_as_setscheduler(EPERM, FIFO, 0, &policy));
	assert_int_equal(policy, FIFO);
	assert_true(rtshim_attr_as_setscheduler(EPERM, RR, RTSHIM_ATTR_FLAG_RESET_ON_FORK, &policy));
	assert_int_equal(policy, RR | FLAG);
	policy = -1;
	assert_false(rtshim_attr_as_setscheduler(EINVAL, FIFO, 0, &policy));
	assert_false(rtshim_attr_as_setscheduler(EPERM, OTHER, 0, &policy));
	assert_false(rtshim_attr_as_setscheduler(EPERM, 6 /* SCHED_DEADLINE */, 0, &policy));
	assert_false(rtshim_attr_as_setscheduler(EPERM, FIFO, 0x20 /* util clamp */, &policy));
	assert_int_equal(policy, -1);
}

/* Rules 21 and 22 */
static void test_sandbox_and_other_process_ask_no_daemon(void **state)
{
	(void)state;
	struct rtshim_facts f = refused(FIFO, 10);
	f.sandboxed = true;
	struct rtshim_decision d = rtshim_decide(&f);
	assert_int_equal(d.action, RTSHIM_DONE);
	assert_int_equal(d.program_errno, EPERM);
	assert_int_equal(d.why, RTSHIM_WHY_SANDBOXED);
	/* a drop keeping the flag needs no daemon: done in a sandbox too */
	f = refused(OTHER, 0);
	f.sandboxed = true;
	f.cur_policy = RR | FLAG;
	f.keeping_flag = (struct rtshim_step){ true, 0 };
	assert_int_equal(rtshim_decide(&f).why, RTSHIM_WHY_KEPT_FLAG);
	/* another process's thread: only when a person asked */
	f = refused(FIFO, 10);
	f.target = RTSHIM_TARGET_OTHER;
	d = rtshim_decide(&f);
	assert_int_equal(d.action, RTSHIM_DONE);
	assert_int_equal(d.program_errno, EPERM);
	assert_int_equal(d.why, RTSHIM_WHY_OTHER_PROCESS);
	f.other_explicit = true;
	assert_int_equal(rtshim_decide(&f).action, RTSHIM_ASK_RTKIT);
}

/* Rule 20 */
static void test_setattr_keeps_the_flag(void **state)
{
	(void)state;
	uint64_t flags = 0;
	/* a drop, a drop with a nice level, a priority change: the flag ORed in, the rest kept */
	assert_true(rtshim_attr_keeps_flag(EPERM, 0, RR | FLAG, &flags));
	assert_int_equal(flags, RTSHIM_ATTR_FLAG_RESET_ON_FORK);
	assert_true(rtshim_attr_keeps_flag(EPERM, 0x20 /* util clamp */, OTHER | FLAG, &flags));
	assert_int_equal(flags, 0x20 | RTSHIM_ATTR_FLAG_RESET_ON_FORK);
	flags = 7;
	/* no flag on the thread, another error, the flag asked or kept by KEEP_POLICY already */
	assert_false(rtshim_attr_keeps_flag(EPERM, 0, RR, &flags));
	assert_false(rtshim_attr_keeps_flag(EPERM, 0, -1, &flags));
	assert_false(rtshim_attr_keeps_flag(EINVAL, 0, RR | FLAG, &flags));
	assert_false(rtshim_attr_keeps_flag(EPERM, RTSHIM_ATTR_FLAG_RESET_ON_FORK, RR | FLAG, &flags));
	assert_false(rtshim_attr_keeps_flag(EPERM, RTSHIM_ATTR_FLAG_KEEP_POLICY, RR | FLAG, &flags));
	assert_int_equal(flags, 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_privileged_path_is_exactly_the_call),
		cmocka_unit_test(test_privileged_opt_ins),
		cmocka_unit_test(test_privileged_shortcut_decides_as_the_core),
		cmocka_unit_test(test_other_errors_are_the_kernels),
		cmocka_unit_test(test_only_our_users_threads),
		cmocka_unit_test(test_switched_off_is_the_kernels_answer),
		cmocka_unit_test(test_drops_keep_the_flag),
		cmocka_unit_test(test_priority_alone_asks_rt_only_on_rt_threads),
		cmocka_unit_test(test_limits_are_read_only_for_rt_requests),
		cmocka_unit_test(test_mapped_below_the_higher_priorities_held),
		cmocka_unit_test(test_grant_with_bounded_rttime_and_guard),
		cmocka_unit_test(test_rttime_that_cannot_be_had),
		cmocka_unit_test(test_mapping_modes),
		cmocka_unit_test(test_strict_refuses_another_priority),
		cmocka_unit_test(test_already_rt_spends_no_budget),
		cmocka_unit_test(test_lowering_within_the_grant),
		cmocka_unit_test(test_nice_fallback),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_creation_copies_the_creators_realtime),
		cmocka_unit_test(test_raise_flaps),
		cmocka_unit_test(test_nice_skips_realtime_threads),
		cmocka_unit_test(test_nice_within_min_nice_level),
		cmocka_unit_test(test_nice_already_nicer),
		cmocka_unit_test(test_nice_backoff),
		cmocka_unit_test(test_creation_explicit_rt_attribute_is_promoted),
		cmocka_unit_test(test_creation_strict),
		cmocka_unit_test(test_creation_inherits),
		cmocka_unit_test(test_setattr_as_setscheduler),
		cmocka_unit_test(test_setattr_keeps_the_flag),
		cmocka_unit_test(test_sandbox_and_other_process_ask_no_daemon),
	};
	return cmocka_run_group_tests_name("decide", tests, NULL, NULL);
}
