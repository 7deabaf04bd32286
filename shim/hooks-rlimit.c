/* hooks-rlimit.c — a program that reads or sets its own RLIMIT_RTTIME keeps the runaway guard.
 *
 * Once the guard is armed, the kernel's soft RLIMIT_RTTIME is the guard's (a share of the hard
 * one).  A program that sets its soft limit to its hard one (stress-ng's stressors, many daemons
 * at start) would otherwise remove the guard and be killed at the hard limit; one that reads it
 * would see the guard's value.  So getrlimit, setrlimit, prlimit (and their 64-bit names) for
 * RLIMIT_RTTIME of this process go through rtshim_runaway_rttime (runaway.c): the kernel checks
 * and answers first, the program reads back its own soft limit, the guard keeps its share below
 * the hard one; so does syscall(SYS_prlimit64, ...) (hooks-syscall-entry.S).  Every other
 * resource and process, RLIMIT_RTTIME before a grant armed the guard, and the shim's own calls
 * (inside a request) go straight to the next definition. */

/* The ABI's two names, each with its own layout: getrlimit with struct rlimit (rlim_t of 32 bits
 * on i386 and armhf), getrlimit64 with struct rlimit64.  A 32-bit build with 64-bit file offsets
 * (Debian's future=+lfs, time64) would turn every getrlimit below into a second getrlimit64. */
#undef _FILE_OFFSET_BITS
#undef _TIME_BITS
#include <errno.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hooks.h"
#include "raw-syscall.h"
#include "runaway.h"

typedef int getrlimit_fn(__rlimit_resource_t, struct rlimit *);
typedef int setrlimit_fn(__rlimit_resource_t, const struct rlimit *);
typedef int getrlimit64_fn(__rlimit_resource_t, struct rlimit64 *);
typedef int setrlimit64_fn(__rlimit_resource_t, const struct rlimit64 *);
typedef int prlimit_fn(pid_t, __rlimit_resource_t, const struct rlimit *, struct rlimit *);
typedef int prlimit64_fn(pid_t, __rlimit_resource_t, const struct rlimit64 *, struct rlimit64 *);

/* struct rlimit's rlim_t may be narrower than 64 bits (i386): glibc's own conversion */
static uint64_t from_rlim(rlim_t v)
{
	return v == RLIM_INFINITY ? RLIM64_INFINITY : (uint64_t)v;
}

static rlim_t to_rlim(uint64_t v)
{
	return v >= (uint64_t)RLIM_INFINITY ? RLIM_INFINITY : (rlim_t)v;
}

/* Without a next definition (never seen with glibc): prlimit64, the system call all of them make
 * (the 32-bit struct rlimit converted). */
static int sys_prlimit64(pid_t pid, __rlimit_resource_t resource, const struct rlimit64 *set,
			 struct rlimit64 *old)
{
	return (int)rtshim_raw_syscall(SYS_prlimit64, pid, resource, set, old);
}
static int sys_prlimit(pid_t pid, __rlimit_resource_t resource, const struct rlimit *set, struct rlimit *old)
{
	struct rlimit64 s, o;
	if (set) {
		s.rlim_cur = from_rlim(set->rlim_cur);
		s.rlim_max = from_rlim(set->rlim_max);
	}
	int r = sys_prlimit64(pid, resource, set ? &s : NULL, old ? &o : NULL);
	if (r == 0 && old) {
		old->rlim_cur = to_rlim(o.rlim_cur);
		old->rlim_max = to_rlim(o.rlim_max);
	}
	return r;
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

RTSHIM_DEFINE_NEXT_OR(getrlimit_fn, getrlimit, sys_getrlimit)
RTSHIM_DEFINE_NEXT_OR(setrlimit_fn, setrlimit, sys_setrlimit)
RTSHIM_DEFINE_NEXT_OR(getrlimit64_fn, getrlimit64, sys_getrlimit64)
RTSHIM_DEFINE_NEXT_OR(setrlimit64_fn, setrlimit64, sys_setrlimit64)
RTSHIM_DEFINE_NEXT_OR(prlimit_fn, prlimit, sys_prlimit)
RTSHIM_DEFINE_NEXT_OR(prlimit64_fn, prlimit64, sys_prlimit64)

void rtshim_resolve_rlimit(void)
{
	next_getrlimit();
	next_setrlimit();
	next_getrlimit64();
	next_setrlimit64();
	next_prlimit();
	next_prlimit64();
}

/* RLIMIT_RTTIME of this process, with the guard armed: the guard's business.  Uninstrumented,
 * as the interposers: TSan's start-up asks for other limits before TSan can run code. */
RTSHIM_UNINSTRUMENTED static bool guarded(pid_t pid, __rlimit_resource_t resource)
{
	return resource == RLIMIT_RTTIME && (pid == 0 || pid == getpid()) && rtshim_runaway_armed();
}

/* 0 or -errno */
static int rttime(const struct rlimit *set, struct rlimit *get)
{
	struct rlim64 s, g;
	if (set) {
		s.cur = from_rlim(set->rlim_cur);
		s.max = from_rlim(set->rlim_max);
	}
	int r = rtshim_runaway_rttime(set ? &s : NULL, get ? &g : NULL);
	if (r == 0 && get) {
		get->rlim_cur = to_rlim(g.cur);
		get->rlim_max = to_rlim(g.max);
	}
	return r;
}

/* 0 or -errno */
static int rttime64(const struct rlimit64 *set, struct rlimit64 *get)
{
	struct rlim64 s, g;
	if (set) {
		s.cur = set->rlim_cur;
		s.max = set->rlim_max;
	}
	int r = rtshim_runaway_rttime(set ? &s : NULL, get ? &g : NULL);
	if (r == 0 && get) {
		get->rlim_cur = g.cur;
		get->rlim_max = g.max;
	}
	return r;
}

RTSHIM_UNINSTRUMENTED RTSHIM_EXPORT int getrlimit(__rlimit_resource_t resource, struct rlimit *rl)
{
	struct rtshim_hook h;
	if (!guarded(0, resource) || !rtshim_hook_enter(&h))
		return next_getrlimit()(resource, rl);
	return rtshim_hook_return(&h, -rttime(NULL, rl));
}

RTSHIM_UNINSTRUMENTED RTSHIM_EXPORT int setrlimit(__rlimit_resource_t resource, const struct rlimit *rl)
{
	struct rtshim_hook h;
	if (!guarded(0, resource) || !rtshim_hook_enter(&h))
		return next_setrlimit()(resource, rl);
	return rtshim_hook_return(&h, -rttime(rl, NULL));
}

RTSHIM_UNINSTRUMENTED RTSHIM_EXPORT int prlimit(pid_t pid, __rlimit_resource_t resource, const struct rlimit *set, struct rlimit *old)
{
	struct rtshim_hook h;
	if (!guarded(pid, resource) || !rtshim_hook_enter(&h))
		return next_prlimit()(pid, resource, set, old);
	return rtshim_hook_return(&h, -rttime(set, old));
}

RTSHIM_UNINSTRUMENTED RTSHIM_EXPORT int getrlimit64(__rlimit_resource_t resource, struct rlimit64 *rl)
{
	struct rtshim_hook h;
	if (!guarded(0, resource) || !rtshim_hook_enter(&h))
		return next_getrlimit64()(resource, rl);
	return rtshim_hook_return(&h, -rttime64(NULL, rl));
}

RTSHIM_UNINSTRUMENTED RTSHIM_EXPORT int setrlimit64(__rlimit_resource_t resource, const struct rlimit64 *rl)
{
	struct rtshim_hook h;
	if (!guarded(0, resource) || !rtshim_hook_enter(&h))
		return next_setrlimit64()(resource, rl);
	return rtshim_hook_return(&h, -rttime64(rl, NULL));
}

RTSHIM_UNINSTRUMENTED RTSHIM_EXPORT int prlimit64(pid_t pid, __rlimit_resource_t resource, const struct rlimit64 *set, struct rlimit64 *old)
{
	struct rtshim_hook h;
	if (!guarded(pid, resource) || !rtshim_hook_enter(&h))
		return next_prlimit64()(pid, resource, set, old);
	return rtshim_hook_return(&h, -rttime64(set, old));
}

/* syscall(SYS_prlimit64, ...): prlimit64's own layout is struct rlim64. */
long rtshim_syscall_prlimit(long number, long pid, long resource, long set, long get)
{
	struct rtshim_hook h;
	if (!guarded((pid_t)pid, (__rlimit_resource_t)resource) || !rtshim_hook_enter(&h)) {
		syscall_fn *next = __atomic_load_n(&rtshim_syscall_next, __ATOMIC_ACQUIRE);
		return next ? next(number, pid, resource, set, get)
			    : rtshim_raw_syscall(number, pid, resource, set, get);
	}
	return rtshim_hook_return(&h, -rtshim_runaway_rttime((const struct rlim64 *)(uintptr_t)set,
							     (struct rlim64 *)(uintptr_t)get));
}
