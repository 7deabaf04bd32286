/* rttime.h — the RLIMIT_RTTIME rule rtkit imposes, as a pure function.
 *
 * rtkit grants only if the hard RLIMIT_RTTIME is finite and <= its RTTimeUSecMax.  The shim
 * makes that so, but never raises a limit and never sets 0 (the kernel would kill the thread at
 * once).  When the hard limit has to be set it becomes min(configured, daemon max); the soft
 * limit becomes min(old soft, new hard) — i.e. soft = hard unless the program had a lower soft. */
#ifndef RTSHIM_RTTIME_H
#define RTSHIM_RTTIME_H

#include <stdint.h>
#include <sys/resource.h>

enum rtshim_rttime_verdict {
	RTSHIM_RTTIME_OK = 0,     /* already acceptable, change nothing */
	RTSHIM_RTTIME_LOWER = 1,  /* set new_soft and new_hard */
};

/* Returns a verdict, or -EPERM when no acceptable limit can be reached without raising one or
 * using 0 (a limit of 0 already in place: a grant would get the thread killed).
 * daemon_max <= 0 means "unknown" (configured value used). */
int rtshim_rttime_plan(rlim_t soft, rlim_t hard, int64_t configured_us, int64_t daemon_max_us,
		       rlim_t *new_soft, rlim_t *new_hard);

/* The runaway guard (shim/runaway.c) keeps the soft limit at this share of the hard one, so
 * that SIGXCPU demotes an overrunning thread before the hard limit's SIGKILL. */
#define RTSHIM_RUNAWAY_SOFT_PERCENT 80

/* The soft limit the guard wants under `hard` (never above `soft`, never 0). */
rlim_t rtshim_runaway_soft(rlim_t soft, rlim_t hard);

#endif
