/* realtime.c — make one thread realtime the way the shim would: the direct call first, then
 * rtkit (RLIMIT_RTTIME bounded, priority mapped into rtkit's range).  Shared by -p, --pid and
 * --check.  Scheduling calls go to the kernel directly (syscall), so a copy of the shim that
 * happens to be preloaded into rtrun itself never stands in between. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "config.h"
#include "prio.h"
#include "client-open.h"
#include "rtkit-client.h"
#include "rtrun.h"
#include "rttime.h"

int rtrun_bound_rttime(pid_t pid, int64_t configured_us, int64_t daemon_max_us,
		       unsigned long long *hard_out)
{
	struct rlimit old, lim;
	rlim_t soft, hard;
	int r;

	if (prlimit(pid, RLIMIT_RTTIME, NULL, &old) < 0)
		return -errno;
	r = rtshim_rttime_plan(old.rlim_cur, old.rlim_max, configured_us, daemon_max_us, &soft,
			       &hard);
	if (r < 0)
		return -EDOM; /* a limit of 0: no acceptable limit without raising it */
	if (r == RTSHIM_RTTIME_LOWER) {
		lim.rlim_cur = soft;
		lim.rlim_max = hard;
		if (prlimit(pid, RLIMIT_RTTIME, &lim, NULL) < 0)
			return -errno;
	}
	if (hard_out)
		*hard_out = hard;
	return 0;
}

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

int rtrun_make_realtime(const struct rtrun_rt_request *req, struct rtrun_rt_result *res)
{
	struct sched_param sp = { .sched_priority = req->priority };
	int policy = req->policy | (req->reset_on_fork ? SCHED_RESET_ON_FORK : 0);
	const struct rtshim_client_v1 *c;
	struct rtkit_limits lim;
	struct rtshim_prio_map map = { .mode = req->prio_map, .top = req->prio_top };
	bool changed = false;
	int r, prio;

	res->how = NULL;
	res->priority = 0;
	res->clamped = false;
	res->rtkit_max = 0;
	res->failed_call = NULL;

	/* Privileged path first: RLIMIT_RTPRIO or CAP_SYS_NICE gets exactly what was asked. */
	if (syscall(SYS_sched_setscheduler, req->tid, policy, &sp) == 0) {
		res->how = "directly";
		res->priority = req->priority;
		return 0;
	}
	if (errno != EPERM) {
		res->failed_call = "sched_setscheduler";
		return -errno;
	}

	/* Only now is the daemon client needed. */
	c = rtrun_client();
	if (!c) {
		res->failed_call = "loading " RTSHIM_CLIENT_FILE;
		return -RTRUN_ENOCLIENT;
	}
	r = c->get_limits(&lim);
	if (r < 0) {
		res->failed_call = "rtkit (reading MaxRealtimePriority, RTTimeUSecMax)";
		return r;
	}
	res->rtkit_max = lim.max_realtime_priority;
	map.max_prio = lim.max_realtime_priority;
	prio = rtshim_prio_map(&map, req->priority, &changed);
	if (prio < 0) {
		res->failed_call = "priority mapping";
		return prio;
	}
	res->clamped = changed;
	if (changed && req->strict) {
		res->failed_call = "--strict";
		return -ERANGE;
	}

	r = rtrun_bound_rttime(req->pid, req->rttime_us, lim.rttime_usec_max, NULL);
	if (r < 0) {
		res->failed_call = r == -EDOM ? "bounding RLIMIT_RTTIME"
			: req->pid ? "prlimit(RLIMIT_RTTIME)" : "setrlimit(RLIMIT_RTTIME)";
		return r;
	}

	r = c->make_realtime(req->pid, req->tid, prio);
	if (r < 0) {
		res->failed_call = req->pid ? "rtkit MakeThreadRealtimeWithPID"
					    : "rtkit MakeThreadRealtime";
		return r;
	}
	res->how = "through rtkit";
	res->priority = prio;
	return 0;
}

const char *rtrun_rt_error_text(const struct rtrun_rt_result *res, int r)
{
	if (r == -RTRUN_ENOCLIENT ||
	    (res->failed_call && !strncmp(res->failed_call, "rtkit", 5)))
		return rtrun_rtkit_strerror(r);
	if (r == -ERANGE && res->failed_call && !strcmp(res->failed_call, "--strict"))
		return "the priority is above rtkit's maximum and --strict forbids another one";
	if (r == -EDOM)
		return "RLIMIT_RTTIME is 0, so the kernel would kill a realtime thread at once";
	return strerror(-r);
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
