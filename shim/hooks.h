/* hooks.h — shared by the hooks-*.c files only: the interposers (hooks-sched.c,
 * hooks-pthread.c, hooks-nice.c), the request path (hooks-request.c), the runtime they share
 * (hooks-runtime.c) and stack traces (hooks-trace.c).  Nothing here is used by unit tests or
 * rtrun. */
#ifndef RTSHIM_HOOKS_H
#define RTSHIM_HOOKS_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/types.h>

#include "config.h"
#include "decide.h"
#include "registry.h"

#define RTSHIM_EXPORT __attribute__((visibility("default")))

/* Not instrumented by a sanitizer: for interposers a sanitizer runtime calls while it starts,
 * before its own state exists (TSan's start-up calls getrlimit). */
#define RTSHIM_UNINSTRUMENTED __attribute__((no_sanitize("address", "thread")))

/* static type *next_NAME(void): the next definition of NAME (dlsym RTLD_NEXT), resolved once;
 * NULL if there is none.  Needs <dlfcn.h>. */
#define RTSHIM_DEFINE_NEXT(type, name)                                        \
	RTSHIM_UNINSTRUMENTED static type *next_##name(void)                  \
	{                                                                     \
		static type *ptr;                                             \
		type *f = __atomic_load_n(&ptr, __ATOMIC_ACQUIRE);            \
		if (!f) {                                                     \
			f = (type *)dlsym(RTLD_NEXT, #name);                  \
			__atomic_store_n(&ptr, f, __ATOMIC_RELEASE);          \
		}                                                             \
		return f;                                                     \
	}

/* The real functions, resolved lazily with dlsym(RTLD_NEXT) (dlvsym where versions differ). */
typedef int sched_setscheduler_fn(pid_t, int, const struct sched_param *);
typedef int sched_setparam_fn(pid_t, const struct sched_param *);
typedef int sched_getscheduler_fn(pid_t);
typedef int pthread_setschedparam_fn(pthread_t, int, const struct sched_param *);
typedef int pthread_setschedprio_fn(pthread_t, int);
typedef int pthread_getschedparam_fn(pthread_t, int *, struct sched_param *);
typedef int pthread_getattr_np_fn(pthread_t, pthread_attr_t *);
typedef int pthread_create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

sched_setscheduler_fn *rtshim_real_sched_setscheduler(void);
sched_setparam_fn *rtshim_real_sched_setparam(void);
sched_getscheduler_fn *rtshim_real_sched_getscheduler(void);
pthread_setschedparam_fn *rtshim_real_pthread_setschedparam(void);
pthread_setschedprio_fn *rtshim_real_pthread_setschedprio(void);
pthread_getschedparam_fn *rtshim_real_pthread_getschedparam(void);
pthread_getattr_np_fn *rtshim_real_pthread_getattr_np(void);
pthread_create_fn *rtshim_real_pthread_create(void);
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
/* syscall(SYS_rt_sigprocmask, how, set, old, sigsetsize) (hooks-signal.c) */
long rtshim_syscall_sigmask(long number, long how, long set, long old, long size);
/* syscall(SYS_prlimit64, pid, resource, new, old) (hooks-rlimit.c) */
long rtshim_syscall_prlimit(long number, long pid, long resource, long set, long get);
void rtshim_resolve_syscall(void);
/* Resolve and load, in the creating thread, all that a new thread's promotion needs. */
void rtshim_prepare_for_new_thread(int prio);

/* Enter the shim's logic: false when the process is in secure-execution mode or this thread is
 * already inside the shim (then: call the real function and nothing else). */
bool rtshim_enter(void);
void rtshim_leave(void);

/* Configuration, loaded from the environment on first use. */
const struct rtshim_config *rtshim_cfg(void);

/* This thread's record (tid up to date, also in a forked child), linked into the registry: a
 * request about this thread is going beyond the privileged path.  A thread gets its record the
 * first time it needs one, never when it is created. */
struct rtshim_thread *rtshim_self(void);

/* This thread's RTSHIM_TF_* flags (what the shim, or another thread through it, changed). */
int rtshim_self_flags(void);

/* The trampoline gives up before the start routine: unrecord now. */
void rtshim_thread_abandoned(void);

/* Might the shim have changed this thread's scheduling (RTSHIM_TF_GRANTED or
 * RTSHIM_TF_FLAG_ADDED)?  No lock, nothing a sanitizer instruments (pthread_getattr_np). */
bool rtshim_self_maybe_changed_uninstrumented(void);

/* This thread's record as last known (no gettid(): fork() renews it in the child), not
 * necessarily linked: for rtshim_thread_update. */
struct rtshim_thread *rtshim_self_cheap(void);

/* No RTSHIM_TF_* flag of `clear` on this thread, in its record or in one it would take over:
 * clearing them would change nothing (the privileged path then skips its record). */
bool rtshim_self_has_nothing_to_clear(int clear);

/* The configuration is loaded and asks nothing of a request the kernel grants: rule 1 as asked
 * (rtshim_direct_is_as_asked), no RTSHIM_TRACE or RTSHIM_ONLY, the log level below "info". */
bool rtshim_cfg_plain(void);

/* This thread's record, or that of a thread of ours by TID: set and clear RTSHIM_TF_* flags
 * (never in a vfork child, whose memory is its parent's).  This thread's record is linked
 * when a flag is set on it. */
void rtshim_thread_update(struct rtshim_thread *t, int set, int clear);
void rtshim_thread_update_tid(pid_t tid, int set, int clear);

/* Is this a vfork child, or a child cloned without the atfork handlers, running in memory that
 * belongs to another process?  Then the shim leaves every piece of its state alone. */
bool rtshim_borrowed_memory(void);

/* Readers: the RTSHIM_TF_* flags of this thread of ours (0: none, or not ours). */
int rtshim_flags_by_pid(pid_t pid);

/* Which thread a sched_* or setpriority request about `who` (0: the caller; a TID) is about, for
 * rtkit: SELF, another thread of ours (OWN), a thread of another process of this user (OTHER,
 * *pid = its process), or UNKNOWN.  *tid = who for OWN and OTHER. */
enum rtshim_target rtshim_target_of_tid(pid_t who, pid_t *tid, pid_t *pid);

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
