/* nice.h — nice levels from rtkit (MakeThreadHighPriority), as the core's rtshim(7) rules 11-14
 * decide: for a nice level the kernel refused (hooks-nice.c) and for RTSHIM_NICE_FALLBACK, a thread
 * that cannot have realtime (slow-path.c). */
#ifndef RTSHIM_NICE_H
#define RTSHIM_NICE_H

#include <sys/types.h>

#include "carry-out.h"

/* RTSHIM_NICE_FALLBACK: realtime could not be had for thread `tid` of process `pid` (0: this
 * one); ask rtkit for MinNiceLevel instead.  Logs at info what it did. */
enum rtshim_nice_outcome rtshim_nice_instead(const struct rtkit_limits *lim, pid_t pid, pid_t tid);

/* A nice level the kernel refused, for rtkit to set: the thread, the level, the kernel's error. */
struct rtshim_nice_ask {
	pid_t pid, tid;
	int prio, err;
};

/* Run on the shim's own stack (rtshim_own_stack_run, arg: struct rtshim_nice_ask): the client,
 * rtkit's limits and the request; 0 or the kernel's error to keep. */
int rtshim_nice_ask_rtkit(void *arg);

#endif
