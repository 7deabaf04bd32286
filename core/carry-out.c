/* carry-out.c — see carry-out.h.  The core's first step is always RTSHIM_CALL (decide.h: while
 * the facts hold no direct call): the caller made it, its answer is written down; every other
 * step is carried out here, until the decision is final. */
#include <errno.h>

#include "carry-out.h"

/* The facts about the target: the kernel's view of it and whether the shim flagged it. */
static void gather_target(const struct rtshim_request_ops *ops, const struct rtshim_req *r,
			  const struct rtshim_request_target *t, struct rtshim_facts *f)
{
	f->target = t->where;
	f->tid = t->tid;
	if (t->where == RTSHIM_TARGET_UNKNOWN)
		return;
	if (ops->read_sched(t->tid, &f->cur_policy, &f->cur_prio) < 0) {
		f->target = RTSHIM_TARGET_UNKNOWN; /* gone meanwhile */
		return;
	}
	f->shim_flag = ops->flag_added(r, t);
	f->guard_possible = t->guard_possible;
	if (t->where == RTSHIM_TARGET_OTHER)
		f->other_explicit = ops->other_explicit(t->pid);
	/* the memo of refusals: a refusal heard a moment ago needs no client (budget.h) */
	if (ops->budget)
		ops->budget->facts(f);
}

/* rtkit's limits and RLIMIT_RTTIME. */
static void read_limits(const struct rtshim_request_ops *ops, const struct rtshim_request_target *t,
			struct rtshim_outcome *out)
{
	struct rtshim_facts *f = &out->f;
	out->client_asked = true;
	f->limits.done = true;
	f->limits.err = ops->get_limits(f->cfg->timeout_ms, &f->lim);
	f->rttime_err = ops->get_rttime(t->pid, &f->rttime_soft, &f->rttime_hard);
}

/* RLIMIT_RTTIME and the guard as decided, then rtkit (the gate is this thread's: budget.h). */
static void ask_rtkit(const struct rtshim_request_ops *ops, const struct rtshim_request_target *t,
		      const struct rtshim_decision *d, struct rtshim_facts *f)
{
	if (d->arm_guard && ops->arm_guard(d->soft) < 0) {
		f->guard_failed = true; /* decided again without it */
		return;
	}
	/* a refusal leaves only what could not be avoided (rtshim(7)): not the guard */
	bool undo = d->arm_guard && ops->guard_answered;
	if (d->set_rttime) {
		f->rttime_set.done = true;
		f->rttime_set.err = ops->set_rttime(t->pid, d->soft, d->hard);
		if (f->rttime_set.err) {
			if (undo)
				ops->guard_answered(f->rttime_set.err);
			return;
		}
	}
	f->rtkit.done = true;
	/* a timeout is a refusal: the client took the grant that landed meanwhile as its answer,
	 * and undoes one that comes later (daemon-client/late-answer.h) */
	f->rtkit.err = ops->make_realtime(t->pid, t->tid, d->prio);
	if (undo)
		ops->guard_answered(f->rtkit.err);
	if (!ops->budget)
		return;
	ops->budget->record(d->budget_kind, f->rtkit.err);
	/* a per-user limit refuses the nice fallback too (decide.c): held as if it were asked */
	if (f->rtkit.err == -EBUSY)
		ops->budget->record(RTSHIM_BUDGET_NICE, f->rtkit.err);
	if (!f->rtkit.err && d->budget_kind == RTSHIM_BUDGET_RAISE)
		ops->budget->raise_granted(t->tid, d->prio);
}

/* The gate (budget.h) before the client's first work: true when it is this thread's.  A
 * refusal heard while waiting there, or another request's work that outlasted the timeout, is
 * a fact to decide again with. */
static bool pass_gate(const struct rtshim_request_ops *ops, const struct rtshim_decision *d,
		      struct rtshim_facts *f)
{
	int g = ops->budget->begin(d->budget_kind, f->cfg->timeout_ms);
	if (g == -ETIMEDOUT) {
		f->limits.done = true;
		f->limits.err = g;
	} else if (g < 0) {
		ops->budget->facts(f);
	}
	return g == 0;
}

int rtshim_carry_out(const struct rtshim_request_ops *ops, const struct rtshim_config *cfg,
		     const struct rtshim_req *r, int direct, const struct rtshim_request_target *t,
		     struct rtshim_outcome *out)
{
	struct rtshim_facts *f = &out->f;
	struct rtshim_decision *d = &out->d;
	bool gate_tried = false, gate = false;

	out->client_asked = out->nice_got = false;
	rtshim_facts_init(f, cfg, rtshim_req_has_policy(r), r->policy, 0);
	f->inherited = r->inherited;
	for (;;) {
		*d = rtshim_decide(f);
		switch (d->action) {
		case RTSHIM_CALL:
			f->direct.done = true;
			f->direct.err = direct;
			/* the priority the kernel read (an unmapped param is the kernel's EFAULT,
			 * never read here) */
			if (direct == -EPERM) {
				f->prio = rtshim_req_prio(r);
				gather_target(ops, r, t, f);
				if (ops->prios_above && (f->target == RTSHIM_TARGET_SELF ||
							 f->target == RTSHIM_TARGET_OWN))
					f->above = ops->prios_above(t->tid, f->prio);
				/* before any work of the daemon client's */
				f->sandboxed = ops->sandboxed();
			}
			continue;
		case RTSHIM_CALL_KEEPING_FLAG:
			f->keeping_flag.done = true;
			f->keeping_flag.err = ops->real_call(r, d->policy);
			continue;
		case RTSHIM_READ_LIMITS:
			if (!gate_tried && ops->budget) {
				gate_tried = true;
				if (!(gate = pass_gate(ops, d, f)))
					continue;
			}
			read_limits(ops, t, out);
			continue;
		case RTSHIM_LOWER:
			f->lowered.done = true;
			f->lowered.err = ops->lower(t->tid, d->policy, d->prio);
			continue;
		case RTSHIM_ASK_RTKIT:
			ask_rtkit(ops, t, d, f);
			continue;
		case RTSHIM_ASK_NICE:
			if (gate) /* the nice level passes the gate on its own (shim/nice.c) */
				ops->budget->end();
			gate = false;
			out->nice_got = ops->nice_instead(&f->lim, t->pid, t->tid) == RTSHIM_NICE_GOT;
			break;
		case RTSHIM_DONE:
			if (d->program_errno == 0 && ops->record)
				ops->record(ops, r, t, d);
			/* the order of the priorities asked in the process (an inherited one is its
			 * creator's: its readers take over the creator's asked one afterwards) */
			if (d->program_errno == 0 && ops->keep_order && !r->inherited &&
			    f->limits.done && !f->limits.err && f->target != RTSHIM_TARGET_OTHER)
				ops->keep_order(f->lim.max_realtime_priority);
			/* a drop of a thread rtkit made realtime: one of its slots may be free */
			if (d->why == RTSHIM_WHY_KEPT_FLAG && rtshim_is_rt(f->cur_policy) &&
			    !rtshim_is_rt(r->policy) && ops->budget)
				ops->budget->rt_thread_gone();
			break;
		}
		break;
	}
	if (gate)
		ops->budget->end();
	return d->program_errno;
}
