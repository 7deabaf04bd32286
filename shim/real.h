/* real.h — the next definition of a function the shim interposes (libc's, or another preload's
 * after the shim): one way for every one of them.  dlsym(RTLD_NEXT), dlvsym where versions
 * differ; resolved on first use (a library's constructor may call a hook before the shim's
 * runs), then read without a call.  The shim's constructor resolves them all (shim/init.c):
 * dlsym takes the dynamic loader's lock, which a request must never need. */
#ifndef RTSHIM_REAL_H
#define RTSHIM_REAL_H

#include <pthread.h>
#include <sched.h>
#include <stddef.h>
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

/* static type *next_NAME(void) for a file's own interposers: the next NAME, `fallback` (a
 * function of the same type) or NULL when there is none. */
#define RTSHIM_DEFINE_NEXT_OR(type, name, fallback)                                          \
	static struct rtshim_next next_##name##_slot = RTSHIM_NEXT_SLOT(name, NULL, fallback); \
	RTSHIM_UNINSTRUMENTED static inline type *next_##name(void)                           \
	{                                                                                     \
		return (type *)rtshim_next_get(&next_##name##_slot);                          \
	}
#define RTSHIM_DEFINE_NEXT(type, name) RTSHIM_DEFINE_NEXT_OR(type, name, NULL)

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

#endif
