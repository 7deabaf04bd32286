/* raw-rlimit.h — getrlimit/setrlimit/prlimit made by the system call itself (prlimit64: 64-bit
 * limits on every architecture, whatever the program's rlim_t), never through the shim's own
 * interposers of them (shim/hooks-rlimit.c), which show the program its own view. */
#ifndef RTSHIM_RAW_RLIMIT_H
#define RTSHIM_RAW_RLIMIT_H

#include <errno.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "raw-syscall.h"

struct rtshim_rlimit64 {
	uint64_t cur, max;
};

static inline uint64_t rtshim_rlim_to64(rlim_t v)
{
	return v == RLIM_INFINITY ? ~(uint64_t)0 : (uint64_t)v;
}

static inline rlim_t rtshim_rlim_from64(uint64_t v)
{
	return v >= (uint64_t)RLIM_INFINITY ? RLIM_INFINITY : (rlim_t)v;
}

/* prlimit(pid, resource, set, old): 0, or -1 with errno set. */
static inline int rtshim_raw_prlimit(pid_t pid, int resource, const struct rlimit *set,
				     struct rlimit *old)
{
	struct rtshim_rlimit64 s, o;
	if (set)
		s = (struct rtshim_rlimit64){ rtshim_rlim_to64(set->rlim_cur),
					      rtshim_rlim_to64(set->rlim_max) };
	if (rtshim_raw_syscall(SYS_prlimit64, (long)pid, (long)resource, set ? &s : NULL,
			       old ? &o : NULL) < 0)
		return -1;
	if (old)
		*old = (struct rlimit){ rtshim_rlim_from64(o.cur), rtshim_rlim_from64(o.max) };
	return 0;
}

/* RLIMIT_RTTIME of process `pid` (0: this one), read and set: 0 or a negative errno. */
static inline int rtshim_raw_get_rttime(pid_t pid, rlim_t *soft, rlim_t *hard)
{
	struct rlimit rl;
	if (rtshim_raw_prlimit(pid, RLIMIT_RTTIME, NULL, &rl) < 0)
		return -errno;
	*soft = rl.rlim_cur;
	*hard = rl.rlim_max;
	return 0;
}

static inline int rtshim_raw_set_rttime(pid_t pid, rlim_t soft, rlim_t hard)
{
	struct rlimit rl = { .rlim_cur = soft, .rlim_max = hard };
	return rtshim_raw_prlimit(pid, RLIMIT_RTTIME, &rl, NULL) < 0 ? -errno : 0;
}

#endif
