/* hooks-pthread.c — the pthread_* interposers.  pthread_create hands a thread that asks for
 * nothing straight to glibc; a start trampoline promotes a thread created with an explicit RT
 * attribute (or, under RTSHIM_INHERIT, by a realtime thread) before its start routine runs. */
#include <errno.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hooks.h"
#include "log.h"
#include "runaway.h"
#include "trace.h"
#include "raw-syscall.h"

RTSHIM_EXPORT int pthread_setschedparam(pthread_t thread, int policy, const struct sched_param *param)
{
	struct rtshim_hook h;
	if (!rtshim_hook_enter(&h))
		return rtshim_real_pthread_setschedparam()(thread, policy, param);
	struct rtshim_req r = {
		.kind = RTSHIM_REQ_PTHREAD_SETSCHEDPARAM, .thread = thread, .policy = policy, .param = param,
	};
	int err = rtshim_request(&r);
	rtshim_hook_leave(&h, 0);
	return err;
}

RTSHIM_EXPORT int pthread_setschedprio(pthread_t thread, int prio)
{
	struct rtshim_hook h;
	if (!rtshim_hook_enter(&h))
		return rtshim_real_pthread_setschedprio()(thread, prio);
	struct sched_param p = { .sched_priority = prio };
	struct rtshim_req r = { .kind = RTSHIM_REQ_PTHREAD_SETSCHEDPRIO, .thread = thread, .param = &p };
	int err = rtshim_request(&r);
	rtshim_hook_leave(&h, 0);
	return err;
}

/* The kernel's view of a thread of ours (glibc's cache does not know what rtkit did), as the
 * readers report it (rtshim_policy_reported).  false: not ours. */
static bool kernel_view(pthread_t thread, int *policy, struct sched_param *param)
{
	pid_t tid;
	int flags;
	if (pthread_equal(thread, pthread_self())) {
		tid = 0; /* the caller */
		flags = rtshim_self_flags();
	} else {
		/* its own RT request in flight (rtkit): answer with the outcome, not the moment before */
		rtshim_registry_wait_settled(true, thread, 0, rtshim_cfg()->timeout_ms);
		if (rtshim_registry_by_handle(thread, &tid, &flags) < 0)
			return false;
	}
	struct sched_param p;
	int k = rtshim_real_sched_getscheduler()(tid);
	if (k < 0 || rtshim_real_sched_getparam()(tid, &p) < 0)
		return false;
	*policy = rtshim_policy_reported(k, flags);
	p.sched_priority = rtshim_prio_reported(k, p.sched_priority, flags);
	*param = p;
	return true;
}

RTSHIM_EXPORT int pthread_getschedparam(pthread_t thread, int *policy, struct sched_param *param)
{
	struct rtshim_hook h;
	int err = rtshim_real_pthread_getschedparam()(thread, policy, param);
	if (err || !rtshim_hook_enter(&h))
		return err;
	kernel_view(thread, policy, param);
	rtshim_hook_leave(&h, 0);
	return 0;
}

/* The attribute glibc reports holds its cached policy, which knows nothing of rtkit and, once
 * read back from the kernel, carries the shim's SCHED_RESET_ON_FORK: a program that copies it
 * into a new attribute would get EINVAL.  Report the kernel's view as the readers do. */
/* Sanitizer runtimes call it from a new thread, about that thread, before their own state for
 * it exists: on that path nothing here may be instrumented. */
RTSHIM_EXPORT __attribute__((no_sanitize("address", "thread"))) int pthread_getattr_np(pthread_t thread,
									    pthread_attr_t *attr)
{
	int err = rtshim_real_pthread_getattr_np()(thread, attr), cached;
	if (err || pthread_attr_getschedpolicy(attr, &cached))
		return err;
	/* the caller's own attribute is stale only if the shim changed its scheduling (rtkit's
	 * grant, the flag), or it carries the flag read back from the kernel */
	if (pthread_equal(thread, pthread_self()) && !(cached & SCHED_RESET_ON_FORK) &&
	    !rtshim_self_maybe_changed_uninstrumented())
		return 0;
	struct rtshim_hook h;
	if (!rtshim_hook_enter(&h))
		return 0;
	int policy;
	struct sched_param p;
	if (kernel_view(thread, &policy, &p) && !(policy & SCHED_RESET_ON_FORK) &&
	    pthread_attr_setschedpolicy(attr, policy) == 0)
		pthread_attr_setschedparam(attr, &p);
	rtshim_hook_leave(&h, 0);
	return 0;
}

/* ---- pthread_create ------------------------------------------------------------------------ */

struct rt_create {
	int policy, prio;
	bool inherited; /* prio is the creating thread's, in rtkit's range already */
	int asked;      /* ... and what its readers report beyond the kernel's (RTSHIM_TF_*) */
	int done;   /* futex word: 0 until the new thread knows */
	int result; /* 0 or errno */
	int ran;    /* the start routine is running */
};

struct tramp {
	void *(*start)(void *);
	void *arg;
	struct rt_create *rt; /* NULL: RTSHIM_INHERIT, the tramp is heap memory the thread frees */
	int inherit_policy;   /* RTSHIM_INHERIT: the creator's RT policy and priority; 0 = none */
	int inherit_prio;
	int inherit_asked;    /* ... and what its readers report beyond the kernel's (RTSHIM_TF_*) */
};

/* RTSHIM_INHERIT: a thread created with inherited scheduling by a thread rtkit made realtime
 * would have inherited RT under RLIMIT_RTPRIO; rtkit's SCHED_RESET_ON_FORK starts it
 * SCHED_OTHER.  Promote it to the creator's policy and priority before its start routine (the
 * creator does not wait).  A refusal (rtkit's thread limit: EBUSY) leaves it SCHED_OTHER, and
 * the shim's backoff keeps the next ones from spending rtkit's budget for a while. */
static void promote_inherited(int policy, int prio, int asked)
{
	struct sched_param p = { .sched_priority = prio };
	struct rtshim_req r = {
		.kind = RTSHIM_REQ_PTHREAD_SETSCHEDPARAM, .thread = pthread_self(), .policy = policy,
		.param = &p, .creating = true, .inherited = true,
	};
	struct rtshim_hook h;
	if (!rtshim_hook_enter(&h))
		return;
	int err = rtshim_request(&r);
	/* the thread reads as its creator does: SCHED_FIFO, 99 where the creator asked them */
	if (!err && asked)
		rtshim_thread_update(rtshim_self(), asked, 0);
	rtshim_hook_leave(&h, 0);
	if (err)
		rtshim_log_once(RTSHIM_LOG_WARN, err,
				"RTSHIM_INHERIT: a thread created by a realtime thread could not get realtime (%s); it runs SCHED_OTHER",
				rtshim_errno_name(err) ? rtshim_errno_name(err) : "?");
}

/* The creator's RT state when RTSHIM_INHERIT applies to a thread created with `attr` (rtshim(7)
 * rule 17: core/decide.c); the creator's scheduling is read only when the option is on.  Only a
 * creator the shim made realtime passes anything on, so that is looked at first: a program that
 * never asked creates its threads without the configuration being read (its files, its pages). */
static bool inherits_rt(const pthread_attr_t *attr, int *policy, int *prio, int *asked)
{
	int inherit = PTHREAD_INHERIT_SCHED;
	int flags = rtshim_self_flags();
	if (!(flags & RTSHIM_TF_GRANTED) || !rtshim_cfg()->inherit)
		return false;
	if (attr && pthread_attr_getinheritsched(attr, &inherit))
		return false;
	*asked = flags & RTSHIM_TF_READ_AS_ASKED;
	struct sched_param sp = { .sched_priority = 0 };
	int pol = rtshim_real_sched_getscheduler()(0);
	if (pol < 0 || rtshim_real_sched_getparam()(0, &sp) < 0)
		return false;
	return rtshim_creation_inherits(rtshim_cfg(), inherit == PTHREAD_INHERIT_SCHED, true, pol,
					sp.sched_priority, policy, prio);
}

static void futex_wait_nonzero(int *word)
{
	while (!__atomic_load_n(word, __ATOMIC_ACQUIRE))
		rtshim_raw_syscall(SYS_futex, word, (long)FUTEX_WAIT_PRIVATE, 0L, NULL, NULL, 0L);
}

static void futex_set_and_wake(int *word)
{
	__atomic_store_n(word, 1, __ATOMIC_RELEASE);
	/* the waiter may already have returned: FUTEX_WAKE on a stale address only causes a
	 * spurious wake-up somewhere, which every futex user tolerates */
	rtshim_raw_syscall(SYS_futex, word, (long)FUTEX_WAKE_PRIVATE, 1L, NULL, NULL, 0L);
}

/* In the new thread, before its start routine: ask for what the attribute asked. */
static int promote_new_thread(int policy, int prio, bool inherited, int asked, int *result)
{
	struct sched_param p = { .sched_priority = prio };
	struct rtshim_req r = {
		.kind = RTSHIM_REQ_PTHREAD_SETSCHEDPARAM, .thread = pthread_self(), .policy = policy,
		.param = &p, .creating = true, .inherited = inherited,
	};
	struct rtshim_hook h;
	int err = 0;
	if (rtshim_hook_enter(&h)) {
		err = rtshim_request(&r);
		/* the thread reads as its creator does (DESIGN.md rule 6) */
		if (!err && asked)
			rtshim_thread_update(rtshim_self(), asked, 0);
		rtshim_hook_leave(&h, 0);
	}
	*result = err;
	if (!err)
		return 1;
	if (rtshim_creation_runs(rtshim_cfg(), err)) { /* rtshim(7) rule 16 */
		rtshim_log_once(RTSHIM_LOG_WARN, 0,
				"pthread_create: a %s/%d thread could not get realtime; it runs SCHED_OTHER (RTSHIM_STRICT=1 makes pthread_create fail instead)",
				rtshim_policy_name(policy), prio);
		return 1;
	}
	return 0;
}

static void *trampoline(void *p)
{
	struct tramp *t = p;
	void *(*start)(void *) = t->start;
	void *arg = t->arg;
	struct rt_create *rc = t->rt;
	int ipol = t->inherit_policy, iprio = t->inherit_prio, iasked = t->inherit_asked;
	if (!rc)
		free(t);
	if (ipol)
		promote_inherited(ipol, iprio, iasked);
	if (rc) {
		int result;
		int run = promote_new_thread(rc->policy, rc->prio, rc->inherited, rc->asked, &result);
		rc->result = result;
		rc->ran = run;
		futex_set_and_wake(&rc->done); /* rc and t are gone after this */
		if (!run) {
			rtshim_thread_abandoned();
			return NULL;
		}
	}
	return start(arg);
}

/* RTSHIM_INHERIT and a realtime creator: promote the new thread in its trampoline (heap memory:
 * the creator does not wait). */
static int create_inheriting(pthread_create_fn *real, pthread_t *thread, const pthread_attr_t *attr,
			     void *(*start)(void *), void *arg, int policy, int prio, int asked)
{
	struct tramp *t = malloc(sizeof *t);
	if (!t)
		return real(thread, attr, start, arg); /* not promoted, as without RTSHIM_INHERIT */
	*t = (struct tramp){ .start = start, .arg = arg, .inherit_policy = policy, .inherit_prio = prio,
			     .inherit_asked = asked };
	int r = real(thread, attr, trampoline, t);
	if (r)
		free(t);
	return r;
}

/* Explicit RT attribute: create the thread SCHED_OTHER from a copy of the attribute, promote it
 * in the trampoline, return when the outcome is known. */
static int create_rt(pthread_create_fn *real, pthread_t *thread, const pthread_attr_t *attr,
		     void *(*start)(void *), void *arg, int policy, int prio, bool inherited, int asked)
{
	/* glibc's pthread_attr_t is a value except for a pointer to its extension (CPU set, signal
	 * mask) that pthread_create only reads; the copy shares it and is never destroyed. */
	pthread_attr_t copy;
	memcpy(&copy, attr, sizeof copy);
	struct sched_param zero = { .sched_priority = 0 };
	if (pthread_attr_setschedpolicy(&copy, SCHED_OTHER) || pthread_attr_setschedparam(&copy, &zero))
		return real(thread, attr, start, arg);

	struct rt_create rc = { .policy = policy, .prio = prio, .inherited = inherited, .asked = asked };
	struct tramp t = { .start = start, .arg = arg, .rt = &rc, .inherit_policy = 0 };
	int r = real(thread, &copy, trampoline, &t);
	if (r)
		return r;
	pthread_t created = *thread;
	futex_wait_nonzero(&rc.done);
	if (rc.ran)
		return 0;
	int detach = PTHREAD_CREATE_JOINABLE;
	pthread_attr_getdetachstate(attr, &detach);
	/* libc's join: a sanitizer's pthread_create interceptor that called this one holds its
	 * thread table's lock until we return, and its pthread_join interceptor takes that lock
	 * (gcc 14's libasan: the program waited forever) */
	if (detach == PTHREAD_CREATE_JOINABLE)
		next_pthread_join()(created, NULL);
	return rc.result;
}

/* An explicit attribute that sets no realtime policy, and pthread_create said EPERM: glibc gave
 * the thread what it recorded for this (the creating) thread, realtime after rtkit's grant
 * (rtshim_creation_copies).  Without the shim the record would not say realtime and the thread
 * would start (ecasound's engine thread, libjack's client thread): create it as an explicit-RT
 * attribute is, SCHED_OTHER, then promoted to what this thread has. */
static int create_as_creator(pthread_create_fn *real, pthread_t *thread, const pthread_attr_t *attr,
			     void *(*start)(void *), void *arg)
{
	struct sched_param cur;
	int policy = rtshim_real_sched_getscheduler()(0), prio = 0;
	if (policy < 0 || rtshim_real_sched_getparam()(0, &cur) < 0)
		return EPERM;
	/* what this thread's readers report, its new thread's report too (DESIGN.md rule 6) */
	int asked = rtshim_self_flags() & RTSHIM_TF_READ_AS_ASKED;
	if (!rtshim_creation_copies(policy, cur.sched_priority, &policy, &prio)) {
		policy = SCHED_OTHER; /* the record is stale: the thread starts as it would without */
		asked = 0;
	}
	rtshim_log(RTSHIM_LOG_DEBUG, "pthread_create: glibc's record of the creating thread is realtime; the new thread asks for %s/%d",
		   rtshim_policy_name(policy), prio);
	return create_rt(real, thread, attr, start, arg, policy, prio, true, asked);
}

RTSHIM_EXPORT int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
				 void *(*start)(void *), void *arg)
{
	pthread_create_fn *real = rtshim_real_pthread_create();
	struct rtshim_hook h;
	int r;
	bool held = rtshim_runaway_hold_for_create(); /* the new thread inherits the program's mask */
	if (!rtshim_hook_enter(&h)) {
		r = real(thread, attr, start, arg);
		rtshim_runaway_release_after_create(held);
		return r;
	}
	int inherit = PTHREAD_INHERIT_SCHED, policy, asked;
	struct sched_param sp;
	if (attr && pthread_attr_getinheritsched(attr, &inherit) == 0 &&
	    pthread_attr_getschedpolicy(attr, &policy) == 0 &&
	    pthread_attr_getschedparam(attr, &sp) == 0 &&
	    rtshim_creation_promotes(inherit == PTHREAD_EXPLICIT_SCHED, policy, sp.sched_priority)) {
		/* RTSHIM_TRACE/RTSHIM_ONLY look at this (the creating) thread's stack */
		struct rtshim_trace tr = { .on = false, .pass = false };
		if (rtshim_trace_wanted() &&
		    rtshim_trace_left_alone(&tr, "pthread_create(EXPLICIT %s, %d)", rtshim_policy_name(policy),
				       sp.sched_priority))
			r = real(thread, attr, start, arg);
		else
			r = create_rt(real, thread, attr, start, arg, policy, sp.sched_priority, false, 0);
		rtshim_trace_end(&tr, r);
	} else if (inherits_rt(attr, &policy, &sp.sched_priority, &asked)) {
		r = create_inheriting(real, thread, attr, start, arg, policy, sp.sched_priority, asked);
	} else {
		r = real(thread, attr, start, arg); /* asks for nothing: nothing to do, nothing recorded */
		if (r == EPERM && inherit == PTHREAD_EXPLICIT_SCHED)
			r = create_as_creator(real, thread, attr, start, arg);
	}
	rtshim_hook_leave(&h, 0);
	rtshim_runaway_release_after_create(held);
	return r;
}
