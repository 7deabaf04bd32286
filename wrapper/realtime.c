/* realtime.c — make one thread realtime exactly as the shim would: the same decision core
 * (core/decide.c) and loop (core/carry-out.c), carried out with system calls and rtrun's
 * client.  Shared by -p, --pid and
 * --check.  Scheduling calls go to the kernel directly (syscall), so a copy of the shim that
 * happens to be preloaded into rtrun itself never stands in between. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "doctor-open.h"
#include "carry-out.h"
#include "decide.h"
#include "raw-rlimit.h"
#include "raw-syscall.h"
#include "rtkit-client.h"
#include "rtkit-usage.h"
#include "rtrun.h"
#include "seccomp.h"

int rtrun_thread_sched(pid_t tid, int *policy, int *priority)
{
	struct sched_param sp = { 0 };
	long p = syscall(SYS_sched_getscheduler, tid);

	if (p < 0 || syscall(SYS_sched_getparam, tid, &sp) < 0)
		return -errno;
	*policy = (int)p;
	*priority = sp.sched_priority;
	return 0;
}

static int set_scheduler(pid_t tid, int policy, int priority)
{
	struct sched_param sp = { .sched_priority = priority };

	return rtshim_raw_syscall(SYS_sched_setscheduler, tid, policy, &sp) < 0 ? -errno : 0;
}

/* ---- rtrun's operations for the decide-and-do loop (core/carry-out.h) ------------------- */

/* The request's call: sched_setscheduler(tid, policy, priority). */
static int real_call(const struct rtshim_req *r, int policy)
{
	return set_scheduler(r->pid, policy, r->param->sched_priority);
}

static bool flag_added(const struct rtshim_req *r, const struct rtshim_request_target *t)
{
	(void)r;
	(void)t;
	return false; /* rtrun keeps no record of the flags it set */
}

static bool other_explicit(pid_t pid)
{
	(void)pid;
	return true; /* rtrun --pid: a person named it */
}

static int get_limits(int timeout_ms, struct rtkit_limits *lim)
{
	(void)timeout_ms; /* rtrun_client_set_timeout_ms, once */
	return rtrun_client()->get_limits(lim);
}

static int make_realtime(pid_t pid, pid_t tid, int prio)
{
	return rtrun_client()->make_realtime(pid, tid, prio);
}

/* The guard is the shim's, in the command: it adopts the soft limit. */
static int arm_guard(rlim_t soft)
{
	(void)soft;
	return 0;
}

static enum rtshim_nice_outcome nice_instead(const struct rtkit_limits *lim, pid_t pid, pid_t tid)
{
	const struct rtshim_client_v1 *c = rtrun_client();

	return c->make_high_priority && c->make_high_priority(pid, tid, lim->min_nice_level) == 0
		       ? RTSHIM_NICE_GOT : RTSHIM_NICE_NOT_GOT;
}

/* rtrun keeps no budget, no thread records and writes its own report. */
static const struct rtshim_request_ops rtrun_ops = {
	.real_call = real_call,
	.read_sched = rtrun_thread_sched,
	.flag_added = flag_added,
	.sandboxed = rtshim_seccomp_filtered, /* rtrun's own process */
	.other_explicit = other_explicit,
	.get_limits = get_limits,
	.make_realtime = make_realtime,
	.get_rttime = rtshim_raw_get_rttime,
	.set_rttime = rtshim_raw_set_rttime,
	.arm_guard = arm_guard,
	.lower = set_scheduler,
	.nice_instead = nice_instead,
};

int rtrun_make_realtime(const struct rtrun_rt_request *req, struct rtrun_rt_result *res)
{
	struct sched_param sp = { .sched_priority = req->priority };
	struct rtshim_req r = { .kind = RTSHIM_REQ_SCHED_SETSCHEDULER, .pid = req->tid,
				.policy = req->policy, .param = &sp };
	struct rtshim_request_target t = {
		.where = req->pid ? RTSHIM_TARGET_OTHER
			 : req->tid == gettid() ? RTSHIM_TARGET_SELF : RTSHIM_TARGET_OWN,
		.tid = req->tid,
		.pid = req->pid,
		.guard_possible = req->guard_in_command,
	};
	struct rtshim_outcome out;
	int direct = set_scheduler(req->tid, rtshim_direct_policy(req->cfg, true, req->policy),
				   req->priority);
	const struct rtshim_decision *d = &out.d;

	rtshim_carry_out(&rtrun_ops, req->cfg, &r, direct, &t, &out);
	memset(res, 0, sizeof *res);
	res->d = *d;
	res->rtkit_max = out.f.lim.max_realtime_priority;
	res->nice = out.nice_got;
	res->priority = d->why == RTSHIM_WHY_DIRECT ? req->priority : d->prio;
	if (d->why == RTSHIM_WHY_ALREADY)
		res->priority = out.f.cur_prio;
	res->how = d->why == RTSHIM_WHY_DIRECT ? "directly"
		   : d->why == RTSHIM_WHY_GRANTED ? "through rtkit"
						 : rtshim_why_text(d->why);
	return -d->program_errno;
}

const char *rtrun_rt_error_text(const struct rtrun_rt_result *res, char *buf, size_t size)
{
	if (res->d.why == RTSHIM_WHY_NO_CLIENT)
		snprintf(buf, size, "the daemon client cannot be loaded: %s", rtrun_client_error());
	else if (res->d.why == RTSHIM_WHY_DIRECT)
		snprintf(buf, size, "sched_setscheduler: %s", strerror(res->d.program_errno));
	else if (res->d.why == RTSHIM_WHY_REFUSED && res->d.why_err == -EBUSY) {
		/* rtkit says "busy" for each of its per-user limits: which one, counted */
		struct rtkit_usage u;

		rtrun_rtkit_usage(&u);
		rtshim_rtkit_limit_text(&u, buf, size);
	} else
		rtshim_why_format(buf, size, &res->d, rtrun_client() ? rtrun_rtkit_strerror : NULL);
	return buf;
}

bool rtrun_have_cap_sys_nice(void)
{
	char line[256];
	unsigned long long eff = 0;
	bool found = false;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return false;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1) {
			found = true;
			break;
		}
	fclose(f);
	return found && (eff & (1ULL << 23)); /* CAP_SYS_NICE */
}
