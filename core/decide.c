/* decide.c — see decide.h.  The rules, numbered as in rtshim(7)'s RULES and test-decide.c:
 * 1-10 scheduling requests, 11-14 nice levels, 15-18 thread creation, 19-20 sched_setattr,
 * 21 seccomp sandboxes, 22 another process's threads. */
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
	return (struct rtshim_decision){ .action = a, .flag_owner = RTSHIM_FLAG_UNTOUCHED };
}

static struct rtshim_decision done(int program_errno, enum rtshim_why why, int why_err)
{
	struct rtshim_decision d = act(RTSHIM_DONE);
	d.program_errno = program_errno;
	d.why = why;
	d.why_err = why_err;
	return d;
}

/* shims_flag: the thread's flag is the shim's */
static struct rtshim_decision succeeded(enum rtshim_why why, bool shims_flag)
{
	struct rtshim_decision d = done(0, why, 0);
	d.flag_owner = shims_flag ? RTSHIM_FLAG_SHIMS : RTSHIM_FLAG_PROGRAMS;
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

/* rtshim(7) rule 1, the privileged path: exactly what was asked.  RTSHIM_POLICY and
 * RTSHIM_RESET_ON_FORK=1 are the explicit opt-ins that change it. */
int rtshim_direct_policy(const struct rtshim_config *c, bool has_policy, int policy)
{
	int p = has_policy ? policy : 0;
	if (!has_policy || !rtshim_is_rt(p) || c->disabled)
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

enum rtshim_flag_owner rtshim_direct_flag_owner(bool has_policy, int policy, int sent)
{
	if (!has_policy)
		return RTSHIM_FLAG_UNTOUCHED;
	return (sent & SCHED_RESET_ON_FORK) && !(policy & SCHED_RESET_ON_FORK) ? RTSHIM_FLAG_SHIMS
									      : RTSHIM_FLAG_PROGRAMS;
}

struct rtshim_decision rtshim_direct_succeeded(const struct rtshim_config *c, bool has_policy,
					       int policy)
{
	struct rtshim_decision d = done(0, RTSHIM_WHY_DIRECT, 0);
	d.flag_owner = rtshim_direct_flag_owner(has_policy, policy,
						rtshim_direct_policy(c, has_policy, policy));
	return d;
}

/* What the rules before rtkit found, for those that follow. */
struct plan {
	bool program_flag; /* the thread's SCHED_RESET_ON_FORK is the program's own */
	bool cur_rt;       /* the thread is realtime now */
	int mapped;        /* the priority in rtkit's range */
	bool changed;      /* ... differs from what was asked */
};

/* Whose budget a request spends: another process's thread, a raise, or a thread of ours. */
static int budget_kind(const struct rtshim_facts *f, bool cur_rt)
{
	return f->target == RTSHIM_TARGET_OTHER ? RTSHIM_BUDGET_OTHER
	       : cur_rt                         ? RTSHIM_BUDGET_RAISE
						: RTSHIM_BUDGET_OWN;
}

static struct rtshim_decision held(const struct rtshim_facts *f, int kind)
{
	struct rtshim_decision d = no_rt(f, RTSHIM_WHY_HELD, f->held_err[kind]);
	d.wait_ms = f->held_ms[kind];
	d.ago_ms = f->held_ago_ms[kind];
	return d;
}

/* rtshim(7) rule 8, first half, before rtkit's limits are read: a thread that is not realtime yet,
 * whose kind of request rtkit refused a moment ago, gets its EPERM at once, without any work of the
 * client's (the fallback's nice level too held, or not wanted).  A thread realtime already waits
 * for rtshim(7) rules 6 and 7, which need no rtkit.  true: *d decided. */
static bool held_before_rtkit(const struct rtshim_facts *f, const struct plan *p,
			      struct rtshim_decision *d)
{
	int kind = budget_kind(f, false);
	if (p->cur_rt || !rtshim_refusal_holds(f->cfg, f->held_ms[kind], f->held_ms[RTSHIM_BUDGET_NICE]))
		return false;
	*d = held(f, kind);
	d->action = RTSHIM_DONE;
	return true;
}

bool rtshim_refusal_holds(const struct rtshim_config *cfg, int64_t held_ms, int64_t held_nice_ms)
{
	int fallback = cfg->nice_fallback;
	return held_ms > 0 && fallback != RTSHIM_NICE_ALWAYS &&
	       (fallback == RTSHIM_NICE_OFF || held_nice_ms > 0);
}

/* rtshim(7) rules 1-4, 22 and 21: the direct call, whose thread, the flag, a realtime request,
 * another process's thread, a sandbox.  true: *d decided. */
static bool before_rtkit(const struct rtshim_facts *f, struct plan *p, struct rtshim_decision *d)
{
	const struct rtshim_config *c = f->cfg;
	int sent = rtshim_direct_policy(c, f->has_policy, f->policy);
	int asked_flag = f->policy & SCHED_RESET_ON_FORK;

	if (!f->direct.done) {
		*d = act(RTSHIM_CALL);
		d->policy = sent;
		return true;
	}
	if (f->direct.err == 0) {
		*d = rtshim_direct_succeeded(c, f->has_policy, f->policy);
		return true;
	}
	/* Invalid arguments, no such thread, ...: exactly the kernel's error; and every error
	 * while rtshim is switched off (RTSHIM_DISABLE). */
	if (f->direct.err != -EPERM || c->disabled) {
		*d = done(-f->direct.err, RTSHIM_WHY_DIRECT, 0);
		return true;
	}

	/* rtshim(7) rule 2: EPERM.  Only about a thread of ours, or of another process of this
	 * user. */
	if (f->target == RTSHIM_TARGET_UNKNOWN) {
		*d = done(EPERM, RTSHIM_WHY_NOT_OURS, 0);
		return true;
	}

	/* rtshim(7) rule 3: a thread that carries SCHED_RESET_ON_FORK keeps it (the kernel refuses
	 * an unprivileged caller who drops it): drops and changes are retried with the flag. */
	if (f->has_policy && !(sent & SCHED_RESET_ON_FORK) && (f->cur_policy & SCHED_RESET_ON_FORK)) {
		if (!f->keeping_flag.done) {
			*d = act(RTSHIM_CALL_KEEPING_FLAG);
			d->policy = sent | SCHED_RESET_ON_FORK;
			return true;
		}
		if (f->keeping_flag.err == 0) {
			*d = succeeded(RTSHIM_WHY_KEPT_FLAG, !asked_flag);
			return true;
		}
	}

	/* rtshim(7) rule 4: only a realtime request goes on to rtkit.  A priority alone
	 * (sched_setparam, pthread_setschedprio) asks for realtime when the thread has it already.
	 */
	if (!rtshim_is_rt(f->has_policy ? f->policy : f->cur_policy)) {
		*d = done(EPERM, RTSHIM_WHY_NOT_RT, 0);
		return true;
	}
	p->program_flag = f->has_policy ? asked_flag
			  : (f->cur_policy & SCHED_RESET_ON_FORK) && !f->shim_flag;
	p->cur_rt = rtshim_is_rt(f->cur_policy);

	/* rtshim(7) rule 22: another process's thread would run without a guard (the guard lives in
	 * the process that asks): only a person's explicit request (rtrun --pid, `rtrun chrt -p`)
	 */
	if (f->target == RTSHIM_TARGET_OTHER && !f->other_explicit) {
		*d = done(EPERM, RTSHIM_WHY_OTHER_PROCESS, 0);
		return true;
	}
	/* rtshim(7) rule 21: under a seccomp filter, the sockets and mappings a daemon client needs
	 * may be what the filter kills or traps: no daemon, no nice fallback, the kernel's answer.
	 */
	if (f->sandboxed) {
		*d = done(EPERM, RTSHIM_WHY_SANDBOXED, 0);
		return true;
	}
	if (!f->limits.done && held_before_rtkit(f, p, d))
		return true;
	if (!f->limits.done) {
		*d = act(RTSHIM_READ_LIMITS);
		d->budget_kind = budget_kind(f, p->cur_rt);
	}
	else if (f->limits.err == -ELIBACC)
		*d = done(EPERM, RTSHIM_WHY_NO_CLIENT, 0);
	else if (f->limits.err < 0)
		*d = done(EPERM, RTSHIM_WHY_NO_DAEMON, f->limits.err);
	else
		return false;
	return true;
}

/* rtshim(7) rules 5-7: the priority in rtkit's range, and what needs no rtkit.  true: *d decided.
 */
static bool within_grant(const struct rtshim_facts *f, struct plan *p, struct rtshim_decision *d)
{
	const struct rtshim_config *c = f->cfg;

	/* rtshim(7) rule 5: the priority in rtkit's range (an inherited one is in it already:
	 * clamp). */
	struct rtshim_prio_map map = {
		.mode = f->inherited ? RTSHIM_PRIO_CLAMP : c->prio_map,
		.max_prio = f->lim.max_realtime_priority,
		.top = c->prio_top,
	};
	p->changed = false;
	p->mapped = rtshim_prio_map(&map, f->prio, &p->changed);
	if (p->mapped < 0) {
		*d = done(EPERM, RTSHIM_WHY_NO_PRIORITY, 0);
		return true;
	}
	/* ... below the higher priorities other threads of the process hold */
	if (!f->inherited && f->above > 0) {
		p->mapped = rtshim_prio_keep_order(p->mapped, map.max_prio, f->above);
		p->changed = p->mapped != f->prio;
	}
	if (c->strict && p->changed) {
		*d = done(EPERM, RTSHIM_WHY_STRICT, 0);
		return true;
	}

	/* rtshim(7) rule 6: realtime at that priority already (a FIFO request on a thread rtkit
	 * made RR included): rtkit's per-user budget is shared, do not spend it. */
	if (p->cur_rt && f->cur_prio == p->mapped) {
		*d = succeeded(RTSHIM_WHY_ALREADY,
			       (f->cur_policy & SCHED_RESET_ON_FORK) && !p->program_flag);
		d->prio_changed = p->changed;
		return true;
	}
	/* rtshim(7) rule 7: lowering within the granted policy needs no privilege. */
	if (p->cur_rt && p->mapped < f->cur_prio) {
		if (!f->lowered.done) {
			*d = act(RTSHIM_LOWER);
			d->policy = (f->cur_policy & ~SCHED_RESET_ON_FORK) | SCHED_RESET_ON_FORK;
			d->prio = p->mapped;
			return true;
		}
		if (f->lowered.err == 0) {
			*d = succeeded(RTSHIM_WHY_LOWERED, !p->program_flag);
			d->prio_changed = p->changed;
			return true;
		}
	}
	if (c->nice_fallback == RTSHIM_NICE_ALWAYS) {
		*d = no_rt(f, RTSHIM_WHY_NICE_ONLY, 0);
		return true;
	}
	return false;
}

/* rtshim(7) rule 8: rtkit refused this kind of request a moment ago: do not spend the budget.
 * true: *d decided. */
static bool held_back(const struct rtshim_facts *f, const struct plan *p, int kind,
		      struct rtshim_decision *d)
{
	if (f->held_ms[kind] > 0) {
		*d = held(f, kind);
		return true;
	}
	if (kind == RTSHIM_BUDGET_RAISE &&
	    rtshim_raise_flaps(f->raise_tid, f->raise_prio, f->raise_hold_ms, f->tid, p->mapped)) {
		*d = no_rt(f, RTSHIM_WHY_FLAPPING, -EBUSY);
		d->wait_ms = f->raise_hold_ms;
		return true;
	}
	return false;
}

/* rtshim(7) rules 9 and 10: RLIMIT_RTTIME bounded, then rtkit asked, then its answer. */
static struct rtshim_decision ask(const struct rtshim_facts *f, const struct plan *p, int kind)
{
	const struct rtshim_config *c = f->cfg;
	struct rtshim_decision d;

	/* rtshim(7) rule 9: the hard RLIMIT_RTTIME set and <= rtkit's RTTimeUSecMax, never raised,
	 * never 0; the runaway guard keeps the soft limit below it where it can protect the thread.
	 */
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

	/* rtshim(7) rule 10: ask rtkit. */
	if (!f->rtkit.done || f->rtkit.err == 0) {
		if (!f->rtkit.done) {
			d = act(RTSHIM_ASK_RTKIT);
			d.set_rttime = v == RTSHIM_RTTIME_LOWER;
			d.arm_guard = guard;
			d.budget_kind = kind;
		} else {
			d = succeeded(RTSHIM_WHY_GRANTED, !p->program_flag);
		}
		d.soft = soft; /* RLIMIT_RTTIME in force for the grant */
		d.hard = hard;
	} else if (f->rtkit.err == -EPERM) {
		/* a refusal (policy, polkit) gets the nice fallback ... */
		d = no_rt(f, RTSHIM_WHY_REFUSED, f->rtkit.err);
	} else if (f->rtkit.err == -EBUSY) {
		/* ... a per-user limit does not: rtkit's thread, process and burst limits count
		 * MakeThreadHighPriority as they count realtime, so it would say EBUSY again */
		d = done(EPERM, RTSHIM_WHY_REFUSED, f->rtkit.err);
	} else {
		/* ... a missing daemon does not */
		d = done(EPERM, RTSHIM_WHY_REFUSED, f->rtkit.err);
	}
	d.prio = p->mapped; /* to send, granted, or sent */
	d.prio_changed = p->changed;
	return d;
}

struct rtshim_decision rtshim_decide(const struct rtshim_facts *f)
{
	struct rtshim_decision d;
	struct plan p;

	if (before_rtkit(f, &p, &d) || within_grant(f, &p, &d))
		return d;
	int kind = budget_kind(f, p.cur_rt);
	if (held_back(f, &p, kind, &d))
		return d;
	return ask(f, &p, kind);
}

/* rtshim(7) rule 8's second half: the raise granted a moment ago (held_tid to held_prio, held for
 * hold_ms more) is asked again. */
bool rtshim_raise_flaps(pid_t held_tid, int held_prio, int64_t hold_ms, pid_t tid, int prio)
{
	return hold_ms > 0 && held_tid == tid && held_prio == prio;
}

/* rtshim(7) rules 11-14: a nice level the kernel refused (setpriority, nice). */
struct rtshim_nice_decision rtshim_decide_nice(const struct rtshim_nice_facts *f)
{
	struct rtshim_nice_decision d = { .step = RTSHIM_NICE_ASK };
	int want = f->want < -20 ? -20 : f->want; /* the kernel's own clamp */

	/* rtshim(7) rule 11: MakeThreadHighPriority would demote a realtime thread: not asked */
	if (rtshim_is_rt(f->cur_policy)) {
		d.step = RTSHIM_NICE_SKIP_RT;
		return d;
	}
	if (f->cur_err < 0) {
		d.step = RTSHIM_NICE_FAILED;
		d.err = f->cur_err;
		return d;
	}
	/* rtshim(7) rule 12: within rtkit's MinNiceLevel */
	d.send = want < f->min_nice_level ? f->min_nice_level : want;
	d.clamped = d.send != want;
	/* rtshim(7) rule 13: nicer already than what rtkit would give: nothing to ask */
	if (f->cur_nice <= d.send) {
		d.step = RTSHIM_NICE_ALREADY;
		return d;
	}
	/* rtshim(7) rule 14: rtkit refused a nice level a moment ago: its budget is not spent again
	 * yet */
	if (f->held_err < 0) {
		d.step = RTSHIM_NICE_HELD;
		d.err = f->held_err;
	}
	return d;
}

/* rtshim(7) rule 15: an explicit realtime attribute is created SCHED_OTHER and promoted. */
bool rtshim_creation_promotes(bool explicit_sched, int attr_policy, int attr_prio)
{
	return explicit_sched && rtshim_is_rt(attr_policy) && attr_prio > 0;
}

/* rtshim(7) rule 16: the promotion's outcome.  EPERM runs the thread SCHED_OTHER unless
 * RTSHIM_STRICT, or rtshim is switched off (pthread_create fails as without it). */
bool rtshim_creation_runs(const struct rtshim_config *cfg, int err)
{
	return err == 0 || (err == EPERM && !cfg->strict && !cfg->disabled);
}

/* rtshim(7) rule 17: RTSHIM_INHERIT. */
bool rtshim_creation_inherits(const struct rtshim_config *cfg, bool attr_inherits,
			      bool creator_granted, int creator_policy, int creator_prio,
			      int *policy, int *prio)
{
	/* only a thread rtkit made realtime, still realtime now, whose children lose it */
	if (!cfg->inherit || !attr_inherits || !creator_granted ||
	    !(creator_policy & SCHED_RESET_ON_FORK))
		return false;
	return rtshim_creation_copies(creator_policy, creator_prio, policy, prio);
}

/* rtshim(7) rule 18 */
bool rtshim_creation_copies(int creator_policy, int creator_prio, int *policy, int *prio)
{
	if (!rtshim_is_rt(creator_policy) || creator_prio < 1)
		return false;
	*policy = creator_policy & ~SCHED_RESET_ON_FORK;
	*prio = creator_prio;
	return true;
}

/* rtshim(7) rule 19: sched_setattr refused (EPERM) for a realtime policy with no flag but
 * reset-on-fork, what sched_setscheduler can say, becomes that sched_setscheduler request.  EPERM
 * means the kernel has read and checked the attribute.  Anything else keeps the kernel's answer. */
bool rtshim_attr_as_setscheduler(int err, uint32_t attr_policy, uint64_t attr_flags, int *policy)
{
	if (err != EPERM || (attr_policy != SCHED_FIFO && attr_policy != SCHED_RR) ||
	    (attr_flags & ~(uint64_t)RTSHIM_ATTR_FLAG_RESET_ON_FORK))
		return false;
	*policy = (int)attr_policy |
		  ((attr_flags & RTSHIM_ATTR_FLAG_RESET_ON_FORK) ? SCHED_RESET_ON_FORK : 0);
	return true;
}

/* rtshim(7) rule 20: rtshim(7) rule 3 for sched_setattr.  A thread that carries SCHED_RESET_ON_FORK
 * keeps it: an attribute that omits SCHED_FLAG_RESET_ON_FORK (and sets a policy: KEEP_POLICY keeps
 * the flag already) is retried with it, whatever its policy, nice level or priority. */
bool rtshim_attr_keeps_flag(int err, uint64_t attr_flags, int cur_policy, uint64_t *flags)
{
	if (err != EPERM || cur_policy < 0 || !(cur_policy & SCHED_RESET_ON_FORK) ||
	    (attr_flags & (RTSHIM_ATTR_FLAG_RESET_ON_FORK | RTSHIM_ATTR_FLAG_KEEP_POLICY)))
		return false;
	*flags = attr_flags | RTSHIM_ATTR_FLAG_RESET_ON_FORK;
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
	case RTSHIM_WHY_OTHER_PROCESS: return "a thread of another process: asked for only by the command rtrun runs (or rtrun --pid), never by a program about its own children";
	case RTSHIM_WHY_SANDBOXED: return "the process runs under a seccomp filter (a sandbox): rtkit is not contacted";
	}
	return "?";
}

const char *rtshim_why_format(char *buf, size_t size, const struct rtshim_decision *d,
			      const char *(*strerror_of)(int err))
{
	const char *text = rtshim_why_text(d->why);
	if (d->why == RTSHIM_WHY_HELD) {
		const char *what = d->why_err == -EBUSY ? "a per-user limit: realtime threads, processes or requests in its burst interval"
				   : d->why_err == -EPERM ? "polkit or its policy"
				   : rtshim_errno_name(d->why_err) ? rtshim_errno_name(d->why_err) : "?";
		rtshim_format(buf, size, "rtkit said no %lld ms ago (%s), not asked again for %lld ms",
			      (long long)d->ago_ms, what, (long long)d->wait_ms);
		return buf;
	}
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
