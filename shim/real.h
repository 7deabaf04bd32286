/* real.h — the next definition of a function the shim interposes (libc's, or another preload's
 * after the shim): one way for every one of them.  dlsym(RTLD_NEXT), dlvsym where versions
 * differ; resolved on first use (a library's constructor may call a hook before the shim's
 * runs), then read without a call.  The shim's constructor resolves them all (shim/init.c):
 * dlsym takes the dynamic loader's lock, which a request must never need. */
#ifndef RTSHIM_REAL_H
#define RTSHIM_REAL_H

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "enter.h" /* RTSHIM_UNINSTRUMENTED */

/* One function's slot: its name, its version (NULL: the default one), what to use when there is
 * no next definition (NULL: none; asked again next time), and the pointer to call: `unresolved`
 * until resolved (NULL, or a stub that resolves and calls on: see rtshim_real_NAME). */
struct rtshim_next {
	void *fn;
	const char *name, *version;
	void *fallback, *unresolved;
};
#define RTSHIM_NEXT_SLOT(name, version, fallback) \
	{ NULL, #name, (version), (void *)(fallback), NULL }

/* The next definition of `name` (version: that version, unless an unversioned interposer comes
 * between), NULL if none. */
void *rtshim_next_symbol(const char *name, const char *version);

/* Resolve n (out of line: the first call only), and n now unless it is. */
void *rtshim_next_resolve(struct rtshim_next *n) __attribute__((cold));
void rtshim_next_resolve_now(struct rtshim_next *n);

RTSHIM_UNINSTRUMENTED static inline void *rtshim_next_get(struct rtshim_next *n)
{
	void *f = __atomic_load_n(&n->fn, __ATOMIC_ACQUIRE);
	return __builtin_expect(f != NULL, 1) ? f : rtshim_next_resolve(n);
}

/* The real functions the request path and several interposers share: rtshim_real_NAME(), never
 * NULL, one load and no test: until resolved the slot holds a stub that resolves and calls on
 * (fallbacks: the raw system calls for sched_*, ENOSYS or EAGAIN for pthread_*, never seen with
 * glibc).  Defined in real.c. */
typedef int sched_setscheduler_fn(pid_t, int, const struct sched_param *);
typedef int sched_setparam_fn(pid_t, const struct sched_param *);
typedef int sched_getscheduler_fn(pid_t);
typedef int sched_getparam_fn(pid_t, struct sched_param *);
typedef int pthread_setschedparam_fn(pthread_t, int, const struct sched_param *);
typedef int pthread_setschedprio_fn(pthread_t, int);
typedef int pthread_getschedparam_fn(pthread_t, int *, struct sched_param *);
typedef int pthread_getattr_np_fn(pthread_t, pthread_attr_t *);
typedef int pthread_create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

#define RTSHIM_DECLARE_REAL(name)                                                    \
	extern struct rtshim_next rtshim_real_##name##_slot RTSHIM_HIDDEN;           \
	RTSHIM_UNINSTRUMENTED static inline name##_fn *rtshim_real_##name(void)      \
	{                                                                            \
		return (name##_fn *)__atomic_load_n(&rtshim_real_##name##_slot.fn,  \
						    __ATOMIC_ACQUIRE);                  \
	}
RTSHIM_DECLARE_REAL(sched_setscheduler)
RTSHIM_DECLARE_REAL(sched_setparam)
RTSHIM_DECLARE_REAL(sched_getscheduler)
RTSHIM_DECLARE_REAL(sched_getparam)
RTSHIM_DECLARE_REAL(pthread_setschedparam)
RTSHIM_DECLARE_REAL(pthread_setschedprio)
RTSHIM_DECLARE_REAL(pthread_getschedparam)
RTSHIM_DECLARE_REAL(pthread_getattr_np)
RTSHIM_DECLARE_REAL(pthread_create)

/* Resolve the shared ones now. */
void rtshim_resolve_real(void);

/* The next definitions of what one file interposes (hooks-exec.c, hooks-nice.c,
 * hooks-rlimit.c, hooks-signal.c, runaway.c): their slots live in real.c, with what to use when
 * there is none (the system call, or ENOSYS); next_NAME() resolves on first use. */
typedef int execve_fn(const char *, char *const[], char *const[]);
typedef int execvpe_fn(const char *, char *const[], char *const[]);
typedef int fexecve_fn(int, char *const[], char *const[]);
typedef int execveat_fn(int, const char *, char *const[], char *const[], int);
typedef int setpriority_fn(__priority_which_t, id_t, int);
typedef int nice_fn(int);
typedef int getrlimit_fn(__rlimit_resource_t, struct rlimit *);
typedef int setrlimit_fn(__rlimit_resource_t, const struct rlimit *);
typedef int getrlimit64_fn(__rlimit_resource_t, struct rlimit64 *);
typedef int setrlimit64_fn(__rlimit_resource_t, const struct rlimit64 *);
typedef int prlimit_fn(pid_t, __rlimit_resource_t, const struct rlimit *, struct rlimit *);
typedef int prlimit64_fn(pid_t, __rlimit_resource_t, const struct rlimit64 *, struct rlimit64 *);
typedef __sighandler_t sighandler_fn(int, __sighandler_t);
typedef int sigignore_fn(int);
typedef int sigaction_fn(int, const struct sigaction *, struct sigaction *);
typedef int sigmask_fn(int, const sigset_t *, sigset_t *);
typedef int join_fn(pthread_t, void **);

#define RTSHIM_DECLARE_NEXT(type, name)                                              \
	extern struct rtshim_next rtshim_next_##name##_slot RTSHIM_HIDDEN;           \
	RTSHIM_UNINSTRUMENTED static inline type *next_##name(void)                   \
	{                                                                             \
		return (type *)rtshim_next_get(&rtshim_next_##name##_slot);          \
	}
RTSHIM_DECLARE_NEXT(execve_fn, execve)
RTSHIM_DECLARE_NEXT(execvpe_fn, execvpe)
RTSHIM_DECLARE_NEXT(fexecve_fn, fexecve)
RTSHIM_DECLARE_NEXT(execveat_fn, execveat)
RTSHIM_DECLARE_NEXT(setpriority_fn, setpriority)
RTSHIM_DECLARE_NEXT(nice_fn, nice)
RTSHIM_DECLARE_NEXT(getrlimit_fn, getrlimit)
RTSHIM_DECLARE_NEXT(setrlimit_fn, setrlimit)
RTSHIM_DECLARE_NEXT(getrlimit64_fn, getrlimit64)
RTSHIM_DECLARE_NEXT(setrlimit64_fn, setrlimit64)
RTSHIM_DECLARE_NEXT(prlimit_fn, prlimit)
RTSHIM_DECLARE_NEXT(prlimit64_fn, prlimit64)
RTSHIM_DECLARE_NEXT(sighandler_fn, signal)
RTSHIM_DECLARE_NEXT(sighandler_fn, bsd_signal)
RTSHIM_DECLARE_NEXT(sighandler_fn, ssignal)
RTSHIM_DECLARE_NEXT(sighandler_fn, sysv_signal)
RTSHIM_DECLARE_NEXT(sighandler_fn, __sysv_signal)
RTSHIM_DECLARE_NEXT(sighandler_fn, sigset)
RTSHIM_DECLARE_NEXT(sigignore_fn, sigignore)
RTSHIM_DECLARE_NEXT(sigaction_fn, sigaction)
RTSHIM_DECLARE_NEXT(sigmask_fn, pthread_sigmask)
RTSHIM_DECLARE_NEXT(join_fn, pthread_join)

/* The next syscall() (libc's), read by the exported entry (hooks-syscall-entry.S); NULL until
 * resolved (the entry then makes the system call itself).  Resolve it now. */
typedef long syscall_fn(long, ...);
extern syscall_fn *rtshim_syscall_next;
void rtshim_resolve_syscall(void);

#endif
