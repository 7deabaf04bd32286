/* runaway.h — the runaway guard: instead of letting the kernel SIGKILL the whole process when a
 * realtime thread runs RLIMIT_RTTIME without blocking, keep the soft limit below the hard one
 * (RTSHIM_RUNAWAY_SOFT_PERCENT) and demote the overrunning thread to SCHED_OTHER in a SIGXCPU
 * handler.  The handler is async-signal-safe: system calls, atomics and write(2) only. */
#ifndef RTSHIM_RUNAWAY_H
#define RTSHIM_RUNAWAY_H

#include <stdbool.h>
#include <sys/resource.h>

#include "rttime.h" /* rtshim_runaway_soft */

/* Install the SIGXCPU handler if it is not in place: whatever the program had (its own
 * handler, SIG_IGN, SIG_DFL) is remembered and honoured (chained, see runaway.c), and `soft`
 * becomes the soft limit the handler restores after the kernel raised it.  0 when the handler is
 * in place, -errno otherwise (then the caller must not lower the soft limit). */
int rtshim_runaway_arm(rlim_t soft);

/* fork: arm_lock is taken around fork, so a child never inherits it held by a thread that does
 * not exist there (hooks-common.c's atfork handlers). */
void rtshim_runaway_atfork_prepare(void);
void rtshim_runaway_atfork_release(void);

#endif
