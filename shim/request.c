/* request.c — one scheduling request, from the interposer to rtkit's D-Bus message.
 *
 * Every sched_* and pthread_* interposer builds a struct rtshim_req and calls rtshim_request(),
 * which reads top to bottom:
 *   1. RTSHIM_TRACE / RTSHIM_ONLY: take the caller's stack; a request RTSHIM_ONLY does not
 *      select is the plain call, nothing else;
 *   2. the privileged path: the real call, on the program's stack; what follows a refusal runs
 *      on the shim's own stack with the program's signals held (own-stack.h);
 *   3. the decide-and-do loop: core/decide.c says what to do next from the facts gathered so
 *      far, this file does it (the real call, rtkit through the daemon client, RLIMIT_RTTIME,
 *      the runaway guard) and writes down what happened, until the decision is final;
 *   4. the thread's record (readers mask the SCHED_RESET_ON_FORK the shim put there) and one
 *      log line for the outcome.
 * The loop's effects go through a table of operations (request.h): `production` below, a unit
 * test's fakes in tests/unit/test-request.c.  The privileged path calls directly.
 * Errors inside are negative errnos; the program gets the positive errno of the decision. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "asked.h"
#include "budget.h"
#include "client.h"
#include "decide.h"
#include "log.h"
#include "nice.h"
#include "own-stack.h"
#include "prio.h"
#include "privileged.h"
#include "real.h"
#include "runaway.h"
#include "seccomp.h"
#include "settings.h"
#include "target.h"
#include "thread.h"
#include "trace.h"
#include "raw-rlimit.h"

/* The priority asked, once the real call has read the parameter (a NULL or unmapped param is
 * the kernel's EINVAL or EFAULT to give, not a crash of ours). */
static int asked_prio(const struct rtshim_req *r)
{
	return r->param ? r->param->sched_priority : 0;
}

/* The priority for a trace line, before the real call: an unmapped param gives "?" instead of
 * a crash (read through the kernel; glibc itself reads pthread_setschedparam's). */
static void traced_prio(const struct rtshim_req *r, char *buf, size_t size)
{
	struct sched_param p = { 0 };
	struct iovec here = { &p, sizeof p }, there = { (void *)(uintptr_t)r->param, sizeof p };
	if (rtshim_req_about_pthread(r))
		p.sched_priority = asked_prio(r);
	else if (r->param && process_vm_readv(getpid(), &here, 1, &there, 1, 0) != (ssize_t)sizeof p) {
		rtshim_format(buf, size, "?");
		return;
	}
	rtshim_format(buf, size, "%d", p.sched_priority);
}

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
	if (rtshim_borrowed_memory())
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
}

/* The RTSHIM_TF_* flags of the target's record: whether the shim flagged it. */
static int thread_flags(const struct rtshim_req *r, const struct rtshim_request_target *t)
{
	int flags = 0;
	if (t->self)
		flags = __atomic_load_n(&t->self->flags, __ATOMIC_RELAXED);
	else if (rtshim_req_about_pthread(r))
		rtshim_registry_by_handle(r->thread, NULL, &flags);
	else
		rtshim_registry_by_tid(t->tid, &flags);
	return flags;
}

static void update_flags(const struct rtshim_req *r, const struct rtshim_request_target *t, int set,
			 int clear)
{
	bool caller = rtshim_req_about_pthread(r) ? pthread_equal(r->thread, pthread_self()) : r->pid == 0;
	if (t->self)
		rtshim_thread_update(t->self, set, clear);
	else if (caller) /* the privileged path: the caller's record, without asking gettid() */
		rtshim_thread_update(rtshim_self_cheap(), set, clear);
	else if (rtshim_req_about_pthread(r))
		rtshim_registry_update(true, r->thread, 0, set, clear);
	else
		rtshim_thread_update_tid(t->tid ? t->tid : r->pid, set, clear);
}

static void in_flight(struct rtshim_thread *self, bool begin)
{
	if (begin)
		rtshim_registry_pending_begin(self);
	else
		rtshim_registry_pending_end(self);
}

static int get_rttime(pid_t pid, rlim_t *soft, rlim_t *hard)
{
	struct rlimit rl;
	if (rtshim_raw_prlimit(pid, RLIMIT_RTTIME, NULL, &rl) < 0)
		return -errno;
	*soft = rl.rlim_cur;
	*hard = rl.rlim_max;
	return 0;
}

static int set_rttime(pid_t pid, rlim_t soft, rlim_t hard)
{
	struct rlimit rl = { .rlim_cur = soft, .rlim_max = hard };
	return rtshim_raw_prlimit(pid, RLIMIT_RTTIME, &rl, NULL) < 0 ? -errno : 0;
}

static int lower(pid_t tid, int policy, int prio)
{
	struct sched_param p = { .sched_priority = prio };
	return rtshim_real_sched_setscheduler()(tid, policy, &p) < 0 ? -errno : 0;
}

static const struct rtshim_request_ops production = {
	.real_call = rtshim_req_real_call,
	.read_sched = read_sched,
	.find_target = find_target,
	.thread_flags = thread_flags,
	.update_flags = update_flags,
	.in_flight = in_flight,
	.sandboxed = rtshim_seccomp_filtered,
	.other_explicit = rtshim_target_other_explicit,
	.client = rtshim_client_get,
	.get_rttime = get_rttime,
	.set_rttime = set_rttime,
	.arm_guard = rtshim_runaway_arm,
	.lower = lower,
	.nice_instead = rtshim_nice_instead,
	.budget_facts = rtshim_budget_facts,
	.budget_begin = rtshim_budget_begin,
	.budget_record = rtshim_budget_record,
	.budget_end = rtshim_budget_end,
	.budget_rt_thread_gone = rtshim_budget_rt_thread_gone,
	.budget_raise_granted = rtshim_budget_raise_granted,
	.record_asked = rtshim_asked_record,
};

/* ---- the decide-and-do loop -------------------------------------------------------------- */

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
	f->shim_flag = ops->thread_flags(r, t) & RTSHIM_TF_FLAG_ADDED;
	/* the guard's SIGXCPU handler lives in this process */
	f->guard_possible = t->pid == 0;
	if (t->where == RTSHIM_TARGET_OTHER)
		f->other_explicit = ops->other_explicit(t->pid);
	/* the memo of refusals: a refusal heard a moment ago needs no client (budget.h) */
	ops->budget_facts(f);
}

/* rtkit's limits and RLIMIT_RTTIME. */
static const struct rtshim_client_v1 *read_limits(const struct rtshim_request_ops *ops,
						  const struct rtshim_request_target *t,
						  struct rtshim_facts *f)
{
	const struct rtshim_client_v1 *client = ops->client(f->cfg->timeout_ms);
	f->limits.done = true;
	f->limits.err = client ? client->get_limits(&f->lim) : -ELIBACC;
	f->rttime_err = ops->get_rttime(t->pid, &f->rttime_soft, &f->rttime_hard);
	return client;
}

/* Did rtkit make the thread realtime at `prio` after all (its answer came too late)? */
static bool granted_late(const struct rtshim_request_ops *ops, pid_t tid, int prio)
{
	int policy, now;
	return ops->read_sched(tid, &policy, &now) == 0 && rtshim_is_rt(policy) && now == prio;
}

/* RLIMIT_RTTIME and the guard as decided, then rtkit (the gate is this thread's: budget.h). */
static void ask_rtkit(const struct rtshim_request_ops *ops, const struct rtshim_client_v1 *client,
		      const struct rtshim_request_target *t, const struct rtshim_decision *d,
		      struct rtshim_facts *f)
{
	if (d->arm_guard && ops->arm_guard(d->soft) < 0) {
		f->guard_failed = true; /* decided again without it */
		return;
	}
	if (d->set_rttime) {
		f->rttime_set.done = true;
		f->rttime_set.err = ops->set_rttime(t->pid, d->soft, d->hard);
		if (f->rttime_set.err)
			return;
	}
	f->rtkit.done = true;
	f->rtkit.err = client->make_realtime(t->pid, t->tid, d->prio);
	if (f->rtkit.err == -ETIMEDOUT && granted_late(ops, t->tid, d->prio))
		f->rtkit.err = 0; /* rtkit answered after our timeout: the kernel has the grant */
	ops->budget_record(d->budget_kind, f->rtkit.err);
	if (!f->rtkit.err && d->budget_kind == RTSHIM_BUDGET_RAISE)
		ops->budget_raise_granted(t->tid, d->prio);
}

/* The gate (budget.h) before the client's first work: true when it is this thread's.  A
 * refusal heard while waiting there, or another request's work that outlasted the timeout, is
 * a fact to decide again with. */
static bool pass_gate(const struct rtshim_request_ops *ops, const struct rtshim_decision *d,
		      struct rtshim_facts *f)
{
	int g = ops->budget_begin(d->budget_kind, f->cfg->timeout_ms);
	if (g == -ETIMEDOUT) {
		f->limits.done = true;
		f->limits.err = g;
	} else if (g < 0) {
		ops->budget_facts(f);
	}
	return g == 0;
}

/* The RTSHIM_TF_* flags to set and clear after a success: who put SCHED_RESET_ON_FORK there,
 * whether rtkit made it realtime (RTSHIM_INHERIT), and, for a request with a policy, whether
 * the program asked SCHED_FIFO and has rtkit's SCHED_RR (the readers report what it asked).
 * false: nothing to write (the flag not in play). */
static bool flag_changes(const struct rtshim_req *r, enum rtshim_flag_owner owner, bool granted,
			 bool fifo_as_rr, int *set, int *clear)
{
	if (owner == RTSHIM_FLAG_UNTOUCHED)
		return false;
	bool shims = owner == RTSHIM_FLAG_SHIMS;
	*set = shims ? RTSHIM_TF_FLAG_ADDED : 0;
	*clear = shims ? 0 : RTSHIM_TF_FLAG_ADDED;
	if (granted)
		*set |= RTSHIM_TF_GRANTED;
	if (fifo_as_rr)
		*set |= RTSHIM_TF_ASKED_FIFO;
	else if (rtshim_req_has_policy(r))
		*clear |= RTSHIM_TF_ASKED_FIFO;
	return true;
}

/* The kernel has what the call asked: no asked priority to report any more. */
void rtshim_record_direct_flags(const struct rtshim_req *r, enum rtshim_flag_owner owner)
{
	struct rtshim_request_target t = { .where = RTSHIM_TARGET_UNKNOWN };
	int set = 0, clear = 0;
	flag_changes(r, owner, false, false, &set, &clear);
	update_flags(r, &t, set, clear | RTSHIM_TF_ASKED_PRIO | RTSHIM_TF_PRIO_BITS);
}

/* The thread's record after a success: the flags, and the priority asked where the thread is
 * realtime at another (rtkit's maximum, the map), which its readers report (rule 6). */
static void record(const struct rtshim_request_ops *ops, const struct rtshim_req *r,
		   const struct rtshim_request_target *t, const struct rtshim_decision *d)
{
	int policy = 0, prio = 0, set = 0, clear = 0;
	bool read = t->tid > 0 && ops->read_sched(t->tid, &policy, &prio) == 0;
	bool fifo_as_rr = rtshim_req_has_policy(r) && (r->policy & ~SCHED_RESET_ON_FORK) == SCHED_FIFO &&
			  read && (policy & ~SCHED_RESET_ON_FORK) == SCHED_RR;
	bool flagged = flag_changes(r, d->flag_owner, d->why == RTSHIM_WHY_GRANTED, fifo_as_rr, &set, &clear);
	if (read) {
		clear |= RTSHIM_TF_ASKED_PRIO | RTSHIM_TF_PRIO_BITS;
		if (rtshim_is_rt(policy) && prio != asked_prio(r))
			set |= rtshim_asked_prio_flags(asked_prio(r), prio);
	}
	if (flagged || read)
		ops->update_flags(r, t, set, clear & ~set);
}

/* ---- what the program is told ------------------------------------------------------------ */

static const char *what_the_program_gets(const struct rtshim_req *r,
					 const struct rtshim_config *cfg)
{
	if (!r->creating)
		return "the call fails with EPERM as it would without rtshim";
	return cfg->strict ? "pthread_create fails with EPERM (RTSHIM_STRICT=1)"
			   : "the thread runs SCHED_OTHER";
}

static __attribute__((noinline, cold)) void log_granted_directly(const struct rtshim_req *r,
								enum rtshim_flag_owner owner)
{
	rtshim_log(RTSHIM_LOG_INFO, "thread %d: %s/%d requested → granted directly%s",
		   (int)gettid(), rtshim_policy_name(r->policy), asked_prio(r),
		   owner == RTSHIM_FLAG_SHIMS ? " with SCHED_RESET_ON_FORK" : "");
}

/* The kernel granted the call as made (the privileged path). */
static inline void report_direct(const struct rtshim_req *r, enum rtshim_flag_owner owner)
{
	/* the log level first: its arguments would cost the privileged path a gettid(), and
	 * the call itself out of line: its frame costs it more than the test */
	if (rtshim_log_enabled(RTSHIM_LOG_INFO) && rtshim_req_has_policy(r) && rtshim_is_rt(r->policy))
		log_granted_directly(r, owner);
}

/* What the slow path came to.  The kernel's own answer to the direct call (RTSHIM_WHY_DIRECT:
 * not EPERM) is not the shim's to report. */
static void report(const struct rtshim_request_ops *ops, const struct rtshim_req *r,
		   const struct rtshim_facts *f, const struct rtshim_decision *d,
		   const struct rtshim_client_v1 *client, bool nice_got)
{
	int asked_policy = (rtshim_req_has_policy(r) ? r->policy : f->cur_policy) & ~SCHED_RESET_ON_FORK;
	const char *asked = rtshim_policy_name(asked_policy);
	int prio = f->prio, tid = (int)f->tid;
	char why[200];

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
		return; /* said once by the loader */
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
	rtshim_why_format(why, sizeof why, d, client ? client->strerror : NULL);
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

/* ---- the request ------------------------------------------------------------------------- */

static const char *req_name(enum rtshim_req_kind kind)
{
	switch (kind) {
	case RTSHIM_REQ_SCHED_SETSCHEDULER: return "sched_setscheduler";
	case RTSHIM_REQ_SCHED_SETPARAM: return "sched_setparam";
	case RTSHIM_REQ_PTHREAD_SETSCHEDPARAM: return "pthread_setschedparam";
	case RTSHIM_REQ_PTHREAD_SETSCHEDPRIO: return "pthread_setschedprio";
	}
	return "?";
}

/* RTSHIM_TRACE/RTSHIM_ONLY: true when RTSHIM_ONLY leaves this request alone. */
static bool trace_left_alone(const struct rtshim_req *r, const struct rtshim_stack *st,
			     struct rtshim_trace *tr)
{
	char who[32], prio[16];
	traced_prio(r, prio, sizeof prio);
	if (rtshim_req_about_pthread(r))
		rtshim_format(who, sizeof who, "%s", pthread_equal(r->thread, pthread_self()) ? "self" : "thread");
	else
		rtshim_format(who, sizeof who, "%d", (int)r->pid);
	if (rtshim_req_has_policy(r))
		return rtshim_trace_left_alone_with(tr, st, "%s(%s, %s%s, %s)", req_name(r->kind),
						    who, rtshim_policy_name(r->policy),
						    (r->policy & SCHED_RESET_ON_FORK) ? "|RESET_ON_FORK" : "",
						    prio);
	return rtshim_trace_left_alone_with(tr, st, "%s(%s, %s)", req_name(r->kind), who, prio);
}

/* The direct call said EPERM: the slow path from here on.  A cancellation point inside it
 * (poll, in the client) must not end the thread halfway through; pending cancellation is
 * acted upon at the program's next cancellation point. */
static void begin_slow_path(const struct rtshim_request_ops *ops, const struct rtshim_req *r,
			    struct rtshim_request_target *t, struct rtshim_facts *f, int *cancel_state)
{
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, cancel_state);
	ops->find_target(r, t);
	/* a reader of this thread's policy elsewhere waits for the outcome instead of reading the
	 * SCHED_OTHER of the moment before (jconvolver after jack_activate) */
	if (t->self)
		ops->in_flight(t->self, true);
	gather_target(ops, r, t, f);
	/* before any work of the daemon client's (loading it, connecting) */
	f->sandboxed = ops->sandboxed();
}

/* The decide-and-do loop (on the shim's own stack: own-stack.h).  The core's first step is
 * always RTSHIM_CALL (decide.h: while the facts hold no direct call): the privileged path made
 * it, its answer is written down; every other step is carried out here. */
int rtshim_request_refused(const struct rtshim_request_ops *ops, const struct rtshim_config *cfg,
			   const struct rtshim_req *r, int direct, pid_t *granted)
{
	struct rtshim_request_target t = { .where = RTSHIM_TARGET_UNKNOWN };
	struct rtshim_decision d;
	struct rtshim_facts f;
	const struct rtshim_client_v1 *client = NULL;
	int cancel_state = -1;
	bool nice_got = false, gate_tried = false, gate = false;

	rtshim_facts_init(&f, cfg, rtshim_req_has_policy(r), r->policy, 0);
	f.inherited = r->inherited;
	for (;;) {
		d = rtshim_decide(&f);
		switch (d.action) {
		case RTSHIM_CALL:
			f.direct.done = true;
			f.direct.err = direct;
			/* the priority the kernel read (an unmapped param is the kernel's EFAULT,
			 * never read here) */
			if (direct == -EPERM) {
				f.prio = asked_prio(r);
				begin_slow_path(ops, r, &t, &f, &cancel_state);
			}
			continue;
		case RTSHIM_CALL_KEEPING_FLAG:
			f.keeping_flag.done = true;
			f.keeping_flag.err = ops->real_call(r, d.policy);
			continue;
		case RTSHIM_READ_LIMITS:
			if (!gate_tried) {
				gate_tried = true;
				if (!(gate = pass_gate(ops, &d, &f)))
					continue;
			}
			client = read_limits(ops, &t, &f);
			continue;
		case RTSHIM_LOWER:
			f.lowered.done = true;
			f.lowered.err = ops->lower(t.tid, d.policy, d.prio);
			continue;
		case RTSHIM_ASK_RTKIT:
			ask_rtkit(ops, client, &t, &d, &f);
			continue;
		case RTSHIM_ASK_NICE:
			if (gate) /* the nice level passes the gate on its own (nice.c) */
				ops->budget_end();
			gate = false;
			nice_got = ops->nice_instead(client, &f.lim, t.pid, t.tid) == RTSHIM_NICE_GOT;
			break;
		case RTSHIM_DONE:
			if (d.program_errno == 0)
				record(ops, r, &t, &d);
			/* a drop of a thread rtkit made realtime: one of its slots may be free */
			if (d.why == RTSHIM_WHY_KEPT_FLAG && rtshim_is_rt(f.cur_policy) &&
			    !rtshim_is_rt(r->policy))
				ops->budget_rt_thread_gone();
			break;
		}
		break;
	}
	if (gate)
		ops->budget_end();
	report(ops, r, &f, &d, client, nice_got);
	if (d.why == RTSHIM_WHY_GRANTED)
		*granted = t.tid;
	if (t.self)
		ops->in_flight(t.self, false);
	if (cancel_state >= 0)
		pthread_setcancelstate(cancel_state, NULL);
	return d.program_errno;
}

/* Rule 1, the privileged path, configured (RTSHIM_POLICY, RTSHIM_RESET_ON_FORK, a trace or the
 * info log level; privileged.h has the plain one): the call as the decision core makes it
 * first, and when the kernel grants it, the core's decision for that, without the facts a
 * refusal needs.  A refusal goes on on the shim's own stack, unless already there (traced). */
static __attribute__((noinline)) int privileged(const struct rtshim_req *r,
						const struct rtshim_trace *tr)
{
	struct rtshim_direct rule1 = rtshim_direct(rtshim_cfg(), rtshim_req_has_policy(r), r->policy);
	int direct = rtshim_req_real_call(r, rule1.policy);
	if (direct != 0)
		return direct;
	rtshim_record_direct(r, rule1.flag_owner);
	report_direct(r, rule1.flag_owner);
	rtshim_trace_end(tr, 0);
	return 0;
}

/* Past the privileged path: the request and the real call's refusal. */
struct refusal {
	const struct rtshim_req *r;
	const struct rtshim_trace *tr;
	int direct;
	pid_t *granted; /* the thread rtkit made realtime (the guard is told after: runaway.c) */
};

/* On the shim's own stack (own-stack.h): the loop with the shim's own operations. */
static int refused(void *arg)
{
	const struct refusal *s = arg;
	int err = rtshim_request_refused(&production, rtshim_cfg(), s->r, s->direct, s->granted);
	rtshim_trace_end(s->tr, err);
	return err;
}

static const struct rtshim_trace untraced = { .on = false };

/* SIGXCPU deliverable to the thread rtkit made realtime, if any (runaway.c): it sets the
 * thread's signal mask, so back on the program's stack, whose mask the switch back restores. */
static void tell_guard(pid_t granted)
{
	if (granted)
		rtshim_runaway_granted(granted);
}

/* Rule 8's first half before the slow path: the calling thread asks for realtime, is not
 * realtime and carries no SCHED_RESET_ON_FORK, and the memo holds rtkit's refusal of its kind
 * (budget.h): the decision core, given those facts, says EPERM without asking anyone
 * (rtshim_refusal_holds).  Here that costs two atomic loads and one system call on the
 * program's stack, where the slow path maps a stack of its own.  At the info log level the
 * slow path runs, to say it. */
static bool held_at_once(const struct rtshim_req *r, int direct)
{
	int64_t own = 0, nice = 0;
	if (direct != -EPERM || !rtshim_budget_check(RTSHIM_BUDGET_OWN, &own))
		return false;
	rtshim_budget_check(RTSHIM_BUDGET_NICE, &nice);
	if (!rtshim_refusal_holds(rtshim_cfg(), own, nice) || !rtshim_req_has_policy(r) ||
	    !rtshim_is_rt(r->policy) || rtshim_log_enabled(RTSHIM_LOG_INFO))
		return false;
	if (rtshim_req_about_pthread(r) ? !pthread_equal(r->thread, pthread_self()) : r->pid != 0)
		return false;
	int cur = rtshim_real_sched_getscheduler()(0);
	return cur >= 0 && !rtshim_is_rt(cur) && !(cur & SCHED_RESET_ON_FORK);
}

int rtshim_request_after_refusal(const struct rtshim_req *r, int direct)
{
	if (held_at_once(r, direct))
		return EPERM;
	pid_t granted = 0;
	struct refusal s = { .r = r, .tr = &untraced, .direct = direct, .granted = &granted };
	int err = rtshim_own_stack_run(refused, &s);
	tell_guard(granted);
	return err;
}

static int request(const struct rtshim_req *r, const struct rtshim_trace *tr, bool on_own_stack,
		   pid_t *granted)
{
	int direct = privileged(r, tr);
	if (direct == 0)
		return 0;
	struct refusal s = { .r = r, .tr = tr, .direct = direct, .granted = granted };
	return on_own_stack ? refused(&s) : rtshim_own_stack_run(refused, &s);
}

struct traced_request {
	const struct rtshim_req *r;
	const struct rtshim_stack *stack;
	pid_t *granted;
};

/* RTSHIM_TRACE/RTSHIM_ONLY, on the shim's own stack: the stack taken, the request named. */
static int traced(void *arg)
{
	const struct traced_request *t = arg;
	struct rtshim_trace tr;
	if (trace_left_alone(t->r, t->stack, &tr)) {
		int err = -rtshim_req_real_call(t->r, t->r->policy);
		rtshim_trace_end(&tr, err);
		return err;
	}
	return request(t->r, &tr, true, t->granted);
}

int rtshim_request_configured(const struct rtshim_req *r)
{
	pid_t granted = 0;
	int err;
	/* pthread_create's promotion runs in the new thread: traced by the pthread_create hook */
	if (!r->creating && rtshim_trace_wanted()) {
		struct rtshim_stack st;
		rtshim_trace_take_stack(&st); /* here: the program's frames are on this stack */
		struct traced_request t = { .r = r, .stack = &st, .granted = &granted };
		err = rtshim_own_stack_run(traced, &t);
	} else {
		err = request(r, &untraced, false, &granted);
	}
	tell_guard(granted);
	return err;
}
