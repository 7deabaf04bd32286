/* decide.h — the decision core: what to do with one scheduling request, as a pure function.
 *
 * The shim (shim/slow-path.c), `rtrun -p`, `rtrun --pid` and `rtrun --check`
 * (wrapper/realtime.c) all run the same loop, core/carry-out.c:
 *
 *	facts = the request, the configuration
 *	for (;;) {
 *		d = rtshim_decide(&facts);
 *		carry d out, and write what happened into facts   (or return, for RTSHIM_DONE)
 *	}
 *
 * rtshim_decide() does no I/O and reads no globals: every rule of rtshim(7) is a row of
 * tests/unit/test-decide.c.  Facts that cost something (the target thread's state, rtkit's
 * limits, RLIMIT_RTTIME) are gathered only when a decision asks for them, so a privileged
 * caller pays for nothing but the direct call. */
#ifndef RTSHIM_DECIDE_H
#define RTSHIM_DECIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "config.h"
#include "rtkit-limits.h"

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif

/* Is `policy` (flags ignored) SCHED_FIFO or SCHED_RR? */
bool rtshim_is_rt(int policy);

/* Which thread a request is about, as far as rtkit is concerned. */
enum rtshim_target {
	RTSHIM_TARGET_UNKNOWN = 0, /* not ours, not the user's, or gone: the kernel's answer stands */
	RTSHIM_TARGET_SELF,        /* the calling thread */
	RTSHIM_TARGET_OWN,         /* another thread of this process */
	RTSHIM_TARGET_OTHER,       /* a thread of another process of this user (rtkit's WithPID) */
};

/* Whose request it is: budgets of rtkit's are spent per kind (shim/budget.h). */
enum rtshim_budget_kind {
	RTSHIM_BUDGET_OWN = 0, /* a thread of this process */
	RTSHIM_BUDGET_OTHER,   /* a thread of another process of the user (WithPID) */
	RTSHIM_BUDGET_NICE,    /* a nice level (MakeThreadHighPriority), any thread */
	RTSHIM_BUDGET_RAISE,   /* a higher priority for a thread that is realtime already */
	RTSHIM_BUDGET_KINDS,
};

/* A step that was carried out: not yet, or done with this result (0 or a negative errno). */
struct rtshim_step {
	bool done;
	int err;
};

struct rtshim_facts {
	/* The request, as the program made it. */
	bool has_policy; /* sched_setscheduler, pthread_setschedparam (else: a priority only) */
	int policy;      /* as asked, SCHED_RESET_ON_FORK included (has_policy) */
	int prio;        /* as asked */
	bool inherited;  /* RTSHIM_INHERIT: prio is the creator's, already in rtkit's range */
	const struct rtshim_config *cfg;

	struct rtshim_step direct; /* the call as decided first (RTSHIM_CALL) */

	/* The target, gathered once the direct call said EPERM. */
	enum rtshim_target target;
	int cur_policy, cur_prio; /* what the kernel says the thread has now (flags included) */
	bool shim_flag;           /* the shim, not the program, put SCHED_RESET_ON_FORK there */

	struct rtshim_step keeping_flag; /* RTSHIM_CALL_KEEPING_FLAG */

	/* The calling process runs under a seccomp filter (os/seccomp.h): no daemon is contacted. */
	bool sandboxed;
	/* TARGET_OTHER: a person asked for that thread (rtrun --pid; the command rtrun runs, about
	 * a process that is not its own descendant) */
	bool other_explicit;

	/* rtkit: its limits (RTSHIM_READ_LIMITS; -ELIBACC: the client cannot be loaded). */
	struct rtshim_step limits;
	struct rtkit_limits lim;

	struct rtshim_step lowered; /* RTSHIM_LOWER */

	/* How many distinct priorities above the one asked other realtime threads of this
	 * process asked and hold (rtshim(7) rule 5: their order is kept); gathered with the
	 * target. */
	int above;

	/* The memo of refusals (shim/budget.h), read with the target, before any work of the
	 * client's: how long each kind of request is still held back (0: not), the refusal
	 * remembered and how long ago rtkit said it; a raise of the same thread to the same
	 * priority that was just granted (the priority flaps) is held for raise_hold_ms. */
	int64_t held_ms[RTSHIM_BUDGET_KINDS];
	int held_err[RTSHIM_BUDGET_KINDS];
	int64_t held_ago_ms[RTSHIM_BUDGET_KINDS];
	pid_t raise_tid;
	int raise_prio;
	int64_t raise_hold_ms;

	/* RLIMIT_RTTIME of the target's process (gathered with the limits). */
	int rttime_err; /* 0, or the negative errno of reading it */
	rlim_t rttime_soft, rttime_hard;
	/* The runaway guard can protect the thread (a SIGXCPU handler in its process). */
	bool guard_possible;
	bool guard_failed; /* arming it failed: plan without it */

	pid_t tid;                   /* the target thread (for the raise memo) */
	struct rtshim_step rttime_set; /* RTSHIM_ASK_RTKIT's prlimit, when set_rttime */
	struct rtshim_step rtkit;    /* RTSHIM_ASK_RTKIT's request to rtkit */
};

enum rtshim_action {
	RTSHIM_CALL,               /* the real call with `policy` (the privileged path): the first
				    * step, and only while the facts hold no direct call */
	RTSHIM_CALL_KEEPING_FLAG,  /* the real call again, with `policy` (SCHED_RESET_ON_FORK kept) */
	RTSHIM_READ_LIMITS,        /* load the client, read rtkit's limits and RLIMIT_RTTIME */
	RTSHIM_LOWER,              /* sched_setscheduler(tid, policy, prio): lower within the grant */
	RTSHIM_ASK_RTKIT,          /* set RLIMIT_RTTIME if set_rttime (arm the guard first if
				    * arm_guard), then ask rtkit for `prio` */
	RTSHIM_ASK_NICE,           /* no realtime (`why`): ask rtkit for a nice level instead, then
				    * return EPERM all the same (the last step, like DONE) */
	RTSHIM_DONE,               /* return `program_errno`; `why` says why */
};

/* What the program gets, and why (for the log and for rtrun). */
enum rtshim_why {
	RTSHIM_WHY_DIRECT = 0,      /* the kernel's answer to the direct call, as it is */
	RTSHIM_WHY_KEPT_FLAG,       /* done with SCHED_RESET_ON_FORK kept */
	RTSHIM_WHY_ALREADY,         /* the thread is RT at that priority already: rtkit not asked */
	RTSHIM_WHY_LOWERED,         /* lowered within the grant, rtkit not asked */
	RTSHIM_WHY_GRANTED,         /* rtkit granted it */
	RTSHIM_WHY_NOT_OURS,        /* EPERM about a thread that is not ours or our user's */
	RTSHIM_WHY_NOT_RT,          /* EPERM on a request that does not ask for realtime */
	RTSHIM_WHY_NO_CLIENT,       /* the daemon client cannot be loaded */
	RTSHIM_WHY_NO_DAEMON,       /* rtkit cannot be reached (why_err) */
	RTSHIM_WHY_NO_PRIORITY,     /* rtkit allows no realtime priority (MaxRealtimePriority < 1) */
	RTSHIM_WHY_STRICT,          /* RTSHIM_STRICT: the priority would have to change */
	RTSHIM_WHY_NICE_ONLY,       /* RTSHIM_NICE_FALLBACK=always: realtime is never asked for */
	RTSHIM_WHY_HELD,            /* rtkit refused this kind a moment ago (why_err, ago_ms,
				     * wait_ms) */
	RTSHIM_WHY_FLAPPING,        /* the same raise was granted a moment ago (wait_ms) */
	RTSHIM_WHY_RTTIME_UNREADABLE, /* RLIMIT_RTTIME cannot be read (why_err) */
	RTSHIM_WHY_RTTIME_ZERO,     /* RLIMIT_RTTIME is 0: an RT thread would be killed at once */
	RTSHIM_WHY_RTTIME_UNSET,    /* RLIMIT_RTTIME cannot be set (why_err) */
	RTSHIM_WHY_REFUSED,         /* rtkit said no (why_err) */
	RTSHIM_WHY_SANDBOXED,       /* a seccomp filter is in force: no daemon contacted */
	RTSHIM_WHY_OTHER_PROCESS,   /* another process's thread, not asked for by a person */
};

/* Whose SCHED_RESET_ON_FORK a thread carries once a request succeeded, for its record: the
 * readers (sched_getscheduler, pthread_getschedparam) hide the shim's, show the program's.
 * UNTOUCHED is the one negative value (the privileged path tests its sign). */
enum rtshim_flag_owner {
	RTSHIM_FLAG_UNTOUCHED = -1, /* the request set no policy: the record stays as it is */
	RTSHIM_FLAG_PROGRAMS = 0,   /* the program's own flag, or none */
	RTSHIM_FLAG_SHIMS = 1,      /* the shim put it there (rtkit's grant, or kept for it) */
};

struct rtshim_decision {
	enum rtshim_action action;
	int policy;        /* CALL, CALL_KEEPING_FLAG, LOWER */
	int prio;          /* LOWER, ASK_RTKIT: the priority to set (rtkit's range) */
	bool prio_changed; /* ASK_RTKIT, DONE: differs from what was asked (clamped or mapped) */
	bool set_rttime;   /* ASK_RTKIT: RLIMIT_RTTIME becomes soft/hard */
	rlim_t soft, hard; /* ASK_RTKIT: RLIMIT_RTTIME in force for the grant */
	bool arm_guard;    /* ASK_RTKIT: the soft limit is the runaway guard's */
	int budget_kind;   /* READ_LIMITS, ASK_RTKIT */
	enum rtshim_flag_owner flag_owner; /* DONE(0): whose the thread's flag is */
	/* DONE: what the program gets, 0 or a positive errno (every other error in the core and
	 * the shim is a negative errno, as why_err) */
	int program_errno;
	enum rtshim_why why;
	int why_err;       /* negative errno behind `why`, or 0 */
	int64_t wait_ms;   /* HELD, FLAPPING: how long it still holds */
	int64_t ago_ms;    /* HELD: how long ago rtkit said no */
};

/* Facts for a new request; everything else zero (nothing gathered, nothing done). */
void rtshim_facts_init(struct rtshim_facts *f, const struct rtshim_config *cfg, bool has_policy,
		       int policy, int prio);

/* The next step for these facts.  Pure. */
struct rtshim_decision rtshim_decide(const struct rtshim_facts *f);

/* rtshim(7) rule 1 on its own, as rtshim_decide() applies it: the policy of the first call, and the
 * decision once that call succeeded.  The shim's privileged path uses them without building
 * the facts a refused request needs.  Pure. */
int rtshim_direct_policy(const struct rtshim_config *cfg, bool has_policy, int policy);
/* ... and that decision's flag_owner, given the policy sent */
enum rtshim_flag_owner rtshim_direct_flag_owner(bool has_policy, int policy, int sent);
struct rtshim_decision rtshim_direct_succeeded(const struct rtshim_config *cfg, bool has_policy,
					       int policy);

/* Both at once, for the shim's privileged path: inline, and the default configuration (no
 * RTSHIM_POLICY, no RTSHIM_RESET_ON_FORK: the request as it is) in two loads. */
struct rtshim_direct {
	int policy;                        /* rtshim_direct_policy() */
	enum rtshim_flag_owner flag_owner; /* rtshim_direct_flag_owner() of it */
};
static inline bool rtshim_direct_is_as_asked(const struct rtshim_config *cfg)
{
	return cfg->disabled || (cfg->policy == RTSHIM_POLICY_ASKED && !cfg->reset_on_fork);
}
static inline struct rtshim_direct rtshim_direct_as_asked(bool has_policy, int policy)
{
	return (struct rtshim_direct){ has_policy ? policy : 0,
				       has_policy ? RTSHIM_FLAG_PROGRAMS : RTSHIM_FLAG_UNTOUCHED };
}
static inline struct rtshim_direct rtshim_direct(const struct rtshim_config *cfg, bool has_policy,
						 int policy)
{
	if (rtshim_direct_is_as_asked(cfg))
		return rtshim_direct_as_asked(has_policy, policy);
	int sent = rtshim_direct_policy(cfg, has_policy, policy);
	return (struct rtshim_direct){ sent, rtshim_direct_flag_owner(has_policy, policy, sent) };
}

/* rtshim(7) rule 8, first half: a thread that is not realtime, whose kind of request rtkit refused
 * held_ms more, gets its EPERM before rtkit's limits are read when nothing else is left to ask
 * (the fallback's nice level off, or refused too: held_nice_ms).  Pure. */
bool rtshim_refusal_holds(const struct rtshim_config *cfg, int64_t held_ms, int64_t held_nice_ms);

/* rtshim(7) rule 8: the same raise (thread, priority) as the one granted a moment ago, still held
 * for hold_ms: the priority flaps.  Pure. */
bool rtshim_raise_flaps(pid_t held_tid, int held_prio, int64_t hold_ms, pid_t tid, int prio);

/* Nice levels (setpriority, nice) the kernel refused for a thread of ours or of our user:
 * rtshim(7) rules 11-14.  The facts are read before the decision, the backoff's included. */
struct rtshim_nice_facts {
	int want;           /* the level asked (setpriority's prio; nice(): now + increment) */
	int cur_policy;     /* the thread's policy now, flags included */
	int cur_nice;       /* its nice level now ... */
	int cur_err;        /* ... or the negative errno of reading it */
	int min_nice_level; /* rtkit's MinNiceLevel */
	int held_err;       /* the nice backoff: rtkit's refusal, while it holds; else 0 */
};
enum rtshim_nice_step {
	RTSHIM_NICE_ASK = 0,   /* ask rtkit for `send` */
	RTSHIM_NICE_SKIP_RT,   /* a realtime thread: MakeThreadHighPriority would demote it */
	RTSHIM_NICE_ALREADY,   /* nice enough already: done, rtkit not asked */
	RTSHIM_NICE_HELD,      /* rtkit refused a moment ago: `err`, not asked */
	RTSHIM_NICE_FAILED,    /* the thread's level cannot be read: `err` */
};
struct rtshim_nice_decision {
	enum rtshim_nice_step step;
	int send;     /* the level to ask rtkit for (ASK), or that was compared (ALREADY) */
	bool clamped; /* send is MinNiceLevel, not what was asked */
	int err;      /* HELD, FAILED: negative errno */
};
struct rtshim_nice_decision rtshim_decide_nice(const struct rtshim_nice_facts *f);

/* Thread creation, rtshim(7) rules 15-18.  rtshim(7) rule 15: pthread_create with
 * PTHREAD_EXPLICIT_SCHED and a realtime attribute is created SCHED_OTHER and promoted before its
 * start routine runs. */
bool rtshim_creation_promotes(bool explicit_sched, int attr_policy, int attr_prio);
/* rtshim(7) rule 16: whether the new thread runs after its promotion returned `err` (positive
 * errno): EPERM runs it SCHED_OTHER, unless RTSHIM_STRICT makes pthread_create fail instead. */
bool rtshim_creation_runs(const struct rtshim_config *cfg, int err);
/* rtshim(7) rule 17: RTSHIM_INHERIT: a thread created (inheriting its scheduling) by a thread that
 * rtkit made realtime and that still is (its SCHED_RESET_ON_FORK kept) asks for the creator's
 * policy and priority, already in rtkit's range. */
bool rtshim_creation_inherits(const struct rtshim_config *cfg, bool attr_inherits,
			      bool creator_granted, int creator_policy, int creator_prio,
			      int *policy, int *prio);

/* rtshim(7) rule 18: pthread_create with PTHREAD_EXPLICIT_SCHED and an attribute that sets no
 * realtime policy failed with EPERM: glibc gave the new thread the scheduling it recorded for the
 * creating thread, which says realtime after rtkit's grant (read back, or a change the shim made
 * keeping SCHED_RESET_ON_FORK), and an unprivileged user's thread may not start so.  Under
 * RLIMIT_RTPRIO it would have started with the creator's policy and priority: that is what the new
 * thread asks for, the creator's as the kernel has them now (so already in rtkit's range).  false:
 * the creator is not realtime now; the thread starts SCHED_OTHER. */
bool rtshim_creation_copies(int creator_policy, int creator_prio, int *policy, int *prio);

/* rtshim(7) rule 19: syscall(SYS_sched_setattr) that the kernel refused with `err` (positive
 * errno): true when it is the sched_setscheduler request *policy (flags included).  Pure. */
#define RTSHIM_ATTR_FLAG_RESET_ON_FORK 0x01 /* SCHED_FLAG_RESET_ON_FORK */
bool rtshim_attr_as_setscheduler(int err, uint32_t attr_policy, uint64_t attr_flags, int *policy);

/* rtshim(7) rule 20: syscall(SYS_sched_setattr) that the kernel refused with `err` (positive
 * errno), on a thread whose policy is `cur_policy` (flags included), not turned into
 * sched_setscheduler by rtshim(7) rule 19: true when it is retried with SCHED_FLAG_RESET_ON_FORK,
 * *flags (rtshim(7) rule 3 for sched_setattr: a drop, a nice level, a priority change).  Pure. */
#define RTSHIM_ATTR_FLAG_KEEP_POLICY 0x08 /* SCHED_FLAG_KEEP_POLICY */
bool rtshim_attr_keeps_flag(int err, uint64_t attr_flags, int cur_policy, uint64_t *flags);

/* One short phrase for `why` ("rtkit refused", "RLIMIT_RTTIME is 0", ...). */
const char *rtshim_why_text(enum rtshim_why why);

/* Why there is no realtime, in plain words, into buf: the one cause the decision knows applied
 * (rtkit's own errors through `strerror_of`, the client's table entry; may be NULL). */
const char *rtshim_why_format(char *buf, size_t size, const struct rtshim_decision *d,
			      const char *(*strerror_of)(int err));

#endif
