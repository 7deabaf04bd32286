/* runaway.h — the runaway guard: instead of letting the kernel SIGKILL the whole process when a
 * realtime thread runs RLIMIT_RTTIME without blocking, keep the soft limit below the hard one
 * (RTSHIM_RUNAWAY_SOFT_PERCENT) and demote the overrunning thread to SCHED_OTHER in a SIGXCPU
 * handler.  The handler is async-signal-safe: system calls, atomics and write(2) only. */
#ifndef RTSHIM_RUNAWAY_H
#define RTSHIM_RUNAWAY_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "real.h"   /* sigaction_fn, sigmask_fn */
#include "rttime.h" /* rtshim_runaway_soft */

/* Install the SIGXCPU handler if it is not in place: whatever the program had (its own
 * handler, SIG_IGN, SIG_DFL) is remembered and honoured (chained, see runaway.c), and `soft`
 * becomes the soft limit the handler restores after the kernel raised it.  0 when the handler is
 * in place, -errno otherwise (then the caller must not lower the soft limit). */
int rtshim_runaway_arm(rlim_t soft);

/* rtkit's answer to a request rtshim_runaway_arm armed for (0, -errno).  A grant, or a timeout
 * (rtkit may still grant), keeps the guard.  A refusal while no grant happened in the process and
 * no other request is under way undoes it exactly: the program's disposition back in the kernel,
 * its soft RLIMIT_RTTIME back (capped by the hard limit, which cannot be raised again), its
 * sigprocmask the real one.  What a refusal leaves is only what could not be avoided. */
void rtshim_runaway_answered(int err);

/* A request succeeded for thread `tid` of this process.  The caller's own thread: SIGXCPU is
 * unblocked for real in it (rtshim_runaway_take_signal).  Another thread that blocks SIGXCPU
 * (its mask is out of the shim's reach): the process's guard thread is started, lazily, unless
 * it runs.  One load when the guard is not armed. */
void rtshim_runaway_granted(pid_t tid);

/* The calling thread is realtime under the armed guard: if it blocks SIGXCPU, the kernel's mask
 * leaves it unblocked from now on and the program's wish is kept as its view (below). */
void rtshim_runaway_take_signal(void);

/* pthread_sigmask for the program (sigprocmask too: 0 or an errno value).  Once the guard is
 * armed, SIGXCPU is never blocked for real: the program's wish for it is kept per thread and
 * reported in *old, as without the shim.  Before, the real call.  Async-signal-safe. */
int rtshim_runaway_sigmask(int how, const sigset_t *set, sigset_t *old);
sigmask_fn *rtshim_runaway_real_sigmask(void);

/* pthread_create from a thread whose program blocks SIGXCPU: the new thread must inherit it
 * blocked for real (its view starts as the kernel's).  hold before, release after. */
bool rtshim_runaway_hold_for_create(void);
void rtshim_runaway_release_after_create(bool held);

/* prlimit64's own layout (struct rlimit has 32-bit fields on i386); RLIM64_INFINITY = ~0 */
struct rlim64 {
	uint64_t cur, max;
};
#ifndef RLIM64_INFINITY
#define RLIM64_INFINITY (~(uint64_t)0)
#endif

/* prlimit(0, RLIMIT_RTTIME, set, get) for the program: 0 or -errno, as the kernel answers.  Once
 * the guard is armed, the program reads back its own soft limit, and one it sets is kept (the
 * guard's handler demotes at the guard's share of the hard limit below it: a program that sets
 * soft = hard, as many daemons do at start, keeps the guard). */
int rtshim_runaway_rttime(const struct rlim64 *set, struct rlim64 *get);

/* exec: once the guard is armed, the kernel's soft RLIMIT_RTTIME goes back to the program's own
 * (what rtkit alone would leave), and, when the new image will not have the shim's guard
 * (`guard_follows` false: a clean environment, a static or set-user-ID program), the calling
 * thread, if realtime, is demoted first: without the guard a realtime thread that overruns is
 * killed, and without the shim it would not have been realtime.  If the exec fails, the soft
 * limit is the guard's again (exec_failed); the caller asks rtkit for the thread's realtime
 * again (undo->policy, undo->prio: what it had). */
struct rtshim_exec_undo {
	bool soft_restored, demoted;
	uint64_t guard_soft;
	int policy, prio;
};
void rtshim_runaway_before_exec(bool guard_follows, struct rtshim_exec_undo *undo);
void rtshim_runaway_exec_failed(const struct rtshim_exec_undo *undo);

/* Has a grant armed the guard in this process (the handler is in place)? */
bool rtshim_runaway_armed(void);
/* ... and is this not a vfork child in the process's memory?  Such a child's dispositions, mask
 * and limits are its own (the kernel copied them): its calls go straight to the kernel and leave
 * the parent's records alone. */
bool rtshim_runaway_guards_here(void);

/* sigaction(SIGXCPU, act, oldact) for the program: once armed, `act` becomes the disposition the
 * guard chains (the guard's handler stays, with act's mask and flags) and `oldact` is the
 * program's own, exactly as without the shim; before, the real call.  -1 with errno or 0.
 * Async-signal-safe as sigaction is: every signal is blocked while it holds its lock. */
int rtshim_runaway_sigaction(const struct sigaction *act, struct sigaction *oldact);

/* The next sigaction after the shim's (libc's), resolved once. */
sigaction_fn *rtshim_runaway_real_sigaction(void);

/* fork: arm_lock is taken around fork, so a child never inherits it held by a thread that does
 * not exist there (thread.c's atfork handlers). */
void rtshim_runaway_atfork_prepare(void);
void rtshim_runaway_atfork_release(void);

#endif
