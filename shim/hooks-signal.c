/* hooks-signal.c — the runaway guard whatever the program does with SIGXCPU (runaway.c).
 *
 * Once a grant has armed the guard, a program that sets SIGXCPU's disposition (its own handler,
 * SIG_IGN, SIG_DFL) would replace the guard's handler, and the kernel would kill it at the hard
 * RLIMIT_RTTIME.  So every libc entry point that sets a disposition is interposed for SIGXCPU:
 * the program's disposition becomes the one the guard chains, the guard's handler stays, and the
 * program reads back its own, as without the shim.  glibc 2.36 exports sigaction, __sigaction,
 * signal (= bsd_signal = ssignal), sysv_signal (= __sysv_signal), sigset and sigignore; each
 * calls glibc's internal __sigaction, not the exported one, hence one interposer each.  Every
 * other signal, and SIGXCPU before a grant, goes straight to the real function.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hooks.h"
#include "log.h"
#include "raw-sigaction.h"
#include "raw-syscall.h"
#include "runaway.h"

/* not declared by <signal.h> */
int __sigaction(int sig, const struct sigaction *act, struct sigaction *oldact);
__sighandler_t bsd_signal(int sig, __sighandler_t handler);

/* The guard owns SIGXCPU's disposition: set it as glibc's wrapper would, through the guard. */
static bool guarded(int sig)
{
	return sig == SIGXCPU && rtshim_runaway_guards_here();
}

static __sighandler_t set_handler(__sighandler_t handler, int flags, bool mask_self)
{
	struct sigaction act, old;
	if (handler == SIG_ERR) {
		errno = EINVAL;
		return SIG_ERR;
	}
	memset(&act, 0, sizeof act);
	act.sa_handler = handler;
	sigemptyset(&act.sa_mask);
	if (mask_self)
		sigaddset(&act.sa_mask, SIGXCPU);
	act.sa_flags = flags;
	if (rtshim_runaway_sigaction(&act, &old) < 0)
		return SIG_ERR;
	return old.sa_handler;
}

/* signal(2) with BSD semantics (glibc's signal, bsd_signal, ssignal) */
static __sighandler_t bsd_handler(__sighandler_t handler)
{
	return set_handler(handler, SA_RESTART, true);
}

/* System V semantics: one-shot, not masked while it runs, interrupting */
static __sighandler_t sysv_handler(__sighandler_t handler)
{
	return set_handler(handler, SA_RESETHAND | SA_NODEFER | 0x20000000 /* SA_INTERRUPT */, false);
}

RTSHIM_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *oldact)
{
	if (sig != SIGXCPU)
		return rtshim_runaway_real_sigaction()(sig, act, oldact);
	return rtshim_runaway_sigaction(act, oldact);
}

RTSHIM_EXPORT int __sigaction(int sig, const struct sigaction *act, struct sigaction *oldact)
{
	return sigaction(sig, act, oldact);
}

#define FORWARD_OR(name, sig, handler, alt)                        \
	do {                                                       \
		sighandler_fn *next_ = next_##name();              \
		if (!guarded(sig) && next_)                        \
			return next_(sig, handler);                \
		if (sig != SIGXCPU) {                              \
			errno = ENOSYS;                            \
			return SIG_ERR;                            \
		}                                                  \
		return alt(handler);                               \
	} while (0)

RTSHIM_EXPORT __sighandler_t signal(int sig, __sighandler_t handler)
{
	FORWARD_OR(signal, sig, handler, bsd_handler);
}

RTSHIM_EXPORT __sighandler_t bsd_signal(int sig, __sighandler_t handler)
{
	FORWARD_OR(bsd_signal, sig, handler, bsd_handler);
}

RTSHIM_EXPORT __sighandler_t ssignal(int sig, __sighandler_t handler)
{
	FORWARD_OR(ssignal, sig, handler, bsd_handler);
}

RTSHIM_EXPORT __sighandler_t sysv_signal(int sig, __sighandler_t handler)
{
	FORWARD_OR(sysv_signal, sig, handler, sysv_handler);
}

RTSHIM_EXPORT __sighandler_t __sysv_signal(int sig, __sighandler_t handler)
{
	FORWARD_OR(__sysv_signal, sig, handler, sysv_handler);
}

/* glibc's sigset (sysdeps/posix/sigset.c), with the guard's sigaction */
static __sighandler_t sigset_guarded(int sig, __sighandler_t disp)
{
	struct sigaction act, old;
	sigset_t set, oset;
	sigemptyset(&set);
	sigaddset(&set, sig);
	if (disp == SIG_HOLD) {
		if (pthread_sigmask(SIG_BLOCK, &set, &oset) != 0)
			return SIG_ERR;
		if (sigismember(&oset, sig))
			return SIG_HOLD;
		if (rtshim_runaway_sigaction(NULL, &old) < 0)
			return SIG_ERR;
		return old.sa_handler;
	}
	if (disp == SIG_ERR) {
		errno = EINVAL;
		return SIG_ERR;
	}
	memset(&act, 0, sizeof act);
	act.sa_handler = disp;
	sigemptyset(&act.sa_mask);
	if (rtshim_runaway_sigaction(&act, &old) < 0)
		return SIG_ERR;
	if (pthread_sigmask(SIG_UNBLOCK, &set, &oset) != 0)
		return SIG_ERR;
	return sigismember(&oset, sig) ? SIG_HOLD : old.sa_handler;
}

RTSHIM_EXPORT __sighandler_t sigset(int sig, __sighandler_t disp)
{
	sighandler_fn *next = next_sigset();
	if (!guarded(sig) && next)
		return next(sig, disp);
	if (sig != SIGXCPU) {
		errno = ENOSYS;
		return SIG_ERR;
	}
	return sigset_guarded(sig, disp);
}

RTSHIM_EXPORT int sigignore(int sig)
{
	sigignore_fn *next = next_sigignore();
	if (!guarded(sig) && next)
		return next(sig);
	if (sig != SIGXCPU) {
		errno = ENOSYS;
		return -1;
	}
	struct sigaction act;
	memset(&act, 0, sizeof act);
	act.sa_handler = SIG_IGN;
	sigemptyset(&act.sa_mask);
	return rtshim_runaway_sigaction(&act, NULL);
}

/* ---- syscall(SYS_rt_sigaction, SIGXCPU, ...) ---------------------------------------------------- */

/* A SIGXCPU disposition set or read with the raw system call goes through the guard, as
 * sigaction does (an ill-sized mask, another signal, or before a grant: the kernel's call). */
long rtshim_syscall_sigaction(long number, long sig, long act_, long oact_, long size)
{
	const struct kernel_sigaction *act = (const struct kernel_sigaction *)(uintptr_t)act_;
	struct kernel_sigaction *oact = (struct kernel_sigaction *)(uintptr_t)oact_;
	if ((int)sig != SIGXCPU || size != sizeof act->mask || !rtshim_runaway_guards_here()) {
		syscall_fn *next = __atomic_load_n(&rtshim_syscall_next, __ATOMIC_ACQUIRE);
		return next ? next(number, sig, act, oact, size)
			    : rtshim_raw_syscall(number, sig, act, oact, size);
	}
	struct sigaction a, o;
	if (act) {
		memset(&a, 0, sizeof a);
		a.sa_handler = (__sighandler_t)act->handler;
		a.sa_flags = (int)act->flags;
#if defined(__x86_64__) || defined(__i386__) /* glibc keeps the restorer there */
		a.sa_restorer = (void (*)(void))act->restorer;
#endif
		memcpy(&a.sa_mask, act->mask, sizeof act->mask);
	}
	if (rtshim_runaway_sigaction(act ? &a : NULL, oact ? &o : NULL) < 0)
		return -1;
	if (oact) {
		oact->handler = (void *)o.sa_handler;
		oact->flags = (unsigned long)(unsigned)o.sa_flags;
#if defined(__x86_64__) || defined(__i386__)
		oact->restorer = (void *)o.sa_restorer;
#else
		oact->restorer = NULL;
#endif
		memcpy(oact->mask, &o.sa_mask, sizeof oact->mask);
	}
	return 0;
}

/* ---- the signal mask: SIGXCPU stays deliverable to a realtime thread (runaway.c) ---------------- */

RTSHIM_EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	return rtshim_runaway_sigmask(how, set, old);
}

RTSHIM_EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	int e = rtshim_runaway_sigmask(how, set, old);
	if (e) {
		errno = e;
		return -1;
	}
	return 0;
}

/* syscall(SYS_rt_sigprocmask, how, set, old, 8) once the guard is armed: the kernel's call as
 * asked first (its errors exactly, SIGCANCEL and the like as the program set them), then what
 * it did to SIGXCPU alone goes through the guard's mask (SIGXCPU kept deliverable, the
 * program's view kept), and the program reads back its own view.  A SIGXCPU that arrives in
 * between stays pending until the guard unblocks it. */
long rtshim_syscall_sigmask(long number, long how, long set_, long old_, long size)
{
	const unsigned long *set = (const unsigned long *)(uintptr_t)set_;
	unsigned long *old = (unsigned long *)(uintptr_t)old_;
	syscall_fn *next = __atomic_load_n(&rtshim_syscall_next, __ATOMIC_ACQUIRE);
	bool guarded_mask = size == 8 && rtshim_runaway_guards_here(), old_bad = false;
	sigset_t view, x;
	if (guarded_mask && old) {
		rtshim_runaway_sigmask(SIG_BLOCK, NULL, &view); /* the program's view before */
		/* an unwritable old: the kernel changes the mask, then says EFAULT; so does this */
		old_bad = (next ? next(number, SIG_BLOCK, NULL, old, size)
				: rtshim_raw_syscall(number, SIG_BLOCK, NULL, old, size)) < 0;
	}
	if (old_bad)
		old = NULL;
	long r = next ? next(number, how, set, old, size) : rtshim_raw_syscall(number, how, set, old, size);
	if (r < 0 || !guarded_mask)
		return r;
	enum { BITS = 8 * sizeof(unsigned long) };
	const unsigned long bit = 1UL << ((SIGXCPU - 1) % BITS), word = (SIGXCPU - 1) / BITS;
	bool in = set && (set[word] & bit);
	sigemptyset(&x);
	if (in || (set && (int)how == SIG_SETMASK))
		sigaddset(&x, SIGXCPU);
	/* SIGXCPU blocked: SIG_BLOCK of it (or SIG_SETMASK with it); unblocked: SIG_UNBLOCK of it
	 * (or SIG_SETMASK without it); else nothing but what the guard does for an empty SIG_BLOCK */
	int op = (int)how == SIG_UNBLOCK || ((int)how == SIG_SETMASK && !in) ? SIG_UNBLOCK : SIG_BLOCK;
	rtshim_runaway_sigmask(op, &x, NULL);
	if (old_bad) {
		errno = EFAULT;
		return -1;
	}
	if (old && sigismember(&view, SIGXCPU))
		old[word] |= bit;
	return r;
}

/* Resolve now, from the constructor: the guard arms from a thread that asks for realtime,
 * possibly while a library constructor that waits for it holds the loader's lock (dlsym). */
void rtshim_resolve_signal(void)
{
	rtshim_runaway_real_sigaction();
	rtshim_runaway_real_sigmask();
	next_signal();
	next_bsd_signal();
	next_ssignal();
	next_sysv_signal();
	next___sysv_signal();
	next_sigset();
	next_sigignore();
}
