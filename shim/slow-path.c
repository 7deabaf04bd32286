/* slow-path.c — see slow-path.h.  The loop's operations are `production` below, a unit
 * test's fakes in tests/unit/test-request.c.  Errors inside are negative errnos; the program
 * gets the positive errno of the decision. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include "asked.h"
#include "budget.h"
#include "busy.h"
#include "client.h"
#include "log.h"
#include "nice.h"
#include "order.h"
#include "prio.h"
#include "raw-rlimit.h"
#include "real.h"
#include "request.h"
#include "request-record.h"
#include "runaway.h"
#include "settings.h"
#include "slow-path.h"
#include "target.h"
#include "thread.h"

/* ---- the shim's own operations (struct rtshim_request_ops) ------------------------------- */

static int read_sched(pid_t tid, int *policy, int *prio)
{
	struct sched_param p;
	int pol = rtshim_real_sched_getscheduler()(tid);
	if (pol < 0 || rtshim_real_sched_getparam()(tid, &p) < 0)
		return -errno;
	*policy = pol;
	*prio = p.sched_priority;
	return 0;
}

/* The thread a request is about, once the kernel said EPERM. */
static void find_target(const struct rtshim_req *r, struct rtshim_request_target *t)
{
	*t = (struct rtshim_request_target){ .where = RTSHIM_TARGET_UNKNOWN };
	if (rtshim_in_vfork_child())
		return; /* a vfork child: the parent's state is not ours to use */
	if (rtshim_req_about_pthread(r)) {
		if (pthread_equal(r->thread, pthread_self()))
			t->where = RTSHIM_TARGET_SELF;
		else if (rtshim_registry_by_handle(r->thread, &t->tid, NULL) == 0)
			t->where = RTSHIM_TARGET_OWN;
	} else {
		t->where = rtshim_target_of_tid(r->pid, &t->tid, &t->pid);
	}
	if (t->where == RTSHIM_TARGET_SELF) {
		t->self = rtshim_self();
		t->tid = t->self->tid;
	}
	/* the guard's SIGXCPU handler lives in this process */
	t->guard_possible = t->pid == 0;
}

/* Did the shim, not the program, put the target's SCHED_RESET_ON_FORK there? */
static bool flag_added(const struct rtshim_req *r, const struct rtshim_request_target *t)
{
	int flags = 0;
	if (t->self)
		flags = __atomic_load_n(&t->self->flags, __ATOMIC_RELAXED);
	else if (rtshim_req_about_pthread(r))
		rtshim_registry_by_handle(r->thread, NULL, &flags);
	else
		rtshim_registry_by_tid(t->tid, &flags);
	return flags & RTSHIM_TF_FLAG_ADDED;
}

static void in_flight(struct rtshim_thread *self, bool begin)
{
	if (begin)
		rtshim_registry_pending_begin(self);
	else
		rtshim_registry_pending_end(self);
}

static int lower(pid_t tid, int policy, int prio)
{
	struct sched_param p = { .sched_priority = prio };
	return rtshim_real_sched_setscheduler()(tid, policy, &p) < 0 ? -errno : 0;
}

/* The linked-in client (client.h), its timeout the configuration's. */
static int get_limits(int timeout_ms, struct rtkit_limits *lim)
{
	return rtshim_client_get(timeout_ms)->get_limits(lim);
}

/* rtshim(7) rule 21 (seccomp-probe.h) */
static bool client_filtered_out(void)
{
	return rtshim_client_filtered_out(rtshim_cfg()->timeout_ms);
}

static int make_realtime(pid_t pid, pid_t tid, int prio)
{
	int before = pid ? -1 : rtshim_real_sched_getscheduler()(tid);
	int r = rtshim_client_v1.make_realtime(pid, tid, prio);
	if (r == -ETIMEDOUT && before >= 0)
		rtshim_thread_flag_ours(tid, before);
	return r;
}

static const struct rtshim_budget_ops budget = {
	.facts = rtshim_budget_facts,
	.begin = rtshim_budget_begin,
	.record = rtshim_budget_record,
	.end = rtshim_budget_end,
	.rt_thread_gone = rtshim_budget_rt_thread_gone,
	.raise_granted = rtshim_budget_raise_granted,
};

static const struct rtshim_request_ops production = {
	.real_call = rtshim_req_real_call,
	.read_sched = read_sched,
	.flag_added = flag_added,
	.sandboxed = client_filtered_out,
	.other_explicit = rtshim_target_other_explicit,
	.get_limits = get_limits,
	.make_realtime = make_realtime,
	.get_rttime = rtshim_raw_get_rttime,
	.set_rttime = rtshim_raw_set_rttime,
	.arm_guard = rtshim_runaway_arm,
	.guard_answered = rtshim_runaway_answered,
	.lower = lower,
	.nice_instead = rtshim_nice_instead,
	.budget = &budget,
	.record = rtshim_record_outcome,
	.record_asked = rtshim_asked_record,
	.prios_above = rtshim_order_prios_above,
	.keep_order = rtshim_order_keep,
	.find_target = find_target,
	.in_flight = in_flight,
	.update_flags = rtshim_record_update,
};

/* ---- what the program is told ------------------------------------------------------------ */

static const char *what_the_program_gets(const struct rtshim_req *r,
					 const struct rtshim_config *cfg)
{
	if (!r->creating)
		return "the call fails with EPERM as it would without rtshim";
	return cfg->strict ? "pthread_create fails with EPERM (RTSHIM_STRICT=1)"
			   : "the thread runs SCHED_OTHER";
}

/* What the slow path came to.  The kernel's own answer to the direct call (RTSHIM_WHY_DIRECT:
 * not EPERM) is not the shim's to report. */
static void report(const struct rtshim_request_ops *ops, const struct rtshim_req *r,
		   const struct rtshim_outcome *out)
{
	const struct rtshim_facts *f = &out->f;
	const struct rtshim_decision *d = &out->d;
	bool nice_got = out->nice_got;
	int asked_policy = (rtshim_req_has_policy(r) ? r->policy : f->cur_policy) & ~SCHED_RESET_ON_FORK;
	const char *asked = rtshim_policy_name(asked_policy);
	int prio = f->prio, tid = (int)f->tid;
	char why[320];

	/* what rtrun --status shows beside what the thread has */
	if (ops->record_asked && (d->why == RTSHIM_WHY_GRANTED || d->why == RTSHIM_WHY_KEPT_FLAG ||
				  d->why == RTSHIM_WHY_ALREADY || d->why == RTSHIM_WHY_LOWERED))
		ops->record_asked(f->tid, asked_policy, prio);

	switch (d->why) {
	case RTSHIM_WHY_DIRECT:
		return;
	case RTSHIM_WHY_NOT_OURS:
	case RTSHIM_WHY_NOT_RT:
		rtshim_log(RTSHIM_LOG_DEBUG, "EPERM left as it is: %s", rtshim_why_text(d->why));
		return;
	case RTSHIM_WHY_KEPT_FLAG:
	case RTSHIM_WHY_ALREADY:
	case RTSHIM_WHY_LOWERED:
		rtshim_log(RTSHIM_LOG_INFO, "thread %d: %s/%d requested → %s", tid, asked, prio,
			   rtshim_why_text(d->why));
		return;
	case RTSHIM_WHY_GRANTED: {
		char rt[64];
		if (!rtshim_log_enabled(RTSHIM_LOG_INFO))
			return;
		if (d->soft == RLIM_INFINITY)
			rtshim_format(rt, sizeof rt, "unlimited/%llu", (unsigned long long)d->hard);
		else
			rtshim_format(rt, sizeof rt, "%llu/%llu", (unsigned long long)d->soft,
				      (unsigned long long)d->hard);
		/* what the kernel says now (rtkit chose the policy) */
		int pol = -1, now = d->prio;
		ops->read_sched(f->tid, &pol, &now);
		rtshim_log(RTSHIM_LOG_INFO, "thread %d: %s/%d requested → rtkit %s/%d%s, RLIMIT_RTTIME %s",
			   tid, asked, prio, rtshim_policy_name(pol), now,
			   !d->prio_changed ? ""
			   : f->cfg->prio_map == RTSHIM_PRIO_CLAMP || f->inherited ? " (clamped)"
										  : " (mapped)",
			   rt);
		return;
	}
	case RTSHIM_WHY_HELD:
		rtshim_log(RTSHIM_LOG_INFO, "thread %d: %s/%d requested → not sent: %s%s", tid, asked,
			   prio, rtshim_why_format(why, sizeof why, d, NULL),
			   nice_got ? "; nice level from rtkit instead" : "");
		return;
	case RTSHIM_WHY_FLAPPING:
		rtshim_log(RTSHIM_LOG_INFO, "thread %d: %s/%d requested → not sent to rtkit (%s), next try in %lld ms",
			   tid, asked, prio, rtshim_why_text(d->why), (long long)d->wait_ms);
		break;
	case RTSHIM_WHY_NO_CLIENT:
		return; /* the client is linked in: only a unit test's fake has none */
	case RTSHIM_WHY_OTHER_PROCESS:
	case RTSHIM_WHY_SANDBOXED:
		rtshim_log_once(RTSHIM_LOG_INFO, (int)d->why * 256,
				"thread %d: %s/%d requested → %s: %s", tid, asked, prio,
				rtshim_why_text(d->why), what_the_program_gets(r, f->cfg));
		return;
	default:
		break;
	}
	/* No realtime: one warning per distinct cause, the consequence and where to look. */
	rtshim_why_format(why, sizeof why, d, out->client_asked ? rtshim_client_v1.strerror : NULL);
	if (d->why == RTSHIM_WHY_REFUSED && d->why_err == -EBUSY)
		rtshim_busy_explain(&rtshim_client_v1, why, sizeof why);
	const char *gets = what_the_program_gets(r, f->cfg);
	const char *nice = nice_got ? ", with a nice level from rtkit instead" : "";
	int key = (int)d->why * 256 - d->why_err;
	if (d->why == RTSHIM_WHY_NO_DAEMON)
		rtshim_log_once(RTSHIM_LOG_WARN, key, "cannot reach rtkit (%s): %s%s (rtrun --check tells more)",
				why, gets, nice);
	else if (d->why == RTSHIM_WHY_REFUSED)
		rtshim_log_once(RTSHIM_LOG_WARN, key, "rtkit did not grant realtime (%s/%d asked, %d sent): %s; %s%s (rtrun --check tells more)",
				asked, prio, d->prio, why, gets, nice);
	else if (d->why == RTSHIM_WHY_RTTIME_ZERO)
		rtshim_log_once(RTSHIM_LOG_WARN, key, "RLIMIT_RTTIME of process %d is 0: a realtime thread would be killed at once; %s%s",
				(int)getpid(), gets, nice);
	else if (d->why != RTSHIM_WHY_HELD && d->why != RTSHIM_WHY_FLAPPING)
		rtshim_log_once(RTSHIM_LOG_WARN, key, "no realtime for %s/%d: %s; %s%s (rtrun --check tells more)",
				asked, prio, why, gets, nice);
	rtshim_log(RTSHIM_LOG_INFO, "thread %d: %s/%d requested → no realtime: %s%s", tid, asked,
		   prio, why, nice_got ? "; nice level from rtkit instead" : "");
}

/* ---- the slow path ---------------------------------------------------------------------- */

int rtshim_slow_path_with(const struct rtshim_request_ops *ops, const struct rtshim_config *cfg,
			  const struct rtshim_req *r, int direct, pid_t *granted)
{
	struct rtshim_request_target t = { .where = RTSHIM_TARGET_UNKNOWN };
	struct rtshim_outcome out;
	int cancel_state = -1;

	if (direct == -EPERM) {
		/* a cancellation point inside (poll, in the client) must not end the thread
		 * halfway through; pending cancellation is acted upon at the program's next one */
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
		ops->find_target(r, &t);
		/* a reader of this thread's policy elsewhere waits for the outcome instead of
		 * reading the SCHED_OTHER of the moment before (jconvolver after jack_activate) */
		if (t.self)
			ops->in_flight(t.self, true);
	}
	int err = rtshim_carry_out(ops, cfg, r, direct, &t, &out);
	report(ops, r, &out);
	if (out.d.why == RTSHIM_WHY_GRANTED)
		*granted = t.tid;
	if (t.self)
		ops->in_flight(t.self, false);
	if (cancel_state >= 0)
		pthread_setcancelstate(cancel_state, NULL);
	return err;
}

int rtshim_slow_path(const struct rtshim_req *r, int direct, pid_t *granted)
{
	return rtshim_slow_path_with(&production, rtshim_cfg(), r, direct, granted);
}
