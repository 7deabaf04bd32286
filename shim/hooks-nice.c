/* hooks-nice.c — the setpriority and nice interposers: setpriority(PRIO_PROCESS, who, negative)
 * and nice(negative) that the kernel refuses with EACCES (nice: EPERM) are forwarded for that one
 * thread to rtkit, clamped to its MinNiceLevel (nice.c asks).
 * On Linux, setpriority(PRIO_PROCESS, who) and nice() act on one thread (who 0 = the caller;
 * who = a TID, the main thread's TID being the PID), which is exactly what rtkit changes. */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "budget.h"
#include "own-stack.h"
#include "hooks.h"
#include "log.h"
#include "nice.h"
#include "trace.h"
#include "raw-syscall.h"

void rtshim_resolve_nice(void)
{
	next_setpriority();
	next_nice();
}

/* setpriority's request: 0 or the errno the program sees. */
static int nice_request(int which, id_t who, int prio)
{
	int err = next_setpriority()(which, who, prio) == -1 ? errno : 0;
	if (err != EACCES || which != PRIO_PROCESS)
		return err;

	/* which thread: ours (who 0, our TID, another thread of ours), or another process's
	 * thread whose process belongs to us (WithPID); anything else keeps the kernel's answer */
	struct rtshim_nice_ask n = { .prio = prio, .err = err };
	if (who > INT_MAX || rtshim_target_of_tid((pid_t)who, &n.tid, &n.pid) == RTSHIM_TARGET_UNKNOWN)
		return err;
	return rtshim_own_stack_run(rtshim_nice_ask_rtkit, &n);
}

static const char *which_name(int which)
{
	switch (which) {
	case PRIO_PROCESS: return "PRIO_PROCESS";
	case PRIO_PGRP: return "PRIO_PGRP";
	case PRIO_USER: return "PRIO_USER";
	default: return "?";
	}
}

RTSHIM_EXPORT int setpriority(__priority_which_t which, id_t who, int prio)
{
	struct rtshim_hook h;
	if (prio >= 0 || !rtshim_hook_enter(&h))
		return next_setpriority()(which, who, prio);
	int err;
	struct rtshim_trace tr = { .on = false, .pass = false };
	if (rtshim_trace_wanted() &&
	    rtshim_trace_left_alone(&tr, "setpriority(%s, %u, %d)", which_name(which), (unsigned)who, prio))
		err = next_setpriority()(which, who, prio) == -1 ? errno : 0;
	else
		err = nice_request(which, who, prio);
	rtshim_trace_end(&tr, err);
	return rtshim_hook_return(&h, err);
}

RTSHIM_EXPORT int nice(int inc)
{
	nice_fn *real = next_nice();
	struct rtshim_hook h;
	if (inc >= 0 || !rtshim_hook_enter(&h))
		return real(inc);
	int err = 0, r;
	struct rtshim_trace tr = { .on = false, .pass = false };
	bool pass = rtshim_trace_wanted() && rtshim_trace_left_alone(&tr, "nice(%d)", inc);
	errno = 0;
	r = real(inc);
	if (r == -1 && errno != 0) {
		err = errno;
		if (err == EPERM && !pass) {
			/* glibc's nice(): getpriority + setpriority(PRIO_PROCESS, 0) on the calling
			 * thread, EACCES reported as EPERM */
			errno = 0;
			int cur = getpriority(PRIO_PROCESS, 0);
			if (!(cur == -1 && errno)) {
				int step = inc < -40 ? -40 : inc;
				if (nice_request(PRIO_PROCESS, 0, cur + step) == 0) {
					err = 0;
					r = getpriority(PRIO_PROCESS, 0);
				}
			}
		}
	}
	rtshim_trace_end(&tr, err);
	rtshim_hook_leave(&h, err);
	return err ? -1 : r;
}
