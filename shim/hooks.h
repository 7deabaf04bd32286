/* hooks.h — shared by the hooks-*.c files only (the interposers and their decision core).
 * Nothing here is used by unit tests or rtrun. */
#ifndef RTSHIM_HOOKS_H
#define RTSHIM_HOOKS_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/types.h>

#include "config.h"
#include "registry.h"

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif

#define RTSHIM_EXPORT __attribute__((visibility("default")))

/* The real functions, resolved lazily with dlsym(RTLD_NEXT) (dlvsym where versions differ). */
typedef int sched_setscheduler_fn(pid_t, int, const struct sched_param *);
typedef int sched_setparam_fn(pid_t, const struct sched_param *);
typedef int sched_getscheduler_fn(pid_t);
typedef int pthread_setschedparam_fn(pthread_t, int, const struct sched_param *);
typedef int pthread_setschedprio_fn(pthread_t, int);
typedef int pthread_getschedparam_fn(pthread_t, int *, struct sched_param *);
typedef int pthread_create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

sched_setscheduler_fn *rtshim_real_sched_setscheduler(void);
sched_setparam_fn *rtshim_real_sched_setparam(void);
sched_getscheduler_fn *rtshim_real_sched_getscheduler(void);
pthread_setschedparam_fn *rtshim_real_pthread_setschedparam(void);
pthread_setschedprio_fn *rtshim_real_pthread_setschedprio(void);
pthread_getschedparam_fn *rtshim_real_pthread_getschedparam(void);
pthread_create_fn *rtshim_real_pthread_create(void);
/* hooks-nice.c: resolve its real functions (setpriority, nice) now. */
void rtshim_resolve_nice(void);
/* Resolve and load, in the creating thread, all that a new thread's promotion needs. */
void rtshim_prepare_for_new_thread(int prio);

/* Enter the shim's logic: false when the process is in secure-execution mode or this thread is
 * already inside the shim (then: call the real function and nothing else). */
bool rtshim_enter(void);
void rtshim_leave(void);

/* Configuration, loaded from the environment on first use. */
const struct rtshim_config *rtshim_cfg(void);

/* This thread's record (tid up to date, also in a forked child). */
struct rtshim_thread *rtshim_self(void);

/* Called by the pthread_create trampoline in the new thread: record it (and unrecord it when
 * it ends, however it ends). */
void rtshim_thread_started(void);
/* The trampoline gives up before the start routine: unrecord now. */
void rtshim_thread_abandoned(void);

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
	bool premapped;                  /* RTSHIM_INHERIT: the priority is already rtkit's */
};

/* Decide and carry out one request (the contract's rules).  0 or a positive errno: exactly the
 * unshimmed call's error when the shim could not do better. */
int rtshim_request(const struct rtshim_req *r);
/* The same without RTSHIM_TRACE/RTSHIM_ONLY (hooks-trace.c wraps it as rtshim_request). */
int rtshim_request_core(const struct rtshim_req *r);

/* hooks-nice.c — RTSHIM_NICE_FALLBACK: realtime could not be had for thread `tid` of process
 * `pid` (0: this one); ask rtkit for MinNiceLevel instead.  0 done or already there, 1 not
 * asked (off, or an RT thread), or rtkit's negative errno.  Logs what it did. */
struct rtshim_client_v1;
struct rtkit_limits;
int rtshim_nice_fallback(const struct rtshim_client_v1 *client, const struct rtkit_limits *lim,
			 pid_t pid, pid_t tid);

/* Readers: should SCHED_RESET_ON_FORK be hidden for this thread of ours (the shim added it)? */
bool rtshim_shim_flag_by_pid(pid_t pid);

#endif
