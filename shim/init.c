/* init.c — what the shim does before any request: every next definition resolved (real.h), the
 * fork handlers, and a program that starts realtime put under the runaway guard.  The shim's
 * constructor is here; hooks work before it runs (a library's constructor may call them
 * first). */
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hooks.h"
#include "log.h"
#include "own-stack.h"
#include "runaway.h"
#include "trace.h"
#include "raw-rlimit.h"

/* Every real function, resolved now: a request must never need the dynamic loader's lock
 * (dlsym takes it), which a library constructor run by dlopen holds while it waits for the
 * requesting thread.  From the shim's constructor; lazy resolution stays the fallback for hooks
 * called before it. */
static void resolve_all(void)
{
	rtshim_resolve_real();
	rtshim_resolve_nice();
	rtshim_resolve_syscall();
	rtshim_resolve_signal(); /* the guard's interposers */
	rtshim_resolve_rlimit();
	rtshim_resolve_exec();
	rtshim_own_stack_resolve();
}

/* A program that starts with its main thread realtime and a finite hard RLIMIT_RTTIME (rtrun -p,
 * exec from a realtime thread) arms the guard and lowers the soft limit, as a grant would
 * (RTSHIM_RUNAWAY=demote); one system call when the thread is not realtime. */
static void adopt_realtime_start(void)
{
	int pol = (int)rtshim_raw_syscall(SYS_sched_getscheduler, 0L);
	if (pol < 0)
		return;
	if (!rtshim_is_rt(pol))
		return; /* every program that does not start realtime: nothing more */
	struct rlimit rl;
	if (rtshim_raw_prlimit(0, RLIMIT_RTTIME, NULL, &rl) < 0 || rl.rlim_max == RLIM_INFINITY || rl.rlim_max == 0)
		return; /* no hard limit: the kernel kills nothing */
	const struct rtshim_config *c = rtshim_cfg_at_start();
	if (c->disabled || c->runaway != RTSHIM_RUNAWAY_DEMOTE)
		return;
	rlim_t gs = rtshim_runaway_soft(rl.rlim_cur, rl.rlim_max);
	struct rtshim_hook h;
	if (!rtshim_hook_enter(&h)) /* the shim's own setrlimit, not the program's (hooks-rlimit.c) */
		return;
	if (rtshim_runaway_arm(gs) == 0) {
		rtshim_runaway_take_signal(); /* the main thread: the only one, no guard thread */
		if (gs < rl.rlim_cur) {
			rl.rlim_cur = gs;
			rtshim_raw_prlimit(0, RLIMIT_RTTIME, &rl, NULL);
		}
	}
	rtshim_hook_leave(&h, 0);
	rtshim_log(RTSHIM_LOG_DEBUG, "runaway guard: the program started realtime: guard armed, RLIMIT_RTTIME %llu/%llu",
		   (unsigned long long)rl.rlim_cur, (unsigned long long)rl.rlim_max);
}

/* The constructor: the real functions resolved, the trace's unwinder when asked, the fork
 * handlers, the guard for a program that started realtime.  No thread is recorded: other
 * threads name one by its pthread_t, whose TID glibc knows. */
__attribute__((constructor)) static void rtshim_init(void)
{
	rtshim_log_init();
	resolve_all(); /* in secure execution too: its hooks call the real functions */
	if (rtshim_secure_execution())
		return;
	/* the unwinder, while the loader's lock is free; by the variables' presence: the
	 * configuration (and its warnings) is read on the first request, as without them */
	if (getenv("RTSHIM_TRACE") || getenv("RTSHIM_ONLY"))
		rtshim_trace_init();
	rtshim_thread_init();
	adopt_realtime_start(); /* started realtime (rtrun -p): the runaway guard, as after a grant */
}
