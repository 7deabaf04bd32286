/* hooks-nice.c — nice levels through rtkit (MakeThreadHighPriority):
 *  - setpriority(PRIO_PROCESS, who, negative) and nice(negative) that the kernel refuses with
 *    EACCES (nice: EPERM) are forwarded for that one thread, clamped to rtkit's MinNiceLevel;
 *  - RTSHIM_NICE_FALLBACK: a thread that cannot have realtime gets MinNiceLevel instead (the
 *    realtime call still fails as it would without rtshim).
 * On Linux, setpriority(PRIO_PROCESS, who) and nice() act on one thread (who 0 = the caller;
 * who = a TID, the main thread's TID being the PID), which is exactly what rtkit changes. */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "budget.h"
#include "client-loader.h"
#include "own-stack.h"
#include "hooks.h"
#include "log.h"
#include "trace.h"

typedef int setpriority_fn(__priority_which_t, id_t, int);
typedef int nice_fn(int);

static void *next_symbol(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

static setpriority_fn *real_setpriority(void)
{
	static setpriority_fn *ptr;
	setpriority_fn *f = __atomic_load_n(&ptr, __ATOMIC_ACQUIRE);
	if (!f) {
		f = (setpriority_fn *)next_symbol("setpriority");
		__atomic_store_n(&ptr, f, __ATOMIC_RELEASE);
	}
	return f;
}

static nice_fn *real_nice(void)
{
	static nice_fn *ptr;
	nice_fn *f = __atomic_load_n(&ptr, __ATOMIC_ACQUIRE);
	if (!f) {
		f = (nice_fn *)next_symbol("nice");
		__atomic_store_n(&ptr, f, __ATOMIC_RELEASE);
	}
	return f;
}

void rtshim_resolve_nice(void)
{
	real_setpriority();
	real_nice();
}

/* Without a next definition (never seen with glibc): the system call. */
static int sys_setpriority(int which, id_t who, int prio)
{
	setpriority_fn *f = real_setpriority();
	if (f)
		return f(which, who, prio);
	return (int)syscall(SYS_setpriority, which, who, prio);
}

/* The thread now carries SCHED_RESET_ON_FORK because of rtkit: readers hide it. */
static void mark_shim_flag(pid_t tid, int old_policy)
{
	if (!(old_policy & SCHED_RESET_ON_FORK)) /* else the program's own flag */
		rtshim_thread_update_tid(tid, RTSHIM_TF_FLAG_ADDED, 0);
}

/* Ask rtkit to set thread `tid` of process `pid` (0: this one) to nice `want` as the core's
 * rules 11-14 decide (core/decide.c).  0 done (or nothing better to get), 1 not asked (an RT
 * thread, which MakeThreadHighPriority would demote), or rtkit's negative errno. */
static int ask_nice(const struct rtshim_client_v1 *client, const struct rtkit_limits *lim,
		    pid_t pid, pid_t tid, int want, const char *why)
{
	struct rtshim_nice_facts f = { .want = want, .min_nice_level = lim->min_nice_level };
	int policy = rtshim_real_sched_getscheduler()(tid);
	if (policy < 0)
		return -errno;
	f.cur_policy = policy;
	errno = 0;
	f.cur_nice = getpriority(PRIO_PROCESS, (id_t)tid);
	if (f.cur_nice == -1 && errno)
		f.cur_err = -errno;
	f.held_err = rtshim_budget_check(RTSHIM_BUDGET_NICE, NULL);
	struct rtshim_nice_decision d = rtshim_decide_nice(&f);
	int send = d.send, e;
	switch (d.step) {
	case RTSHIM_NICE_SKIP_RT:
		return 1;
	case RTSHIM_NICE_FAILED:
		return d.err;
	case RTSHIM_NICE_ALREADY:
		rtshim_log(RTSHIM_LOG_INFO, "thread %d: nice %d %s → already nice %d (rtkit's MinNiceLevel %d), rtkit not asked",
			   (int)tid, want, why, f.cur_nice, (int)lim->min_nice_level);
		return 0;
	case RTSHIM_NICE_HELD:
		rtshim_log(RTSHIM_LOG_INFO, "thread %d: nice %d %s → not sent: rtkit refused a moment ago",
			   (int)tid, want, why);
		return d.err;
	case RTSHIM_NICE_ASK:
		break;
	}
	e = client->make_high_priority ? client->make_high_priority(pid, tid, send) : -ENOSYS;
	rtshim_budget_record(RTSHIM_BUDGET_NICE, e);
	if (e < 0) {
		/* the level is within MinNiceLevel: an EPERM is rtkit's policy (polkit) saying no */
		const char *text = e == -EPERM ? "rtkit refused: polkit does not allow a nice level for this session"
					       : client->strerror(e);
		/* the fallback is a bonus: its failure is no warning */
		if (strcmp(why, "requested") == 0)
			rtshim_log_once(RTSHIM_LOG_WARN, e, "the nice level was not granted (%d sent): %s; the call fails as it would without rtshim (rtrun --check tells more)",
					send, text);
		rtshim_log(RTSHIM_LOG_INFO, "thread %d: nice %d %s → %s", (int)tid, want, why, text);
		return e;
	}
	mark_shim_flag(tid, policy);
	rtshim_log(RTSHIM_LOG_INFO, "thread %d: nice %d %s → rtkit nice %d%s", (int)tid, want, why,
		   send, d.clamped ? " (clamped to MinNiceLevel)" : "");
	return 0;
}

enum rtshim_nice_outcome rtshim_nice_instead(const struct rtshim_client_v1 *client,
					     const struct rtkit_limits *lim, pid_t pid, pid_t tid)
{
	if (rtshim_cfg()->nice_fallback == RTSHIM_NICE_OFF)
		return RTSHIM_NICE_NOT_ASKED;
	int e = ask_nice(client, lim, pid, tid, lim->min_nice_level,
			 "(RTSHIM_NICE_FALLBACK: no realtime; the call still fails)");
	return e == 0 ? RTSHIM_NICE_GOT : e == 1 ? RTSHIM_NICE_NOT_ASKED : RTSHIM_NICE_NOT_GOT;
}

/* A nice level the kernel refused, for rtkit to set: the thread, the level, the kernel's error. */
struct nice_ask {
	pid_t pid, tid;
	int prio, err;
};

/* On the shim's own stack (own-stack.h): the client, rtkit's limits and the request. */
static int ask_rtkit_nice(void *arg)
{
	const struct nice_ask *n = arg;
	const struct rtshim_config *c = rtshim_cfg();
	const struct rtshim_client_v1 *client = rtshim_client_get(c->timeout_ms);
	if (!client)
		return n->err;
	struct rtkit_limits lim;
	int e = client->get_limits(&lim);
	if (e < 0) {
		rtshim_log_once(RTSHIM_LOG_WARN, e, "cannot reach rtkit (%s): the nice level stays as it is",
				client->strerror(e));
		return n->err;
	}
	return ask_nice(client, &lim, n->pid, n->tid, n->prio, "requested") == 0 ? 0 : n->err;
}

/* setpriority's request: 0 or the errno the program sees. */
static int nice_request(int which, id_t who, int prio)
{
	int err = sys_setpriority(which, who, prio) == -1 ? errno : 0;
	if (err != EACCES || which != PRIO_PROCESS)
		return err;

	/* which thread: ours (who 0, our TID, another thread of ours), or another process's
	 * thread whose process belongs to us (WithPID); anything else keeps the kernel's answer */
	struct nice_ask n = { .prio = prio, .err = err };
	if (who > INT_MAX || rtshim_target_of_tid((pid_t)who, &n.tid, &n.pid) == RTSHIM_TARGET_UNKNOWN)
		return err;
	return rtshim_own_stack_run(ask_rtkit_nice, &n);
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
	if (prio >= 0 || !rtshim_enter())
		return sys_setpriority(which, who, prio);
	int saved = errno, err;
	struct rtshim_trace tr = { .on = false, .pass = false };
	if (rtshim_trace_wanted() &&
	    rtshim_trace_begin(&tr, "setpriority(%s, %u, %d)", which_name(which), (unsigned)who, prio))
		err = sys_setpriority(which, who, prio) == -1 ? errno : 0;
	else
		err = nice_request(which, who, prio);
	rtshim_trace_end(&tr, err);
	rtshim_leave();
	errno = err ? err : saved;
	return err ? -1 : 0;
}

RTSHIM_EXPORT int nice(int inc)
{
	nice_fn *real = real_nice();
	if (inc >= 0 || !real || !rtshim_enter())
		return real ? real(inc) : (errno = ENOSYS, -1);
	int saved = errno, err = 0, r;
	struct rtshim_trace tr = { .on = false, .pass = false };
	bool pass = rtshim_trace_wanted() && rtshim_trace_begin(&tr, "nice(%d)", inc);
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
	rtshim_leave();
	errno = err ? err : saved;
	return err ? -1 : r;
}
