/* carry-out.h — the decide-and-do loop: the decision core's steps (decide.h) carried out one
 * after the other through a table of operations.  Two tables run it: the shim's
 * (shim/slow-path.c, on a refused interposed call) and rtrun's (wrapper/realtime.c: -p, --pid,
 * --check); a unit test passes fakes (tests/unit/test-request.c).  The loop itself makes no
 * system call: every effect is an operation. */
#ifndef RTSHIM_CARRY_OUT_H
#define RTSHIM_CARRY_OUT_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "decide.h"
#include "rtkit-limits.h"

/* One scheduling request, as the program made it. */
enum rtshim_req_kind {
	RTSHIM_REQ_SCHED_SETSCHEDULER,
	RTSHIM_REQ_SCHED_SETPARAM,
	RTSHIM_REQ_PTHREAD_SETSCHEDPARAM,
	RTSHIM_REQ_PTHREAD_SETSCHEDPRIO,
};

struct rtshim_req {
	enum rtshim_req_kind kind;
	pid_t pid;                       /* sched_* */
	pthread_t thread;                /* pthread_* */
	int policy;                      /* sched_setscheduler, pthread_setschedparam */
	const struct sched_param *param; /* as the program passed it (or the prio, wrapped) */
	bool creating;                   /* from pthread_create (wording of the logs) */
	bool inherited;                  /* RTSHIM_INHERIT: the priority is the creator's, rtkit's */
};

static inline bool rtshim_req_has_policy(const struct rtshim_req *r)
{
	return r->kind == RTSHIM_REQ_SCHED_SETSCHEDULER || r->kind == RTSHIM_REQ_PTHREAD_SETSCHEDPARAM;
}

static inline bool rtshim_req_about_pthread(const struct rtshim_req *r)
{
	return r->kind == RTSHIM_REQ_PTHREAD_SETSCHEDPARAM || r->kind == RTSHIM_REQ_PTHREAD_SETSCHEDPRIO;
}

/* The priority asked, once the real call has read the parameter (a NULL or unmapped param is
 * the kernel's EINVAL or EFAULT to give, not a crash of ours). */
static inline int rtshim_req_prio(const struct rtshim_req *r)
{
	return r->param ? r->param->sched_priority : 0;
}

/* The thread a refused request is about. */
struct rtshim_thread;
struct rtshim_request_target {
	enum rtshim_target where;
	pid_t tid;
	pid_t pid;                   /* its process for rtkit and prlimit: 0 = this one */
	bool guard_possible;         /* the runaway guard can protect it (decide.h) */
	struct rtshim_thread *self;  /* the shim's, where == SELF: the caller's record */
};

/* What RTSHIM_NICE_FALLBACK's nice level came to. */
enum rtshim_nice_outcome {
	RTSHIM_NICE_GOT,       /* set, or the thread is that nice already */
	RTSHIM_NICE_NOT_ASKED, /* the fallback is off, or the thread is realtime (rtkit would
				* demote it) */
	RTSHIM_NICE_NOT_GOT,   /* rtkit refused or could not be asked (logged) */
};

/* rtkit's budgets, the memo of refusals and the gate (shim/budget.h). */
struct rtshim_budget_ops {
	void (*facts)(struct rtshim_facts *f);
	int (*begin)(int kind, int timeout_ms);
	void (*record)(int kind, int err);
	void (*end)(void);
	void (*rt_thread_gone)(void);
	void (*raise_granted)(pid_t tid, int prio);
};

/* The effects of the loop.  Errors are 0 or a negative errno. */
struct rtshim_request_ops {
	/* the program's call with `policy` in place of its own */
	int (*real_call)(const struct rtshim_req *r, int policy);
	/* the kernel's policy (flags included) and priority of a thread */
	int (*read_sched)(pid_t tid, int *policy, int *prio);
	/* the shim, not the program, put the target's SCHED_RESET_ON_FORK there */
	bool (*flag_added)(const struct rtshim_req *r, const struct rtshim_request_target *t);
	/* the calling process runs under a seccomp filter (os/seccomp.h) */
	bool (*sandboxed)(void);
	/* a request about a thread of process `pid` (another one) is a person's */
	bool (*other_explicit)(pid_t pid);
	/* the daemon client: rtkit's limits (-ELIBACC: no client), its grant */
	int (*get_limits)(int timeout_ms, struct rtkit_limits *lim);
	int (*make_realtime)(pid_t pid, pid_t tid, int prio);
	/* RLIMIT_RTTIME of process `pid` (0: this one) */
	int (*get_rttime)(pid_t pid, rlim_t *soft, rlim_t *hard);
	int (*set_rttime)(pid_t pid, rlim_t soft, rlim_t hard);
	/* the runaway guard at soft limit `soft` (shim/runaway.h) */
	int (*arm_guard)(rlim_t soft);
	/* rtkit's answer (0, -errno) to the request arm_guard armed for: a refusal undoes the guard
	 * where no grant needs it (shim/runaway.h); NULL: nothing to undo */
	void (*guard_answered)(int err);
	/* sched_setscheduler(tid, policy, prio): a lowering within the grant */
	int (*lower)(pid_t tid, int policy, int prio);
	/* no realtime: RTSHIM_NICE_FALLBACK's nice level from rtkit instead */
	enum rtshim_nice_outcome (*nice_instead)(const struct rtkit_limits *lim, pid_t pid, pid_t tid);
	/* NULL: no budget (rtrun asks once and keeps no memo) */
	const struct rtshim_budget_ops *budget;
	/* the target's record after a success (the shim's: shim/request-record.c); NULL: none */
	void (*record)(const struct rtshim_request_ops *ops, const struct rtshim_req *r,
		       const struct rtshim_request_target *t, const struct rtshim_decision *d);

	/* The shim's slow path around the loop (shim/slow-path.c), and its record: which thread the
	 * request is about; the caller's request in flight (begin) and over (readers wait for it);
	 * set and clear RTSHIM_TF_* flags of the target's record (shim/registry.h). */
	void (*find_target)(const struct rtshim_req *r, struct rtshim_request_target *t);
	void (*in_flight)(struct rtshim_thread *self, bool begin);
	void (*update_flags)(const struct rtshim_req *r, const struct rtshim_request_target *t,
			     int set, int clear);
	/* the order of this process's realtime threads (shim/order.h): how many distinct
	 * priorities above `prio` the others asked and hold; after a success, lower those that
	 * sit at or above a higher one.  NULL: none (rtrun) */
	int (*prios_above)(pid_t tid, int prio);
	void (*keep_order)(int max_prio);
	/* the shim served thread `tid`'s request for `policy` at `prio`, for rtrun --status
	 * (shim/asked.h); NULL: none */
	void (*record_asked)(pid_t tid, int policy, int prio);
};

/* What the loop came to. */
struct rtshim_outcome {
	struct rtshim_facts f;
	struct rtshim_decision d; /* the final one: DONE or ASK_NICE */
	bool client_asked;        /* the daemon client was asked (its words for the errors) */
	bool nice_got;            /* no realtime, but a nice level from rtkit instead */
};

/* The request `r`, whose direct call (decide.h's first step, made by the caller with
 * rtshim_direct()'s policy) returned `direct`, carried on under `cfg` about target `t` (read
 * only when direct is -EPERM).  Returns the program's errno, 0 or positive (out->d). */
int rtshim_carry_out(const struct rtshim_request_ops *ops, const struct rtshim_config *cfg,
		     const struct rtshim_req *r, int direct, const struct rtshim_request_target *t,
		     struct rtshim_outcome *out);

#endif
