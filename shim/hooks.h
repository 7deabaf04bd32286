/* hooks.h — shared by the files that export interposers (hooks-*.c) and the constructor
 * (init.c): what each of them offers the others, and what they all use (the prologue: enter.h;
 * the next definitions: real.h; the configuration: settings.h; the thread records: thread.h;
 * the target of a request: target.h).  Nothing here is used by unit tests or rtrun. */
#ifndef RTSHIM_HOOKS_H
#define RTSHIM_HOOKS_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/types.h>

#include "config.h"
#include "decide.h"
#include "enter.h"
#include "real.h"
#include "registry.h"
#include "settings.h"
#include "target.h"
#include "thread.h"

#define RTSHIM_EXPORT __attribute__((visibility("default")))

/* hooks-nice.c: resolve its real functions (setpriority, nice) now. */
void rtshim_resolve_nice(void);
/* hooks-syscall.c: the exported syscall() (hooks-syscall-entry.S) hands sched_setscheduler,
 * sched_setparam and sched_setattr to rtshim_syscall_sched and everything else to
 * rtshim_syscall_next; resolve that now (until then the entry makes the system call itself). */
typedef long syscall_fn(long, ...);
extern syscall_fn *rtshim_syscall_next;
long rtshim_syscall_sched(long number, long pid, long a2, long a3);
/* syscall(SYS_rt_sigaction, sig, act, oact, sigsetsize) (hooks-signal.c) */
long rtshim_syscall_sigaction(long number, long sig, long act, long oact, long size);
/* syscall(SYS_prlimit64, pid, resource, new, old) (hooks-rlimit.c) */
long rtshim_syscall_prlimit(long number, long pid, long resource, long set, long get);
void rtshim_resolve_syscall(void);
/* hooks-signal.c, hooks-rlimit.c, hooks-exec.c: the guard's interposers' next definitions,
 * resolved from the constructor (the request path reads limits and arms the guard on threads a
 * loader-lock holder may wait for, and dlsym takes that lock). */
void rtshim_resolve_signal(void);
void rtshim_resolve_rlimit(void);
void rtshim_resolve_exec(void);
/* init.c: resolve and load, in the creating thread, all that a new thread's promotion needs. */
void rtshim_prepare_for_new_thread(int prio);

/* ---- hooks-request.c ---------------------------------------------------------------------- */

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

/* One request, decided by core/decide.c and carried out.  0 or a positive errno: exactly the
 * unshimmed call's error when the shim could not do better. */
int rtshim_request(const struct rtshim_req *r);

/* ---- hooks-nice.c ------------------------------------------------------------------------- */

/* RTSHIM_NICE_FALLBACK: realtime could not be had for thread `tid` of process `pid` (0: this
 * one); ask rtkit for MinNiceLevel instead.  0 done or already there, 1 not asked (an RT
 * thread), or rtkit's negative errno.  Logs at info what it did. */
struct rtshim_client_v1;
struct rtkit_limits;
int rtshim_nice_instead(const struct rtshim_client_v1 *client, const struct rtkit_limits *lim,
			pid_t pid, pid_t tid);

#endif
