/* realtime.c — make one thread realtime exactly as the shim would: the same decision core
 * (core/decide.c), carried out with system calls and rtrun's client.  Shared by -p, --pid and
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
#include "decide.h"
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

/* rtkit's limits, RLIMIT_RTTIME of the target's process.  rtrun keeps no backoff of its own. */
static const struct rtshim_client_v1 *read_limits(pid_t pid, struct rtshim_facts *f)
{
	const struct rtshim_client_v1 *c = rtrun_client();
	struct rlimit rl;

	f->limits.done = true;
	f->limits.err = c ? c->get_limits(&f->lim) : -ELIBACC;
	if (prlimit(pid, RLIMIT_RTTIME, NULL, &rl) < 0) {
		f->rttime_err = -errno;
	} else {
		f->rttime_soft = rl.rlim_cur;
		f->rttime_hard = rl.rlim_max;
	}
	return c;
}

int rtrun_make_realtime(const struct rtrun_rt_request *req, struct rtrun_rt_result *res)
{
	const struct rtshim_client_v1 *c = NULL;
	struct rtshim_facts f;
	struct rtshim_decision d;
	struct rlimit rl;
	int pol, prio;

	memset(res, 0, sizeof *res);
	rtshim_facts_init(&f, req->cfg, true, req->policy, req->priority);
	for (;;) {
		d = rtshim_decide(&f);
		switch (d.action) {
		case RTSHIM_CALL:
			f.direct.done = true;
			f.direct.err = set_scheduler(req->tid, d.policy, req->priority);
			if (f.direct.err == -EPERM) {
				f.target = req->pid ? RTSHIM_TARGET_OTHER
					   : req->tid == gettid() ? RTSHIM_TARGET_SELF : RTSHIM_TARGET_OWN;
				f.tid = req->tid;
				if (rtrun_thread_sched(req->tid, &f.cur_policy, &f.cur_prio) < 0)
					f.target = RTSHIM_TARGET_UNKNOWN;
				f.guard_possible = req->guard_in_command;
				f.sandboxed = rtshim_seccomp_filtered(); /* rtrun's own process */
				f.other_explicit = true; /* rtrun --pid: a person named it */
			}
			continue;
		case RTSHIM_CALL_KEEPING_FLAG:
			f.keeping_flag.done = true;
			f.keeping_flag.err = set_scheduler(req->tid, d.policy, req->priority);
			continue;
		case RTSHIM_READ_LIMITS:
			c = read_limits(req->pid, &f);
			res->rtkit_max = f.lim.max_realtime_priority;
			continue;
		case RTSHIM_LOWER:
			f.lowered.done = true;
			f.lowered.err = set_scheduler(req->tid, d.policy, d.prio);
			continue;
		case RTSHIM_ASK_RTKIT:
			/* arm_guard: the guard is the shim's, in the command (it adopts the soft limit) */
			if (d.set_rttime) {
				rl.rlim_cur = d.soft;
				rl.rlim_max = d.hard;
				f.rttime_set.done = true;
				f.rttime_set.err = prlimit(req->pid, RLIMIT_RTTIME, &rl, NULL) < 0 ? -errno : 0;
				if (f.rttime_set.err)
					continue;
			}
			f.rtkit.done = true;
			f.rtkit.err = c->make_realtime(req->pid, req->tid, d.prio);
			/* rtkit answered after the timeout: the kernel has the grant */
			if (f.rtkit.err == -ETIMEDOUT && rtrun_thread_sched(req->tid, &pol, &prio) == 0 &&
			    rtshim_is_rt(pol) && prio == d.prio)
				f.rtkit.err = 0;
			continue;
		case RTSHIM_ASK_NICE:
			if (c && c->make_high_priority)
				res->nice = c->make_high_priority(req->pid, req->tid, f.lim.min_nice_level) == 0;
			break;
		case RTSHIM_DONE:
			break;
		}
		break;
	}
	res->d = d;
	res->priority = d.why == RTSHIM_WHY_DIRECT ? req->priority : d.prio;
	if (d.why == RTSHIM_WHY_ALREADY)
		res->priority = f.cur_prio;
	res->how = d.why == RTSHIM_WHY_DIRECT ? "directly"
		   : d.why == RTSHIM_WHY_GRANTED ? "through rtkit"
						 : rtshim_why_text(d.why);
	return -d.program_errno;
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
