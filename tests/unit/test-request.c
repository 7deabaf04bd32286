/* test-request.c — the shim's slow path (shim/slow-path.c: rtshim_slow_path_with) and the
 * decide-and-do loop it runs (core/carry-out.c), driven with fake operations: every way from the kernel's EPERM to
 * what the program gets, without root, rtkit or D-Bus.  Each test sets up what the kernel,
 * the client and rtkit would say, and asserts the errno the program gets and the effects the
 * loop ran, in order (the fakes write each into `effects`). */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "budget.h"
#include "config.h"
#include "carry-out.h"
#include "decide.h"
#include "log.h"
#include "registry.h"
#include "request-record.h"
#include "slow-path.h"
#include "trace.h"

#define FIFO SCHED_FIFO
#define RR SCHED_RR
#define OTHER SCHED_OTHER
#define FLAG SCHED_RESET_ON_FORK
#define INF RLIM_INFINITY
#define TID 100 /* the target thread */

/* ---- what the world says --------------------------------------------------------------------- */

static struct world {
	/* the target (find_target) and the kernel's view of it (read_sched) */
	enum rtshim_target where;
	pid_t pid; /* its process: 0 = this one */
	bool self; /* the caller: its record is marked in flight */
	int policy, prio;
	int read_err;  /* read_sched fails (the thread is gone) */
	int flags;     /* its RTSHIM_TF_* flags */
	int call_err;  /* the real call again (keeping the flag) */
	int lower_err; /* the lowering */
	/* the client, rtkit's limits, RLIMIT_RTTIME */
	bool sandboxed; /* a seccomp filter is in force */
	bool explicit_other; /* a person asked for another process's thread */
	bool no_client;
	int limits_err;
	struct rtkit_limits lim;
	int rttime_err, set_err;
	rlim_t soft, hard;
	int arm_err;
	/* rtkit's answer; rtkit gives RR */
	int rtkit_err;
	enum rtshim_nice_outcome nice;
	/* the budget's facts */
	int64_t held_ms[RTSHIM_BUDGET_KINDS];
	int held_err[RTSHIM_BUDGET_KINDS];
	int64_t raise_hold_ms;
	int raise_prio;
	int gate_err; /* the gate: another thread's answer (a refusal), or -ETIMEDOUT */
	int gate_held; /* passed and not opened again */
	/* what happened */
	char effects[1024];
	int in_flight; /* begun and not ended */
} w;

static struct rtshim_config cfg;
static struct rtshim_thread self_record;

static void effect(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void effect(const char *fmt, ...)
{
	size_t n = strlen(w.effects);
	va_list ap;
	if (n)
		w.effects[n++] = ' ';
	va_start(ap, fmt);
	vsnprintf(w.effects + n, sizeof w.effects - n, fmt, ap);
	va_end(ap);
}

static const char *pol(int policy)
{
	static char buf[4][16];
	static int i;
	char *b = buf[i++ % 4];
	int p = policy & ~FLAG;
	const char *name = p == FIFO ? "FIFO" : p == RR ? "RR" : p == OTHER ? "OTHER" : "?";
	snprintf(b, sizeof buf[0], "%s%s", name, policy & FLAG ? "|FLAG" : "");
	return b;
}

/* ---- the fake operations --------------------------------------------------------------------- */

static int fake_real_call(const struct rtshim_req *r, int policy)
{
	(void)r;
	effect("call(%s)", pol(policy));
	return w.call_err;
}

static int fake_read_sched(pid_t tid, int *policy, int *prio)
{
	effect("read(%d)", (int)tid);
	if (w.read_err)
		return w.read_err;
	*policy = w.policy;
	*prio = w.prio;
	return 0;
}

static void fake_find_target(const struct rtshim_req *r, struct rtshim_request_target *t)
{
	(void)r;
	effect("target");
	*t = (struct rtshim_request_target){ .where = w.where };
	if (w.where == RTSHIM_TARGET_UNKNOWN)
		return;
	t->tid = TID;
	t->pid = w.pid;
	t->self = w.self ? &self_record : NULL;
	t->guard_possible = w.pid == 0;
}

static bool fake_flag_added(const struct rtshim_req *r, const struct rtshim_request_target *t)
{
	(void)r;
	(void)t;
	effect("flags");
	return w.flags & RTSHIM_TF_FLAG_ADDED;
}

static void fake_update_flags(const struct rtshim_req *r, const struct rtshim_request_target *t,
			      int set, int clear)
{
	(void)r;
	(void)t;
	int prio = RTSHIM_TF_ASKED_PRIO | RTSHIM_TF_PRIO_BITS;
	if (set & RTSHIM_TF_ASKED_PRIO)
		effect("record(+%d,-%d,asked %d got %d)", set & ~prio, clear & ~prio, set >> 8 & 0xff,
		       set >> 16 & 0xff);
	else
		effect("record(+%d,-%d)", set & ~prio, clear & ~prio);
}

static void fake_in_flight(struct rtshim_thread *self, bool begin)
{
	assert_ptr_equal(self, &self_record);
	effect(begin ? "pending" : "settled");
	w.in_flight += begin ? 1 : -1;
}

static int fake_get_limits(int timeout_ms, struct rtkit_limits *out)
{
	assert_int_equal(timeout_ms, cfg.timeout_ms);
	effect("client");
	if (w.no_client)
		return -ELIBACC;
	effect("limits");
	*out = w.lim;
	return w.limits_err;
}

static int fake_make_realtime(pid_t pid, pid_t tid, int prio)
{
	effect("rtkit(%d,%d,%d)", (int)pid, (int)tid, prio);
	if (!w.rtkit_err) {
		w.policy = RR | FLAG; /* rtkit's grant */
		w.prio = prio;
	}
	return w.rtkit_err;
}

/* noted only when it says yes: every request asks, before any work of the client's */
static bool fake_sandboxed(void)
{
	if (w.sandboxed)
		effect("sandboxed");
	return w.sandboxed;
}

static bool fake_other_explicit(pid_t pid)
{
	effect("explicit(%d)=%d", (int)pid, (int)w.explicit_other);
	return w.explicit_other;
}

static int fake_get_rttime(pid_t pid, rlim_t *soft, rlim_t *hard)
{
	effect("rttime(%d)", (int)pid);
	*soft = w.soft;
	*hard = w.hard;
	return w.rttime_err;
}

static int fake_set_rttime(pid_t pid, rlim_t soft, rlim_t hard)
{
	effect("rttime(%d)=%llu/%llu", (int)pid, (unsigned long long)soft, (unsigned long long)hard);
	return w.set_err;
}

static int fake_arm_guard(rlim_t soft)
{
	effect("guard(%llu)", (unsigned long long)soft);
	return w.arm_err;
}

static int fake_lower(pid_t tid, int policy, int prio)
{
	effect("lower(%d,%s,%d)", (int)tid, pol(policy), prio);
	if (!w.lower_err)
		w.prio = prio;
	return w.lower_err;
}

static enum rtshim_nice_outcome fake_nice_instead(const struct rtkit_limits *lim, pid_t pid,
						  pid_t tid)
{
	assert_int_equal(lim->min_nice_level, w.lim.min_nice_level);
	effect("nice(%d,%d)", (int)pid, (int)tid);
	return w.nice;
}

static void fake_budget_facts(struct rtshim_facts *f)
{
	effect("budget");
	memcpy(f->held_ms, w.held_ms, sizeof f->held_ms);
	memcpy(f->held_err, w.held_err, sizeof f->held_err);
	if (w.raise_hold_ms) {
		f->raise_tid = TID;
		f->raise_prio = w.raise_prio;
		f->raise_hold_ms = w.raise_hold_ms;
	}
}

static int fake_budget_begin(int kind, int timeout_ms)
{
	assert_int_equal(timeout_ms, cfg.timeout_ms);
	if (!w.gate_err) {
		w.gate_held++;
		return 0;
	}
	effect("gate(%d)=%d", kind, w.gate_err);
	if (w.gate_err != -ETIMEDOUT) { /* the memo holds what the other thread heard */
		w.held_ms[kind] = 1000;
		w.held_err[kind] = w.gate_err;
	}
	return w.gate_err;
}

static void fake_budget_record(int kind, int err)
{
	effect("spent(%d,%d)", kind, err);
}

static void fake_budget_end(void)
{
	w.gate_held--;
}

static void fake_budget_rt_thread_gone(void)
{
	effect("slot-freed");
}

static void fake_budget_raise_granted(pid_t tid, int prio)
{
	effect("raised(%d,%d)", (int)tid, prio);
}

static const struct rtshim_budget_ops fake_budget = {
	.facts = fake_budget_facts,
	.begin = fake_budget_begin,
	.record = fake_budget_record,
	.end = fake_budget_end,
	.rt_thread_gone = fake_budget_rt_thread_gone,
	.raise_granted = fake_budget_raise_granted,
};

/* the shim's own record (request-record.c), written through the fakes */
static const struct rtshim_request_ops fake_ops = {
	.real_call = fake_real_call,
	.read_sched = fake_read_sched,
	.flag_added = fake_flag_added,
	.sandboxed = fake_sandboxed,
	.other_explicit = fake_other_explicit,
	.get_limits = fake_get_limits,
	.make_realtime = fake_make_realtime,
	.get_rttime = fake_get_rttime,
	.set_rttime = fake_set_rttime,
	.arm_guard = fake_arm_guard,
	.lower = fake_lower,
	.nice_instead = fake_nice_instead,
	.budget = &fake_budget,
	.record = rtshim_record_outcome,
	.find_target = fake_find_target,
	.in_flight = fake_in_flight,
	.update_flags = fake_update_flags,
};

/* ---- the requests ---------------------------------------------------------------------------- */

/* An unprivileged user's thread, SCHED_OTHER, its own; rtkit's default limits
 * (MaxRealtimePriority 20, MinNiceLevel -15, RTTimeUSecMax 200 ms); RLIMIT_RTTIME unlimited;
 * everything succeeds unless a test says otherwise. */
static int setup(void **state)
{
	(void)state;
	memset(&w, 0, sizeof w);
	w.where = RTSHIM_TARGET_SELF;
	w.self = true;
	w.policy = OTHER;
	w.lim = (struct rtkit_limits){ .max_realtime_priority = 20, .min_nice_level = -15,
				       .rttime_usec_max = 200000 };
	w.soft = w.hard = INF;
	w.nice = RTSHIM_NICE_GOT;
	rtshim_config_defaults(&cfg);
	rtshim_log_set_level(RTSHIM_LOG_QUIET);
	return 0;
}

static struct sched_param param;
static pid_t granted;

/* sched_setscheduler(0, policy, {prio}) whose direct call returned `direct`: what the program
 * gets (0 or its errno). */
static int sched_request(enum rtshim_req_kind kind, int policy, int prio, int direct)
{
	param.sched_priority = prio;
	struct rtshim_req r = { .kind = kind, .pid = 0, .thread = pthread_self(), .policy = policy,
				.param = &param };
	granted = 0;
	int err = rtshim_slow_path_with(&fake_ops, &cfg, &r, direct, &granted);
	assert_int_equal(w.in_flight, 0); /* whatever happened, the record is not left in flight */
	assert_int_equal(w.gate_held, 0); /* ... nor the gate taken */
	return err;
}

static int setscheduler(int policy, int prio, int direct)
{
	return sched_request(RTSHIM_REQ_SCHED_SETSCHEDULER, policy, prio, direct);
}

/* What every refused realtime request does first: the target, its state, the client, rtkit's
 * limits, RLIMIT_RTTIME of its process, the budget. */
#define GATHERED "target pending read(100) flags budget client limits rttime(0)"
/* ... then the runaway guard at 80% of the 200 ms RLIMIT_RTTIME that rtkit demands, that limit
 * set, rtkit asked for priority 20 */
#define ASKED GATHERED " guard(160000) rttime(0)=160000/200000 rtkit(0,100,20)"
/* the record of a grant: FLAG_ADDED|GRANTED set, ASKED_FIFO cleared */
#define GRANTED_RECORD "read(100) record(+3,-4)"

/* ---- rtkit grants ---------------------------------------------------------------------------- */

static void test_direct_error_other_than_eperm_is_the_programs(void **state)
{
	(void)state;
	assert_int_equal(setscheduler(FIFO, 20, -EINVAL), EINVAL);
	assert_string_equal(w.effects, ""); /* nothing looked at, nothing asked */
	assert_int_equal(setscheduler(FIFO, 20, -ESRCH), ESRCH);
	assert_string_equal(w.effects, "");
}

static void test_eperm_then_rtkit_grants(void **state)
{
	(void)state;
	assert_int_equal(setscheduler(RR, 20, -EPERM), 0);
	assert_string_equal(w.effects, ASKED " spent(0,0) " GRANTED_RECORD " settled");
	assert_int_equal(granted, TID); /* the guard is told about the thread */
}

static void test_granted_as_rr_after_fifo_asked_is_recorded(void **state)
{
	(void)state;
	/* rtkit gives SCHED_RR: readers must report the SCHED_FIFO the program asked */
	assert_int_equal(setscheduler(FIFO, 20, -EPERM), 0);
	assert_string_equal(w.effects, ASKED " spent(0,0) read(100) record(+7,-0) settled");
}

static void test_granted_rr_asked_is_recorded_without_fifo(void **state)
{
	(void)state;
	assert_int_equal(setscheduler(RR, 20, -EPERM), 0);
	assert_string_equal(w.effects, ASKED " spent(0,0) " GRANTED_RECORD " settled");
}

static void test_priority_clamped_to_rtkits_maximum(void **state)
{
	(void)state;
	assert_int_equal(setscheduler(RR, 80, -EPERM), 0);
	/* the thread's readers report the 80 asked while it has rtkit's 20 (rule 6) */
	assert_string_equal(w.effects, GATHERED " guard(160000) rttime(0)=160000/200000 rtkit(0,100,20) "
				       "spent(0,0) read(100) record(+3,-4,asked 80 got 20) settled");
}

static void test_timeout_is_eperm(void **state)
{
	(void)state;
	w.rtkit_err = -ETIMEDOUT;
	assert_int_equal(setscheduler(RR, 20, -EPERM), EPERM);
	/* the client's timeout is its final word (it answers for a grant that lands late): no
	 * second look at the kernel, and no nice level for a daemon that does not answer */
	assert_string_equal(w.effects, ASKED " spent(0,-110) settled");
	assert_int_equal(granted, 0);
}

/* ---- no rtkit -------------------------------------------------------------------------------- */

static void test_no_client_is_eperm_without_asking(void **state)
{
	(void)state;
	w.no_client = true;
	assert_int_equal(setscheduler(FIFO, 20, -EPERM), EPERM);
	/* ELIBACC: no limits read, nothing asked; RLIMIT_RTTIME and the budget are read with them */
	assert_string_equal(w.effects, "target pending read(100) flags budget client rttime(0) settled");
}

static void test_no_daemon_is_eperm_without_asking(void **state)
{
	(void)state;
	static const int errs[] = { -ENOTCONN, -ETIMEDOUT, -ECONNREFUSED, -ENOENT };
	for (size_t i = 0; i < sizeof errs / sizeof errs[0]; i++) {
		setup(NULL);
		w.limits_err = errs[i];
		assert_int_equal(setscheduler(FIFO, 20, -EPERM), EPERM);
		assert_string_equal(w.effects, GATHERED " settled");
	}
}

/* ---- rtkit refuses --------------------------------------------------------------------------- */

/* rtkit answers `err`: the program gets EPERM, the budget is charged, and `then` follows */
static void assert_rtkit_answer_leads_to(int err, const char *then)
{
	char want[512];
	setup(NULL);
	w.rtkit_err = err;
	assert_int_equal(setscheduler(FIFO, 20, -EPERM), EPERM);
	snprintf(want, sizeof want, ASKED " spent(0,%d)%s settled", err, then);
	assert_string_equal(w.effects, want);
}

static void test_rtkit_refusal_gets_the_nice_fallback(void **state)
{
	(void)state;
	assert_rtkit_answer_leads_to(-EPERM, " nice(0,100)");
	/* a per-user limit refuses a nice level too: held in the memo as if asked */
	assert_rtkit_answer_leads_to(-EBUSY, " spent(2,-16)");
}

static void test_rtkit_failing_gets_no_nice_fallback(void **state)
{
	(void)state;
	static const int errs[] = { -ENOTCONN, -EINVAL, -ESRCH, -EIO, -ENOMEM };
	for (size_t i = 0; i < sizeof errs / sizeof errs[0]; i++)
		assert_rtkit_answer_leads_to(errs[i], "");
}

static void test_nice_fallback_outcome_does_not_change_the_errno(void **state)
{
	(void)state;
	static const enum rtshim_nice_outcome outcomes[] = { RTSHIM_NICE_GOT, RTSHIM_NICE_NOT_ASKED,
							     RTSHIM_NICE_NOT_GOT };
	for (size_t i = 0; i < sizeof outcomes / sizeof outcomes[0]; i++) {
		setup(NULL);
		w.rtkit_err = -EPERM;
		w.nice = outcomes[i];
		assert_int_equal(setscheduler(FIFO, 20, -EPERM), EPERM);
		assert_string_equal(w.effects, ASKED " spent(0,-1) nice(0,100) settled");
	}
}

static void test_nice_fallback_off_asks_no_nice_level(void **state)
{
	(void)state;
	cfg.nice_fallback = RTSHIM_NICE_OFF;
	w.rtkit_err = -EPERM;
	assert_int_equal(setscheduler(FIFO, 20, -EPERM), EPERM);
	assert_string_equal(w.effects, ASKED " spent(0,-1) settled");
}

static void test_nice_fallback_always_never_asks_realtime(void **state)
{
	(void)state;
	cfg.nice_fallback = RTSHIM_NICE_ALWAYS;
	assert_int_equal(setscheduler(FIFO, 20, -EPERM), EPERM);
	assert_string_equal(w.effects, GATHERED " nice(0,100) settled");
}

/* ---- RLIMIT_RTTIME and the runaway guard ----------------------------------------------------- */

static void test_rttime_unreadable_is_eperm_without_asking(void **state)
{
	(void)state;
	w.rttime_err = -EPERM;
	assert_int_equal(setscheduler(FIFO, 20, -EPERM), EPERM);
	assert_string_equal(w.effects, GATHERED " settled");
}

static void test_rttime_unsettable_is_eperm_without_asking(void **state)
{
	(void)state;
	w.set_err = -EPERM;
	assert_int_equal(setscheduler(FIFO, 20, -EPERM), EPERM);
	assert_string_equal(w.effects, GATHERED " guard(160000) rttime(0)=160000/200000 settled");
}

static void test_rttime_zero_is_eperm_without_asking(void **state)
{
	(void)state;
	w.soft = w.hard = 0;
	assert_int_equal(setscheduler(FIFO, 20, -EPERM), EPERM);
	assert_string_equal(w.effects, GATHERED " settled");
}

static void test_guard_that_cannot_arm_is_planned_without(void **state)
{
	(void)state;
	w.arm_err = -EINVAL;
	assert_int_equal(setscheduler(RR, 20, -EPERM), 0);
	/* decided again without the guard: the 200 ms limit as rtkit demands it, soft = hard */
	assert_string_equal(w.effects, GATHERED " guard(160000) rttime(0)=200000/200000 rtkit(0,100,20) "
				       "spent(0,0) " GRANTED_RECORD " settled");
}

static void test_rttime_within_rtkits_maximum_is_kept(void **state)
{
	(void)state;
	cfg.runaway = RTSHIM_RUNAWAY_KILL; /* no guard */
	w.soft = w.hard = 100000;
	assert_int_equal(setscheduler(RR, 20, -EPERM), 0);
	assert_string_equal(w.effects, GATHERED " rtkit(0,100,20) spent(0,0) " GRANTED_RECORD " settled");
}

static void test_other_process_gets_no_guard(void **state)
{
	(void)state;
	w.where = RTSHIM_TARGET_OTHER;
	w.self = false;
	w.pid = 4242;
	w.explicit_other = true; /* `rtrun chrt -p` */
	assert_int_equal(setscheduler(RR, 20, -EPERM), 0);
	/* WithPID's budget (1), its process's RLIMIT_RTTIME, no SIGXCPU handler of ours there */
	assert_string_equal(w.effects, "target read(100) flags explicit(4242)=1 budget client limits rttime(4242) "
				       "rttime(4242)=200000/200000 rtkit(4242,100,20) spent(1,0) "
				       GRANTED_RECORD);
}

/* ---- what needs no rtkit --------------------------------------------------------------------- */

static void test_flag_kept_when_the_thread_carries_it(void **state)
{
	(void)state;
	w.policy = OTHER | FLAG; /* rtkit's flag from an earlier grant, put there by the shim */
	w.flags = RTSHIM_TF_FLAG_ADDED;
	assert_int_equal(setscheduler(OTHER, 0, -EPERM), 0);
	/* the call again with the flag, the record says the flag is the shim's */
	assert_string_equal(w.effects, "target pending read(100) flags budget call(OTHER|FLAG) read(100) record(+1,-4) settled");
}

static void test_flag_kept_call_refused_goes_on_to_rtkit(void **state)
{
	(void)state;
	w.policy = OTHER | FLAG;
	w.call_err = -EPERM;
	assert_int_equal(setscheduler(RR, 20, -EPERM), 0);
	assert_string_equal(w.effects, "target pending read(100) flags budget call(RR|FLAG) client limits rttime(0) "
				       "guard(160000) rttime(0)=160000/200000 rtkit(0,100,20) "
				       "spent(0,0) " GRANTED_RECORD " settled");
}

static void test_already_at_that_priority_asks_nothing(void **state)
{
	(void)state;
	w.policy = RR | FLAG;
	w.prio = 20;
	w.call_err = -EPERM; /* FIFO|FLAG: a change of policy without RLIMIT_RTPRIO */
	assert_int_equal(setscheduler(FIFO, 20, -EPERM), 0);
	/* rtkit's RR at 20 is what the FIFO 20 asked: the readers report FIFO */
	assert_string_equal(w.effects, "target pending read(100) flags budget call(FIFO|FLAG) client limits rttime(0) "
				       "read(100) record(+5,-0) settled");
}

static void test_lowering_within_the_grant(void **state)
{
	(void)state;
	w.policy = RR | FLAG;
	w.prio = 20;
	w.call_err = -EPERM;
	assert_int_equal(setscheduler(FIFO, 10, -EPERM), 0);
	/* within rtkit's RR, keeping its flag */
	assert_string_equal(w.effects, "target pending read(100) flags budget call(FIFO|FLAG) client limits rttime(0) "
				       "lower(100,RR|FLAG,10) read(100) record(+5,-0) settled");
	assert_int_equal(granted, 0); /* not rtkit's grant */
}

static void test_lowering_refused_goes_on_to_rtkit(void **state)
{
	(void)state;
	w.policy = RR | FLAG;
	w.prio = 20;
	w.call_err = -EPERM;
	w.lower_err = -EPERM;
	assert_int_equal(setscheduler(FIFO, 10, -EPERM), 0);
	/* a thread realtime already: rtkit's raise budget (3) */
	assert_string_equal(w.effects, "target pending read(100) flags budget call(FIFO|FLAG) client limits rttime(0) "
				       "lower(100,RR|FLAG,10) guard(160000) rttime(0)=160000/200000 "
				       "rtkit(0,100,10) spent(3,0) raised(100,10) read(100) record(+7,-0) settled");
}

static void test_not_a_realtime_request_is_eperm(void **state)
{
	(void)state;
	assert_int_equal(setscheduler(OTHER, 0, -EPERM), EPERM);
	assert_string_equal(w.effects, "target pending read(100) flags budget settled");
}

/* ---- the budget ------------------------------------------------------------------------------ */

static void test_held_back_after_a_refusal(void **state)
{
	(void)state;
	w.held_ms[RTSHIM_BUDGET_OWN] = 4000;
	w.held_err[RTSHIM_BUDGET_OWN] = -EPERM;
	assert_int_equal(setscheduler(FIFO, 20, -EPERM), EPERM);
	/* rtkit not asked, its budget not spent; a nice level instead */
	assert_string_equal(w.effects, GATHERED " nice(0,100) settled");
}

static void test_held_back_kind_does_not_hold_another(void **state)
{
	(void)state;
	w.held_ms[RTSHIM_BUDGET_OTHER] = 4000; /* WithPID requests held, not our own */
	assert_int_equal(setscheduler(RR, 20, -EPERM), 0);
	assert_string_equal(w.effects, ASKED " spent(0,0) " GRANTED_RECORD " settled");
}

static void test_held_back_before_any_client_work(void **state)
{
	(void)state;
	w.held_ms[RTSHIM_BUDGET_OWN] = 4000;
	w.held_err[RTSHIM_BUDGET_OWN] = -EBUSY;
	cfg.nice_fallback = RTSHIM_NICE_OFF;
	assert_int_equal(setscheduler(FIFO, 20, -EPERM), EPERM);
	assert_string_equal(w.effects, "target pending read(100) flags budget settled");
	/* the fallback's nice level refused a moment ago too: nothing is left to ask */
	setup(NULL);
	w.held_ms[RTSHIM_BUDGET_OWN] = w.held_ms[RTSHIM_BUDGET_NICE] = 4000;
	w.held_err[RTSHIM_BUDGET_OWN] = w.held_err[RTSHIM_BUDGET_NICE] = -EBUSY;
	assert_int_equal(setscheduler(FIFO, 20, -EPERM), EPERM);
	assert_string_equal(w.effects, "target pending read(100) flags budget settled");
}

static void test_refusal_heard_at_the_gate_is_not_sent(void **state)
{
	(void)state;
	w.gate_err = -EBUSY; /* another thread's request, in flight, was refused */
	assert_int_equal(setscheduler(FIFO, 20, -EPERM), EPERM);
	assert_string_equal(w.effects, "target pending read(100) flags budget gate(0)=-16 budget client limits "
				       "rttime(0) nice(0,100) settled");
	/* that request did not end within the timeout: this one is not sent either */
	setup(NULL);
	w.gate_err = -ETIMEDOUT;
	assert_int_equal(setscheduler(FIFO, 20, -EPERM), EPERM);
	assert_string_equal(w.effects, "target pending read(100) flags budget gate(0)=-110 settled");
	/* without the fallback's nice level: the refusal heard, no work of the client's */
	setup(NULL);
	cfg.nice_fallback = RTSHIM_NICE_OFF;
	w.gate_err = -EBUSY;
	assert_int_equal(setscheduler(FIFO, 20, -EPERM), EPERM);
	assert_string_equal(w.effects, "target pending read(100) flags budget gate(0)=-16 budget settled");
}

/* The shim's own memo (budget.c) behind the fakes: rtkit's refusal of the first request keeps
 * the second one from the client. */
static void real_budget_facts(struct rtshim_facts *f)
{
	effect("memo");
	rtshim_budget_facts(f);
}

static void test_memo_keeps_the_next_request_from_the_client(void **state)
{
	(void)state;
	struct rtshim_budget_ops budget = fake_budget;
	budget.facts = real_budget_facts;
	budget.begin = rtshim_budget_begin;
	budget.record = rtshim_budget_record;
	budget.end = rtshim_budget_end;
	struct rtshim_request_ops ops = fake_ops;
	ops.budget = &budget;
	struct rtshim_req r = { .kind = RTSHIM_REQ_SCHED_SETSCHEDULER, .policy = FIFO, .param = &param };
	param.sched_priority = 20;
	cfg.nice_fallback = RTSHIM_NICE_OFF;
	rtshim_budget_reset();
	w.rtkit_err = -EBUSY; /* rtkit's per-user limit */
	assert_int_equal(rtshim_slow_path_with(&ops, &cfg, &r, -EPERM, &granted), EPERM);
	assert_non_null(strstr(w.effects, "rtkit(0,100,20)"));
	w.effects[0] = 0;
	w.rtkit_err = 0; /* were it asked, rtkit would grant: it is not asked */
	assert_int_equal(rtshim_slow_path_with(&ops, &cfg, &r, -EPERM, &granted), EPERM);
	assert_string_equal(w.effects, "target pending read(100) flags memo settled");
	/* the default fallback: the nice level refused as well (shim/nice.c records it) */
	cfg.nice_fallback = RTSHIM_NICE_REFUSED;
	rtshim_budget_record(RTSHIM_BUDGET_NICE, -EBUSY);
	w.effects[0] = 0;
	assert_int_equal(rtshim_slow_path_with(&ops, &cfg, &r, -EPERM, &granted), EPERM);
	assert_string_equal(w.effects, "target pending read(100) flags memo settled");
	/* a realtime thread of this process ends: rtkit's thread limit may have freed */
	rtshim_budget_rt_thread_gone();
	w.effects[0] = 0;
	assert_int_equal(rtshim_slow_path_with(&ops, &cfg, &r, -EPERM, &granted), 0);
	assert_non_null(strstr(w.effects, "rtkit(0,100,20)"));
	rtshim_budget_reset();
}

static void test_drop_of_a_realtime_thread_frees_a_slot(void **state)
{
	(void)state;
	w.policy = RR | FLAG;
	w.prio = 20;
	assert_int_equal(setscheduler(OTHER, 0, -EPERM), 0);
	assert_string_equal(w.effects, "target pending read(100) flags budget call(OTHER|FLAG) read(100) "
				       "record(+1,-4,asked 0 got 20) slot-freed settled");
}

static void test_flapping_raise_is_held(void **state)
{
	(void)state;
	w.policy = RR | FLAG;
	w.prio = 5;
	w.call_err = -EPERM; /* a raise without RLIMIT_RTPRIO */
	w.raise_hold_ms = 1000; /* the same raise was granted a moment ago */
	w.raise_prio = 10;
	assert_int_equal(setscheduler(RR, 10, -EPERM), EPERM);
	assert_string_equal(w.effects, "target pending read(100) flags budget call(RR|FLAG) client limits rttime(0) "
				       "nice(0,100) settled");
	setup(NULL);
	w.policy = RR | FLAG;
	w.prio = 5;
	w.call_err = -EPERM;
	w.raise_hold_ms = 1000;
	w.raise_prio = 15; /* another priority: asked */
	assert_int_equal(setscheduler(RR, 10, -EPERM), 0);
	assert_string_equal(w.effects, "target pending read(100) flags budget call(RR|FLAG) client limits rttime(0) "
				       "guard(160000) rttime(0)=160000/200000 rtkit(0,100,10) "
				       "spent(3,0) raised(100,10) " GRANTED_RECORD " settled");
}

/* ---- the target ------------------------------------------------------------------------------ */

static void test_unknown_target_is_eperm(void **state)
{
	(void)state;
	w.where = RTSHIM_TARGET_UNKNOWN; /* not ours, not our user's, or a vfork child's */
	assert_int_equal(setscheduler(FIFO, 20, -EPERM), EPERM);
	assert_string_equal(w.effects, "target");
}

static void test_target_gone_meanwhile_is_eperm(void **state)
{
	(void)state;
	w.read_err = -ESRCH;
	assert_int_equal(setscheduler(FIFO, 20, -EPERM), EPERM);
	assert_string_equal(w.effects, "target pending read(100) settled");
}

static void test_another_thread_of_ours_is_not_marked_in_flight(void **state)
{
	(void)state;
	w.where = RTSHIM_TARGET_OWN;
	w.self = false;
	assert_int_equal(setscheduler(RR, 20, -EPERM), 0);
	assert_string_equal(w.effects, "target read(100) flags budget client limits rttime(0) "
				       "guard(160000) rttime(0)=160000/200000 rtkit(0,100,20) spent(0,0) "
				       GRANTED_RECORD);
}

/* ---- the four kinds of request --------------------------------------------------------------- */

static void test_pthread_setschedparam_as_sched_setscheduler(void **state)
{
	(void)state;
	assert_int_equal(sched_request(RTSHIM_REQ_PTHREAD_SETSCHEDPARAM, RR, 20, -EPERM), 0);
	assert_string_equal(w.effects, ASKED " spent(0,0) " GRANTED_RECORD " settled");
	setup(NULL);
	assert_int_equal(sched_request(RTSHIM_REQ_PTHREAD_SETSCHEDPARAM, FIFO, 20, -EPERM), 0);
	assert_string_equal(w.effects, ASKED " spent(0,0) read(100) record(+7,-0) settled");
}

static void test_priority_only_on_a_non_realtime_thread_is_eperm(void **state)
{
	(void)state;
	static const enum rtshim_req_kind kinds[] = { RTSHIM_REQ_SCHED_SETPARAM,
						      RTSHIM_REQ_PTHREAD_SETSCHEDPRIO };
	for (size_t i = 0; i < 2; i++) {
		setup(NULL);
		assert_int_equal(sched_request(kinds[i], 0, 20, -EPERM), EPERM);
		assert_string_equal(w.effects, "target pending read(100) flags budget settled");
	}
}

static void test_priority_only_on_a_realtime_thread_raises(void **state)
{
	(void)state;
	static const enum rtshim_req_kind kinds[] = { RTSHIM_REQ_SCHED_SETPARAM,
						      RTSHIM_REQ_PTHREAD_SETSCHEDPRIO };
	for (size_t i = 0; i < 2; i++) {
		setup(NULL);
		w.policy = RR | FLAG;
		w.prio = 5;
		w.flags = RTSHIM_TF_FLAG_ADDED;
		assert_int_equal(sched_request(kinds[i], 0, 15, -EPERM), 0);
		/* no policy asked: ASKED_FIFO left as it is */
		assert_string_equal(w.effects, GATHERED " guard(160000) rttime(0)=160000/200000 "
					       "rtkit(0,100,15) spent(3,0) raised(100,15) read(100) record(+3,-0) settled");
	}
}

static void test_granted_report_reads_the_kernel_when_logging(void **state)
{
	(void)state;
	rtshim_log_set_level(RTSHIM_LOG_INFO);
	assert_int_equal(setscheduler(RR, 20, -EPERM), 0);
	rtshim_log_set_level(RTSHIM_LOG_QUIET);
	/* the log line says what the kernel has now (rtkit chose the policy) */
	assert_string_equal(w.effects, ASKED " spent(0,0) " GRANTED_RECORD " read(100) settled");
}

/* ---- a seccomp sandbox ---------------------------------------------------------------------- */

static void test_sandboxed_is_eperm_without_the_client(void **state)
{
	(void)state;
	w.sandboxed = true;
	cfg.nice_fallback = RTSHIM_NICE_ALWAYS;
	assert_int_equal(setscheduler(FIFO, 20, -EPERM), EPERM);
	/* no client loaded, no limits, no nice level: the filter may kill what they do */
	assert_string_equal(w.effects, "target pending read(100) flags budget sandboxed settled");
	assert_int_equal(granted, 0);
}

static void test_sandboxed_drop_keeps_the_flag(void **state)
{
	(void)state;
	w.sandboxed = true;
	w.policy = RR | FLAG; /* granted before the filter */
	w.prio = 20;
	w.flags = RTSHIM_TF_FLAG_ADDED;
	assert_int_equal(setscheduler(OTHER, 0, -EPERM), 0);
	assert_string_equal(w.effects, "target pending read(100) flags budget sandboxed call(OTHER|FLAG) read(100) "
				       "record(+1,-4,asked 0 got 20) slot-freed settled");
}

/* ---- another process's thread --------------------------------------------------------------- */

static void test_other_process_not_asked_by_a_person_is_eperm(void **state)
{
	(void)state;
	w.where = RTSHIM_TARGET_OTHER;
	w.self = false;
	w.pid = 4242; /* a supervisor's worker */
	assert_int_equal(setscheduler(FIFO, 10, -EPERM), EPERM);
	/* no client, no RLIMIT_RTTIME of the worker touched, rtkit not asked */
	assert_string_equal(w.effects, "target read(100) flags explicit(4242)=0 budget");
}

#define T(name) cmocka_unit_test_setup(name, setup)
int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_direct_error_other_than_eperm_is_the_programs),
		T(test_eperm_then_rtkit_grants),
		T(test_granted_as_rr_after_fifo_asked_is_recorded),
		T(test_granted_rr_asked_is_recorded_without_fifo),
		T(test_priority_clamped_to_rtkits_maximum),
		T(test_timeout_is_eperm),
		T(test_no_client_is_eperm_without_asking),
		T(test_no_daemon_is_eperm_without_asking),
		T(test_rtkit_refusal_gets_the_nice_fallback),
		T(test_rtkit_failing_gets_no_nice_fallback),
		T(test_nice_fallback_outcome_does_not_change_the_errno),
		T(test_nice_fallback_off_asks_no_nice_level),
		T(test_nice_fallback_always_never_asks_realtime),
		T(test_rttime_unreadable_is_eperm_without_asking),
		T(test_rttime_unsettable_is_eperm_without_asking),
		T(test_rttime_zero_is_eperm_without_asking),
		T(test_guard_that_cannot_arm_is_planned_without),
		T(test_rttime_within_rtkits_maximum_is_kept),
		T(test_other_process_gets_no_guard),
		T(test_flag_kept_when_the_thread_carries_it),
		T(test_flag_kept_call_refused_goes_on_to_rtkit),
		T(test_already_at_that_priority_asks_nothing),
		T(test_lowering_within_the_grant),
		T(test_lowering_refused_goes_on_to_rtkit),
		T(test_not_a_realtime_request_is_eperm),
		T(test_held_back_after_a_refusal),
		T(test_held_back_kind_does_not_hold_another),
		T(test_held_back_before_any_client_work),
		T(test_refusal_heard_at_the_gate_is_not_sent),
		T(test_memo_keeps_the_next_request_from_the_client),
		T(test_drop_of_a_realtime_thread_frees_a_slot),
		T(test_flapping_raise_is_held),
		T(test_unknown_target_is_eperm),
		T(test_target_gone_meanwhile_is_eperm),
		T(test_another_thread_of_ours_is_not_marked_in_flight),
		T(test_pthread_setschedparam_as_sched_setscheduler),
		T(test_priority_only_on_a_non_realtime_thread_is_eperm),
		T(test_priority_only_on_a_realtime_thread_raises),
		T(test_granted_report_reads_the_kernel_when_logging),
		T(test_sandboxed_is_eperm_without_the_client),
		T(test_sandboxed_drop_keeps_the_flag),
		T(test_other_process_not_asked_by_a_person_is_eperm),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
