/* decide.c — see decide.h.  The rules, in the order rtshim(7) states them. */
#include "decide.h"

#include <errno.h>
#include <sched.h>

#include "format.h"
#include "prio.h"
#include "rttime.h"

bool rtshim_is_rt(int policy)
{
	policy &= ~SCHED_RESET_ON_FORK;
	return policy == SCHED_FIFO || policy == SCHED_RR;
}

void rtshim_facts_init(struct rtshim_facts *f, const struct rtshim_config *cfg, bool has_policy,
		       int policy, int prio)
{
	*f = (struct rtshim_facts){
		.has_policy = has_policy, .policy = has_policy ? policy : 0, .prio = prio, .cfg = cfg,
	};
}

static struct rtshim_decision act(enum rtshim_action a)
{
	return (struct rtshim_decision){ .action = a, .shim_flag = -1 };
}

static struct rtshim_decision done(int err, enum rtshim_why why, int why_err)
{
	struct rtshim_decision d = act(RTSHIM_DONE);
	d.err = err;
	d.why = why;
	d.why_err = why_err;
	return d;
}

static struct rtshim_decision succeeded(enum rtshim_why why, int shim_flag)
{
	struct rtshim_decision d = done(0, why, 0);
	d.shim_flag = shim_flag;
	return d;
}

/* No realtime for `why`: a nice level instead where RTSHIM_NICE_FALLBACK allows. */
static struct rtshim_decision no_rt(const struct rtshim_facts *f, enum rtshim_why why, int why_err)
{
	struct rtshim_decision d = done(EPERM, why, why_err);
	if (f->cfg->nice_fallback != RTSHIM_NICE_OFF)
		d.action = RTSHIM_ASK_NICE;
	return d;
}

/* Rule 1, the privileged path: exactly what was asked.  RTSHIM_POLICY and
 * RTSHIM_RESET_ON_FORK=1 are the explicit opt-ins that change it. */
int rtshim_direct_policy(const struct rtshim_config *c, bool has_policy, int policy)
{
	int p = has_policy ? policy : 0;
	if (!has_policy || !rtshim_is_rt(p))
		return p;
	int flag = p & SCHED_RESET_ON_FORK;
	if (c->policy == RTSHIM_POLICY_RR)
		p = SCHED_RR;
	else if (c->policy == RTSHIM_POLICY_FIFO)
		p = SCHED_FIFO;
	else
		p &= ~SCHED_RESET_ON_FORK;
	if (c->reset_on_fork)
		flag = SCHED_RESET_ON_FORK;
	return p | flag;
}

int rtshim_direct_shim_flag(bool has_policy, int policy, int sent)
{
	return has_policy ? (sent & SCHED_RESET_ON_FORK) && !(policy & SCHED_RESET_ON_FORK) : -1;
}

struct rtshim_decision rtshim_direct_succeeded(const struct rtshim_config *c, bool has_policy,
					       int policy)
{
	return succeeded(RTSHIM_WHY_DIRECT,
			 rtshim_direct_shim_flag(has_policy, policy, rtshim_direct_policy(c, has_policy, policy)));
}

struct rtshim_decision rtshim_decide(const struct rtshim_facts *f)
{
	const struct rtshim_config *c = f->cfg;
	int sent = rtshim_direct_policy(c, f->has_policy, f->policy);
	int asked_flag = f->policy & SCHED_RESET_ON_FORK;

	if (!f->direct.done) {
		struct rtshim_decision d = act(RTSHIM_CALL);
		d.policy = sent;
		return d;
	}
	if (f->direct.err == 0)
		return rtshim_direct_succeeded(c, f->has_policy, f->policy);
	/* Invalid arguments, no such thread, ...: exactly the kernel's error. */
	if (f->direct.err != -EPERM)
		return done(-f->direct.err, RTSHIM_WHY_DIRECT, 0);

	/* Rule 2: EPERM.  Only about a thread of ours, or of another process of this user. */
	if (f->target == RTSHIM_TARGET_UNKNOWN)
		return done(EPERM, RTSHIM_WHY_NOT_OURS, 0);

	/* Rule 3: a thread that carries SCHED_RESET_ON_FORK keeps it (the kernel refuses an
	 * unprivileged caller who drops it): drops and changes are retried with the flag. */
	if (f->has_policy && !(sent & SCHED_RESET_ON_FORK) && (f->cur_policy & SCHED_RESET_ON_FORK)) {
		if (!f->keeping_flag.done) {
			struct rtshim_decision d = act(RTSHIM_CALL_KEEPING_FLAG);
			d.policy = sent | SCHED_RESET_ON_FORK;
			return d;
		}
		if (f->keeping_flag.err == 0)
			return succeeded(RTSHIM_WHY_KEPT_FLAG, !asked_flag);
	}

	/* Rule 4: only a realtime request goes on to rtkit.  A priority alone (sched_setparam,
	 * pthread_setschedprio) asks for realtime when the thread has it already. */
	bool program_flag;
	if (f->has_policy) {
		if (!rtshim_is_rt(f->policy))
			return done(EPERM, RTSHIM_WHY_NOT_RT, 0);
		program_flag = asked_flag;
	} else {
		if (!rtshim_is_rt(f->cur_policy))
			return done(EPERM, RTSHIM_WHY_NOT_RT, 0);
		program_flag = (f->cur_policy & SCHED_RESET_ON_FORK) && !f->shim_flag;
	}

	if (!f->limits.done)
		return act(RTSHIM_READ_LIMITS);
	if (f->limits.err == -ELIBACC)
		return done(EPERM, RTSHIM_WHY_NO_CLIENT, 0);
	if (f->limits.err < 0)
		return done(EPERM, RTSHIM_WHY_NO_DAEMON, f->limits.err);

	/* Rule 5: the priority in rtkit's range (an inherited one is in it already: clamp). */
	struct rtshim_prio_map map = {
		.mode = f->inherited ? RTSHIM_PRIO_CLAMP : c->prio_map,
		.max_prio = f->lim.max_realtime_priority,
		.top = c->prio_top,
	};
	bool changed = false;
	int mapped = rtshim_prio_map(&map, f->prio, &changed);
	if (mapped < 0)
		return done(EPERM, RTSHIM_WHY_NO_PRIORITY, 0);
	if (c->strict && changed)
		return done(EPERM, RTSHIM_WHY_STRICT, 0);

	/* Rule 6: realtime at that priority already (a FIFO request on a thread rtkit made RR
	 * included): rtkit's per-user budget is shared, do not spend it. */
	bool cur_rt = rtshim_is_rt(f->cur_policy);
	if (cur_rt && f->cur_prio == mapped) {
		struct rtshim_decision d =
			succeeded(RTSHIM_WHY_ALREADY, (f->cur_policy & SCHED_RESET_ON_FORK) && !program_flag);
		d.prio_changed = changed;
		return d;
	}
	/* Rule 7: lowering within the granted policy needs no privilege. */
	if (cur_rt && mapped < f->cur_prio) {
		if (!f->lowered.done) {
			struct rtshim_decision d = act(RTSHIM_LOWER);
			d.policy = (f->cur_policy & ~SCHED_RESET_ON_FORK) | SCHED_RESET_ON_FORK;
			d.prio = mapped;
			return d;
		}
		if (f->lowered.err == 0) {
			struct rtshim_decision d = succeeded(RTSHIM_WHY_LOWERED, !program_flag);
			d.prio_changed = changed;
			return d;
		}
	}

	if (c->nice_fallback == RTSHIM_NICE_ALWAYS)
		return no_rt(f, RTSHIM_WHY_NICE_ONLY, 0);

	/* Rule 8: rtkit refused this kind of request a moment ago: do not spend the budget. */
	int kind = f->target == RTSHIM_TARGET_OTHER ? RTSHIM_BUDGET_OTHER
		   : cur_rt                         ? RTSHIM_BUDGET_RAISE
						    : RTSHIM_BUDGET_OWN;
	if (f->held_ms[kind] > 0) {
		struct rtshim_decision d = no_rt(f, RTSHIM_WHY_HELD, f->held_err[kind]);
		d.wait_ms = f->held_ms[kind];
		return d;
	}
	if (kind == RTSHIM_BUDGET_RAISE && f->raise_hold_ms > 0 && f->raise_tid == f->tid &&
	    f->raise_prio == mapped) {
		struct rtshim_decision d = no_rt(f, RTSHIM_WHY_FLAPPING, -EBUSY);
		d.wait_ms = f->raise_hold_ms;
		return d;
	}

	/* Rule 9: the hard RLIMIT_RTTIME set and <= rtkit's RTTimeUSecMax, never raised, never 0;
	 * the runaway guard keeps the soft limit below it where it can protect the thread. */
	if (f->rttime_err < 0)
		return done(EPERM, RTSHIM_WHY_RTTIME_UNREADABLE, f->rttime_err);
	rlim_t soft, hard;
	int v = rtshim_rttime_plan(f->rttime_soft, f->rttime_hard, c->rttime_us,
				   f->lim.rttime_usec_max, &soft, &hard);
	if (v < 0)
		return done(EPERM, RTSHIM_WHY_RTTIME_ZERO, 0);
	bool guard = f->guard_possible && !f->guard_failed && c->runaway == RTSHIM_RUNAWAY_DEMOTE &&
		     hard != RLIM_INFINITY;
	if (guard) {
		rlim_t gs = rtshim_runaway_soft(soft, hard);
		if (gs < soft) {
			soft = gs;
			v = RTSHIM_RTTIME_LOWER;
		}
	}
	if (f->rttime_set.done && f->rttime_set.err < 0)
		return done(EPERM, RTSHIM_WHY_RTTIME_UNSET, f->rttime_set.err);

	/* Rule 10: ask rtkit. */
	if (!f->rtkit.done) {
		struct rtshim_decision d = act(RTSHIM_ASK_RTKIT);
		d.prio = mapped;
		d.prio_changed = changed;
		d.set_rttime = v == RTSHIM_RTTIME_LOWER;
		d.soft = soft;
		d.hard = hard;
		d.arm_guard = guard;
		d.budget_kind = kind;
		return d;
	}
	if (f->rtkit.err == 0) {
		struct rtshim_decision d = succeeded(RTSHIM_WHY_GRANTED, !program_flag);
		d.prio = mapped;
		d.prio_changed = changed;
		d.soft = soft;
		d.hard = hard;
		return d;
	}
	/* A refusal (policy, polkit, a limit) gets the nice fallback; a missing daemon does not. */
	struct rtshim_decision d = f->rtkit.err == -EPERM || f->rtkit.err == -EBUSY
					   ? no_rt(f, RTSHIM_WHY_REFUSED, f->rtkit.err)
					   : done(EPERM, RTSHIM_WHY_REFUSED, f->rtkit.err);
	d.prio = mapped; /* what was sent */
	d.prio_changed = changed;
	return d;
}

bool rtshim_creation_copies(int creator_policy, int creator_prio, int *policy, int *prio)
{
	if (!rtshim_is_rt(creator_policy) || creator_prio < 1)
		return false;
	*policy = creator_policy & ~SCHED_RESET_ON_FORK;
	*prio = creator_prio;
	return true;
}

const char *rtshim_why_text(enum rtshim_why why)
{
	switch (why) {
	case RTSHIM_WHY_DIRECT: return "the kernel's answer";
	case RTSHIM_WHY_KEPT_FLAG: return "done; the thread keeps rtkit's reset-on-fork flag (its children start non-realtime)";
	case RTSHIM_WHY_ALREADY: return "realtime at that priority already, rtkit not asked";
	case RTSHIM_WHY_LOWERED: return "lowered within the grant, rtkit not asked";
	case RTSHIM_WHY_GRANTED: return "granted by rtkit";
	case RTSHIM_WHY_NOT_OURS: return "the thread is not this user's (or does not exist)";
	case RTSHIM_WHY_NOT_RT: return "not a realtime request";
	case RTSHIM_WHY_NO_CLIENT: return "the daemon client cannot be loaded";
	case RTSHIM_WHY_NO_DAEMON: return "rtkit cannot be reached";
	case RTSHIM_WHY_NO_PRIORITY: return "rtkit allows no realtime priority (MaxRealtimePriority < 1)";
	case RTSHIM_WHY_STRICT: return "the priority is above rtkit's maximum and RTSHIM_STRICT=1 forbids another one";
	case RTSHIM_WHY_NICE_ONLY: return "RTSHIM_NICE_FALLBACK=always: realtime is never asked for";
	case RTSHIM_WHY_HELD: return "rtkit refused this a moment ago, not asked again yet";
	case RTSHIM_WHY_FLAPPING: return "the same raise was granted a moment ago: the priority flaps";
	case RTSHIM_WHY_RTTIME_UNREADABLE: return "RLIMIT_RTTIME cannot be read";
	case RTSHIM_WHY_RTTIME_ZERO: return "RLIMIT_RTTIME is 0: a realtime thread would be killed at once";
	case RTSHIM_WHY_RTTIME_UNSET: return "RLIMIT_RTTIME cannot be set";
	case RTSHIM_WHY_REFUSED: return "rtkit did not grant realtime";
	}
	return "?";
}

const char *rtshim_why_format(char *buf, size_t size, const struct rtshim_decision *d,
			      const char *(*strerror_of)(int err))
{
	const char *text = rtshim_why_text(d->why);
	if (d->why == RTSHIM_WHY_REFUSED && d->why_err == -EPERM)
		/* the priority was in range and RLIMIT_RTTIME bounded: rtkit's policy said no */
		text = "rtkit refused: polkit does not allow realtime for this session (or rtkit's canary fired)";
	else if ((d->why == RTSHIM_WHY_REFUSED || d->why == RTSHIM_WHY_NO_DAEMON) && strerror_of)
		text = strerror_of(d->why_err);
	if (d->why_err && d->why != RTSHIM_WHY_REFUSED && d->why != RTSHIM_WHY_NO_DAEMON &&
	    rtshim_errno_name(d->why_err))
		rtshim_format(buf, size, "%s (%s)", text, rtshim_errno_name(d->why_err));
	else
		rtshim_format(buf, size, "%s", text);
	return buf;
}
