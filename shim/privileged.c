/* privileged.c — the privileged path's out-of-line part (privileged.h has the inline one):
 * the configured call (RTSHIM_POLICY, RTSHIM_RESET_ON_FORK, RTSHIM_TRACE/RTSHIM_ONLY, the info
 * log level), and the way from a refusal to the slow path (slow-path.h): the memo's quick
 * EPERM, the shim's own stack with the program's signals held (own-stack.h), the runaway
 * guard told about a grant. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <sys/uio.h>
#include <unistd.h>

#include "budget.h"
#include "log.h"
#include "own-stack.h"
#include "prio.h"
#include "privileged.h"
#include "runaway.h"
#include "slow-path.h"
#include "trace.h"

/* ---- RTSHIM_TRACE and RTSHIM_ONLY ------------------------------------------------------- */

/* The priority for a trace line, before the real call: an unmapped param gives "?" instead of
 * a crash (read through the kernel; glibc itself reads pthread_setschedparam's). */
static void traced_prio(const struct rtshim_req *r, char *buf, size_t size)
{
	struct sched_param p = { 0 };
	struct iovec here = { &p, sizeof p }, there = { (void *)(uintptr_t)r->param, sizeof p };
	if (rtshim_req_about_pthread(r))
		p.sched_priority = rtshim_req_prio(r);
	else if (r->param && process_vm_readv(getpid(), &here, 1, &there, 1, 0) != (ssize_t)sizeof p) {
		rtshim_format(buf, size, "?");
		return;
	}
	rtshim_format(buf, size, "%d", p.sched_priority);
}

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

/* ---- the configured call ---------------------------------------------------------------- */

static __attribute__((noinline, cold)) void log_granted_directly(const struct rtshim_req *r,
								enum rtshim_flag_owner owner)
{
	rtshim_log(RTSHIM_LOG_INFO, "thread %d: %s/%d requested → granted directly%s",
		   (int)gettid(), rtshim_policy_name(r->policy), rtshim_req_prio(r),
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

/* The call as the decision core makes it first, and when the kernel grants it, the core's
 * decision for that, without the facts a refusal needs: 0, or the refusal (negative errno). */
static __attribute__((noinline)) int configured_call(const struct rtshim_req *r,
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
static int run_slow_path(void *arg)
{
	const struct refusal *s = arg;
	int err = rtshim_slow_path(s->r, s->direct, s->granted);
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

/* rtshim(7) rule 8's first half before the slow path: the calling thread asks for realtime, is not
 * realtime and carries no SCHED_RESET_ON_FORK (then the decision core, given a refusal held in
 * the memo, says EPERM without asking anyone: rtshim_refusal_holds).  Not at the info log
 * level, where the slow path runs to say it. */
static bool asks_for_itself(const struct rtshim_req *r, int direct)
{
	if (direct != -EPERM || !rtshim_req_has_policy(r) || !rtshim_is_rt(r->policy) ||
	    rtshim_log_enabled(RTSHIM_LOG_INFO) || !rtshim_req_about_caller(r))
		return false;
	int cur = rtshim_real_sched_getscheduler()(0);
	return cur >= 0 && !rtshim_is_rt(cur) && !(cur & SCHED_RESET_ON_FORK);
}

/* The memo holds rtkit's refusal of a thread of this process (budget.h), and of the nice level
 * that would be asked instead: two atomic loads. */
static bool refusal_held(void)
{
	int64_t own = 0, nice = 0;
	if (!rtshim_budget_check(RTSHIM_BUDGET_OWN, &own))
		return false;
	rtshim_budget_check(RTSHIM_BUDGET_NICE, &nice);
	return rtshim_refusal_holds(rtshim_cfg(), own, nice);
}

int rtshim_request_refused(const struct rtshim_req *r, int direct)
{
	pid_t granted = 0;
	struct refusal s = { .r = r, .tr = &untraced, .direct = direct, .granted = &granted };
	int err;
	if (!asks_for_itself(r, direct)) {
		err = rtshim_own_stack_run(run_slow_path, &s);
	} else if (refusal_held()) {
		return EPERM;
	} else {
		/* The gate (budget.h) taken here, on the program's stack, before the slow path maps
		 * a stack of its own: threads that ask at once wait for the one at work in a futex
		 * word, and when its answer is a refusal, hear it from the memo without a stack
		 * mapped each (2000 threads: 2000 x 260 KiB of address space at once) or a round
		 * trip of their own.  The program's signals are held as on the shim's stack, so
		 * that no handler runs (or jumps out) while this thread holds the gate. */
		sigset_t mask;
		rtshim_own_stack_block_signals(&mask);
		int timeout = rtshim_cfg()->timeout_ms;
		int g = rtshim_budget_begin(RTSHIM_BUDGET_OWN, timeout);
		if (g != 0 && g != -ETIMEDOUT && !refusal_held())
			/* realtime refused, the nice level not yet heard: the gate's holder may be
			 * asking it now, and this thread's own is asked behind the gate */
			g = rtshim_budget_begin(RTSHIM_BUDGET_NICE, timeout);
		if (g != 0 && refusal_held()) {
			rtshim_own_stack_restore_signals(&mask);
			return EPERM;
		}
		/* the slow path's own begin is a nested one; without the gate (another request's
		 * work outlasted the timeout) it decides with what it finds */
		err = rtshim_own_stack_run(run_slow_path, &s);
		if (g == 0)
			rtshim_budget_end();
		rtshim_own_stack_restore_signals(&mask);
	}
	tell_guard(granted);
	return err;
}

/* The configured privileged path, then the slow path on the shim's own stack unless already
 * there (traced). */
static int configured_request(const struct rtshim_req *r, const struct rtshim_trace *tr,
			      bool on_own_stack, pid_t *granted)
{
	int direct = configured_call(r, tr);
	if (direct == 0)
		return 0;
	struct refusal s = { .r = r, .tr = tr, .direct = direct, .granted = granted };
	return on_own_stack ? run_slow_path(&s) : rtshim_own_stack_run(run_slow_path, &s);
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
	return configured_request(t->r, &tr, true, t->granted);
}

int rtshim_request_configured(const struct rtshim_req *r)
{
	pid_t granted = 0;
	int err;
	/* The first requests of a process come here before anything loaded the configuration
	 * (rtshim_cfg_plain says so only once it is loaded): a plain one takes the plain path,
	 * gate and memo included, or a herd of threads asking at once would each map a stack. */
	rtshim_cfg();
	if (rtshim_cfg_plain())
		return rtshim_request(r);
	/* pthread_create's promotion runs in the new thread: traced by the pthread_create hook */
	if (!r->creating && rtshim_trace_wanted()) {
		struct rtshim_stack st;
		rtshim_trace_take_stack(&st); /* here: the program's frames are on this stack */
		struct traced_request t = { .r = r, .stack = &st, .granted = &granted };
		err = rtshim_own_stack_run(traced, &t);
	} else {
		err = configured_request(r, &untraced, false, &granted);
	}
	tell_guard(granted);
	return err;
}
