/* request.h — one scheduling request (shim/request.c): what the interposers hand it, and the
 * operations its slow path carries a decision out with, so that a unit test can pass fakes
 * (tests/unit/test-request.c) and drive every path without root, rtkit or D-Bus. */
#ifndef RTSHIM_REQUEST_H
#define RTSHIM_REQUEST_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "decide.h"

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

/* One request, decided by core/decide.c and carried out (rtshim_request, privileged.h, is the
 * entry: the plain privileged path inline, then these).  0 or a positive errno: exactly the
 * unshimmed call's error when the shim could not do better. */
int rtshim_request_configured(const struct rtshim_req *r);
/* ... the plain privileged path's call made and not granted: its negative errno `direct` */
int rtshim_request_after_refusal(const struct rtshim_req *r, int direct);
/* ... the privileged path's grant, written in the thread's record (out of line part) */
void rtshim_record_direct_flags(const struct rtshim_req *r, enum rtshim_flag_owner owner);

/* What RTSHIM_NICE_FALLBACK's nice level came to (rtshim_nice_instead, shim/nice.c). */
enum rtshim_nice_outcome {
	RTSHIM_NICE_GOT,       /* set, or the thread is that nice already */
	RTSHIM_NICE_NOT_ASKED, /* the fallback is off, or the thread is realtime (rtkit would
				* demote it) */
	RTSHIM_NICE_NOT_GOT,   /* rtkit refused or could not be asked (logged) */
};

/* The thread a refused request is about. */
struct rtshim_thread;
struct rtshim_request_target {
	enum rtshim_target where;
	pid_t tid;
	pid_t pid;                   /* its process for rtkit and prlimit: 0 = this one */
	struct rtshim_thread *self;  /* where == SELF: the caller's record */
};

/* The effects of the slow path (the privileged path makes its one call directly).  Errors are
 * 0 or a negative errno. */
struct rtshim_client_v1;
struct rtshim_request_ops {
	/* the program's call with `policy` in place of its own */
	int (*real_call)(const struct rtshim_req *r, int policy);
	/* the kernel's policy (flags included) and priority of a thread */
	int (*read_sched)(pid_t tid, int *policy, int *prio);
	/* which thread the request is about; the RTSHIM_TF_* flags of its record; set and clear
	 * them; the caller's request in flight (begin) and over (readers wait for it) */
	void (*find_target)(const struct rtshim_req *r, struct rtshim_request_target *t);
	int (*thread_flags)(const struct rtshim_req *r, const struct rtshim_request_target *t);
	void (*update_flags)(const struct rtshim_req *r, const struct rtshim_request_target *t,
			     int set, int clear);
	void (*in_flight)(struct rtshim_thread *self, bool begin);
	/* the calling process runs under a seccomp filter (os/seccomp.h) */
	bool (*sandboxed)(void);
	/* a request about a thread of process `pid` (another one) is a person's (target.h) */
	bool (*other_explicit)(pid_t pid);
	/* the daemon client (its get_limits and make_realtime); NULL: none */
	const struct rtshim_client_v1 *(*client)(int timeout_ms);
	/* RLIMIT_RTTIME of process `pid` (0: this one) */
	int (*get_rttime)(pid_t pid, rlim_t *soft, rlim_t *hard);
	int (*set_rttime)(pid_t pid, rlim_t soft, rlim_t hard);
	/* the runaway guard at soft limit `soft` (shim/runaway.h) */
	int (*arm_guard)(rlim_t soft);
	/* sched_setscheduler(tid, policy, prio): a lowering within the grant */
	int (*lower)(pid_t tid, int policy, int prio);
	enum rtshim_nice_outcome (*nice_instead)(const struct rtshim_client_v1 *client,
						 const struct rtkit_limits *lim, pid_t pid, pid_t tid);
	/* rtkit's budgets, the memo of refusals and the gate (shim/budget.h) */
	void (*budget_facts)(struct rtshim_facts *f);
	int (*budget_begin)(int kind, int timeout_ms);
	void (*budget_record)(int kind, int err);
	void (*budget_end)(void);
	void (*budget_rt_thread_gone)(void);
	void (*budget_raise_granted)(pid_t tid, int prio);
	/* the shim served thread `tid`'s request for `policy` at `prio` (shim/asked.h); NULL: none */
	void (*record_asked)(pid_t tid, int policy, int prio);
};

/* The request `r` whose direct call returned `direct` (a negative errno), carried on with `ops`
 * under configuration `cfg`, on the calling stack: 0 or the program's positive errno.
 * *granted: the thread rtkit made realtime (else untouched).  rtshim_request() runs it with the
 * shim's own operations on the shim's own stack. */
int rtshim_request_refused(const struct rtshim_request_ops *ops, const struct rtshim_config *cfg,
			   const struct rtshim_req *r, int direct, pid_t *granted);

#endif
