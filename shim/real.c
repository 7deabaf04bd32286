/* real.c — resolving the next definitions (real.h), and the real functions several files share. */
#include <dlfcn.h>
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "raw-rlimit.h"
#include "raw-syscall.h"
#include "real.h"

RTSHIM_UNINSTRUMENTED void *rtshim_next_symbol(const char *name, const char *version)
{
	void *next = dlsym(RTLD_NEXT, name), *f = NULL;
	if (version)
		f = dlvsym(RTLD_NEXT, name, version);
	if (!f)
		return next;
	/* dlvsym skips an unversioned definition: an interposer loaded after the shim (another
	 * preload library, a sanitizer runtime) would be bypassed.  Take the next definition when it
	 * lives in another object than the versioned one. */
	Dl_info a, b;
	if (next && next != f && dladdr(next, &a) && dladdr(f, &b) && a.dli_fbase != b.dli_fbase)
		return next;
	return f;
}

/* Not instrumented: a sanitizer runtime may call an interposer (TSan calls pthread_getattr_np)
 * from a new thread before its own state for that thread exists. */
RTSHIM_UNINSTRUMENTED void *rtshim_next_resolve(struct rtshim_next *n)
{
	void *f = rtshim_next_symbol(n->name, n->version);
	if (!f)
		f = n->fallback;
	if (f)
		__atomic_store_n(&n->fn, f, __ATOMIC_RELEASE);
	return f;
}

void rtshim_next_resolve_now(struct rtshim_next *n)
{
	if (__atomic_load_n(&n->fn, __ATOMIC_ACQUIRE) == n->unresolved)
		rtshim_next_resolve(n);
}

/* Fallbacks if the dynamic loader cannot find the next definition: the raw system calls for
 * the sched_* family (not through the shim's own syscall(), which would come back here), ENOSYS
 * for the pthread family (never seen with glibc). */
static int fb_sched_setscheduler(pid_t pid, int policy, const struct sched_param *p)
{
	return (int)rtshim_raw_syscall(SYS_sched_setscheduler, pid, policy, p);
}
static int fb_sched_setparam(pid_t pid, const struct sched_param *p)
{
	return (int)rtshim_raw_syscall(SYS_sched_setparam, pid, p);
}
static int fb_sched_getscheduler(pid_t pid)
{
	return (int)rtshim_raw_syscall(SYS_sched_getscheduler, (long)pid);
}
static int fb_sched_getparam(pid_t pid, struct sched_param *p)
{
	return (int)rtshim_raw_syscall(SYS_sched_getparam, (long)pid, (long)p);
}
static int fb_pthread_setschedparam(pthread_t t, int policy, const struct sched_param *p)
{
	(void)t, (void)policy, (void)p;
	return ENOSYS;
}
static int fb_pthread_setschedprio(pthread_t t, int prio)
{
	(void)t, (void)prio;
	return ENOSYS;
}
static int fb_pthread_getschedparam(pthread_t t, int *policy, struct sched_param *p)
{
	(void)t, (void)policy, (void)p;
	return ENOSYS;
}
static int fb_pthread_getattr_np(pthread_t t, pthread_attr_t *a)
{
	(void)t, (void)a;
	return ENOSYS;
}
static int fb_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*s)(void *), void *arg)
{
	(void)t, (void)a, (void)s, (void)arg;
	return EAGAIN;
}

/* The slot, and its stub until resolved: resolve, then call what was found. */
#define DEFINE_REAL(name, version, params, args)                                               \
	static name##_fn first_##name;                                                          \
	struct rtshim_next rtshim_real_##name##_slot = {                                        \
		(void *)first_##name, #name, (version), (void *)fb_##name, (void *)first_##name \
	};                                                                                      \
	RTSHIM_UNINSTRUMENTED static int first_##name params                                    \
	{                                                                                       \
		return ((name##_fn *)rtshim_next_resolve(&rtshim_real_##name##_slot))args;     \
	}

DEFINE_REAL(sched_setscheduler, NULL, (pid_t pid, int policy, const struct sched_param *p),
	    (pid, policy, p))
DEFINE_REAL(sched_setparam, NULL, (pid_t pid, const struct sched_param *p), (pid, p))
DEFINE_REAL(sched_getscheduler, NULL, (pid_t pid), (pid))
DEFINE_REAL(sched_getparam, NULL, (pid_t pid, struct sched_param *p), (pid, p))
DEFINE_REAL(pthread_setschedparam, NULL, (pthread_t t, int policy, const struct sched_param *p),
	    (t, policy, p))
DEFINE_REAL(pthread_setschedprio, NULL, (pthread_t t, int prio), (t, prio))
DEFINE_REAL(pthread_getschedparam, NULL, (pthread_t t, int *policy, struct sched_param *p),
	    (t, policy, p))
DEFINE_REAL(pthread_getattr_np, NULL, (pthread_t t, pthread_attr_t *a), (t, a))
/* pthread_create has several versions (GLIBC_2.2.5 / GLIBC_2.34 on x86_64, GLIBC_2.0 /
 * GLIBC_2.1 / GLIBC_2.34 on i386): take the current one explicitly. */
DEFINE_REAL(pthread_create, "GLIBC_2.34",
	    (pthread_t *t, const pthread_attr_t *a, void *(*start)(void *), void *arg),
	    (t, a, start, arg))

void rtshim_resolve_real(void)
{
	rtshim_next_resolve_now(&rtshim_real_sched_setscheduler_slot);
	rtshim_next_resolve_now(&rtshim_real_sched_setparam_slot);
	rtshim_next_resolve_now(&rtshim_real_sched_getscheduler_slot);
	rtshim_next_resolve_now(&rtshim_real_sched_getparam_slot);
	rtshim_next_resolve_now(&rtshim_real_pthread_setschedparam_slot);
	rtshim_next_resolve_now(&rtshim_real_pthread_setschedprio_slot);
	rtshim_next_resolve_now(&rtshim_real_pthread_getschedparam_slot);
	rtshim_next_resolve_now(&rtshim_real_pthread_getattr_np_slot);
	rtshim_next_resolve_now(&rtshim_real_pthread_create_slot);
}

/* ---- the next definitions of what one file interposes (real.h: RTSHIM_DECLARE_NEXT) ---------- */

/* Without a next definition (never seen with glibc): the system call where there is one, else
 * ENOSYS. */
static int no_execve(const char *path, char *const argv[], char *const envp[])
{
	(void)path, (void)argv, (void)envp;
	errno = ENOSYS;
	return -1;
}
static int no_fexecve(int fd, char *const argv[], char *const envp[])
{
	(void)fd, (void)argv, (void)envp;
	errno = ENOSYS;
	return -1;
}
static int no_execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
		       int flags)
{
	(void)dirfd, (void)path, (void)argv, (void)envp, (void)flags;
	errno = ENOSYS;
	return -1;
}
static int sys_setpriority(__priority_which_t which, id_t who, int prio)
{
	return (int)rtshim_raw_syscall(SYS_setpriority, (long)which, (long)who, (long)prio);
}
static int no_nice(int inc)
{
	(void)inc;
	errno = ENOSYS;
	return -1;
}
/* prlimit64, the system call all of them make (a narrower struct rlimit converted) */
static int sys_prlimit64(pid_t pid, __rlimit_resource_t resource, const struct rlimit64 *set,
			 struct rlimit64 *old)
{
	return (int)rtshim_raw_syscall(SYS_prlimit64, (long)pid, (long)resource, set, old);
}
static int sys_prlimit(pid_t pid, __rlimit_resource_t resource, const struct rlimit *set,
		       struct rlimit *old)
{
	return rtshim_raw_prlimit(pid, (int)resource, set, old);
}
static int sys_getrlimit(__rlimit_resource_t resource, struct rlimit *rl)
{
	return sys_prlimit(0, resource, NULL, rl);
}
static int sys_setrlimit(__rlimit_resource_t resource, const struct rlimit *rl)
{
	return sys_prlimit(0, resource, rl, NULL);
}
static int sys_getrlimit64(__rlimit_resource_t resource, struct rlimit64 *rl)
{
	return sys_prlimit64(0, resource, NULL, rl);
}
static int sys_setrlimit64(__rlimit_resource_t resource, const struct rlimit64 *rl)
{
	return sys_prlimit64(0, resource, rl, NULL);
}
static int no_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	(void)sig, (void)act, (void)old;
	errno = ENOSYS;
	return -1;
}
static int sys_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	/* the system call itself: the shim's own syscall() would take it for the program's */
	return (int)rtshim_raw_syscall(SYS_rt_sigprocmask, (long)how, set, old, (long)(_NSIG / 8)) < 0 ? errno : 0;
}

#define DEFINE_NEXT(name, fallback) \
	struct rtshim_next rtshim_next_##name##_slot = RTSHIM_NEXT_SLOT(name, NULL, fallback);
DEFINE_NEXT(execve, no_execve)
DEFINE_NEXT(execvpe, no_execve)
DEFINE_NEXT(fexecve, no_fexecve)
DEFINE_NEXT(execveat, no_execveat)
DEFINE_NEXT(setpriority, sys_setpriority)
DEFINE_NEXT(nice, no_nice)
DEFINE_NEXT(getrlimit, sys_getrlimit)
DEFINE_NEXT(setrlimit, sys_setrlimit)
DEFINE_NEXT(getrlimit64, sys_getrlimit64)
DEFINE_NEXT(setrlimit64, sys_setrlimit64)
DEFINE_NEXT(prlimit, sys_prlimit)
DEFINE_NEXT(prlimit64, sys_prlimit64)
DEFINE_NEXT(signal, NULL)
DEFINE_NEXT(bsd_signal, NULL)
DEFINE_NEXT(ssignal, NULL)
DEFINE_NEXT(sysv_signal, NULL)
DEFINE_NEXT(__sysv_signal, NULL)
DEFINE_NEXT(sigset, NULL)
DEFINE_NEXT(sigignore, NULL)
DEFINE_NEXT(sigaction, no_sigaction)
DEFINE_NEXT(pthread_sigmask, sys_sigmask)
DEFINE_NEXT(pthread_join, pthread_join) /* none after the shim: the first one, the program's */

syscall_fn *rtshim_syscall_next;

void rtshim_resolve_syscall(void)
{
	if (!__atomic_load_n(&rtshim_syscall_next, __ATOMIC_ACQUIRE))
		__atomic_store_n(&rtshim_syscall_next, (syscall_fn *)rtshim_next_symbol("syscall", NULL),
				 __ATOMIC_RELEASE);
}
