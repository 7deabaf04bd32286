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

/* struct rlimit's rlim_t may be narrower than 64 bits (i386): glibc's own conversion */
static uint64_t from_rlim(rlim_t v)
{
	return v == RLIM_INFINITY ? RLIM64_INFINITY : (uint64_t)v;
}

static rlim_t to_rlim(uint64_t v)
{
	return v >= (uint64_t)RLIM_INFINITY ? RLIM_INFINITY : (rlim_t)v;
}

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
	return resource == RLIMIT_RTTIME && (pid == 0 || pid == getpid()) && rtshim_runaway_guards_here();
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
