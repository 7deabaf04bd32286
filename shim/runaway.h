/* runaway.h — the runaway guard: instead of letting the kernel SIGKILL the whole process when a
 * realtime thread runs RLIMIT_RTTIME without blocking, keep the soft limit below the hard one
 * (RTSHIM_RUNAWAY_SOFT_PERCENT) and demote the overrunning thread to SCHED_OTHER in a SIGXCPU
 * handler.  The handler is async-signal-safe: system calls, atomics and write(2) only. */
#ifndef RTSHIM_RUNAWAY_H
#define RTSHIM_RUNAWAY_H

#include <signal.h>
#include <stdbool.h>
#include <sys/resource.h>

#include "rttime.h" /* rtshim_runaway_soft */

/* Install the SIGXCPU handler if it is not in place: whatever the program had (its own
 * handler, SIG_IGN, SIG_DFL) is remembered and honoured (chained, see runaway.c), and `soft`
 * becomes the soft limit the handler restores after the kernel raised it.  0 when the handler is
 * in place, -errno otherwise (then the caller must not lower the soft limit). */
int rtshim_runaway_arm(rlim_t soft);

/* A request succeeded: if it armed the guard and the calling thread blocks SIGXCPU (the sigwait
 * design: no thread of the program will take it), start this process's guard thread unless it
 * runs.  One load when the guard is not armed.  Not from a thread whose creator waits for it (the
 * creator may hold the dynamic loader's lock): from the creator, whose mask the thread inherited. */
void rtshim_runaway_granted(void);

/* The program started realtime and the guard is armed: start the guard thread (its mask to come
 * is unknown). */
void rtshim_runaway_adopted(void);

/* Has a grant armed the guard in this process (the handler is in place)? */
bool rtshim_runaway_armed(void);

/* sigaction(SIGXCPU, act, oldact) for the program: once armed, `act` becomes the disposition the
 * guard chains (the guard's handler stays, with act's mask and flags) and `oldact` is the
 * program's own, exactly as without the shim; before, the real call.  -1 with errno or 0.
 * Async-signal-safe as sigaction is: every signal is blocked while it holds its lock. */
int rtshim_runaway_sigaction(const struct sigaction *act, struct sigaction *oldact);

/* The next sigaction after the shim's (libc's), resolved once. */
typedef int sigaction_fn(int, const struct sigaction *, struct sigaction *);
sigaction_fn *rtshim_runaway_real_sigaction(void);

/* The shim's constructor: a program that starts with its main thread realtime and a finite hard
 * RLIMIT_RTTIME (rtrun -p, exec from a realtime thread) arms the guard and lowers the soft limit,
 * as a grant would (RTSHIM_RUNAWAY=demote).  Resolves the real signal functions first (the
 * guard arms from threads a loader-lock holder may wait for); then one system call when the
 * thread is not realtime.
 * Defined in hooks-signal.c (it reads the configuration). */
void rtshim_runaway_adopt(void);

/* fork: arm_lock is taken around fork, so a child never inherits it held by a thread that does
 * not exist there (hooks-common.c's atfork handlers). */
void rtshim_runaway_atfork_prepare(void);
void rtshim_runaway_atfork_release(void);

#endif
