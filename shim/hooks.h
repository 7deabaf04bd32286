/* hooks.h — shared by the files that export interposers (hooks-*.c) and the constructor
 * (init.c): what each of them offers the others, and what they all use (the prologue: enter.h;
 * the next definitions: real.h; the configuration: settings.h; the thread records: thread.h;
 * the target of a request: target.h; the request's entry: privileged.h).  Neither rtrun nor a
 * unit test includes it. */
#ifndef RTSHIM_HOOKS_H
#define RTSHIM_HOOKS_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/types.h>

#include "config.h"
#include "decide.h"
#include "enter.h"
#include "real.h"
#include "registry.h"
#include "settings.h"
#include "target.h"
#include "thread.h"
#include "privileged.h"

#define RTSHIM_EXPORT __attribute__((visibility("default")))

/* hooks-nice.c: resolve its real functions (setpriority, nice) now. */
void rtshim_resolve_nice(void);
/* hooks-syscall.c: the exported syscall() (hooks-syscall-entry.S) hands sched_setscheduler,
 * sched_setparam, sched_setattr and their readers to rtshim_syscall_sched and everything else
 * to rtshim_syscall_next (real.h). */
long rtshim_syscall_sched(long number, long pid, long a2, long a3, long a4);
/* syscall(SYS_rt_sigaction, sig, act, oact, sigsetsize) (hooks-signal.c) */
long rtshim_syscall_sigaction(long number, long sig, long act, long oact, long size);
/* syscall(SYS_rt_sigprocmask, how, set, old, sigsetsize) (hooks-signal.c) */
long rtshim_syscall_sigmask(long number, long how, long set, long old, long size);
/* syscall(SYS_prlimit64, pid, resource, new, old) (hooks-rlimit.c) */
long rtshim_syscall_prlimit(long number, long pid, long resource, long set, long get);
/* hooks-signal.c, hooks-rlimit.c, hooks-exec.c: the guard's interposers' next definitions,
 * resolved from the constructor (the request path reads limits and arms the guard on threads a
 * loader-lock holder may wait for, and dlsym takes that lock). */
void rtshim_resolve_signal(void);
void rtshim_resolve_rlimit(void);
void rtshim_resolve_exec(void);

#endif
