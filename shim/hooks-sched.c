/* hooks-sched.c — the sched_* interposers.  Each one: resolve, guard, decide, call. */
#include <errno.h>

#include "hooks.h"
#include "runaway.h"

RTSHIM_EXPORT int sched_setscheduler(pid_t pid, int policy, const struct sched_param *param)
{
	if (!rtshim_enter())
		return rtshim_real_sched_setscheduler()(pid, policy, param);
	int saved = errno;
	struct rtshim_req r = {
		.kind = RTSHIM_REQ_SCHED_SETSCHEDULER, .pid = pid, .policy = policy, .param = param,
	};
	int err = rtshim_request(&r);
	rtshim_leave();
	errno = err ? err : saved;
	return err ? -1 : 0;
}

RTSHIM_EXPORT int sched_setparam(pid_t pid, const struct sched_param *param)
{
	if (!rtshim_enter())
		return rtshim_real_sched_setparam()(pid, param);
	int saved = errno;
	struct rtshim_req r = { .kind = RTSHIM_REQ_SCHED_SETPARAM, .pid = pid, .param = param };
	int err = rtshim_request(&r);
	rtshim_leave();
	errno = err ? err : saved;
	return err ? -1 : 0;
}

RTSHIM_EXPORT int sched_getscheduler(pid_t pid)
{
	int policy = rtshim_real_sched_getscheduler()(pid);
	if (policy < 0 || (pid == 0 && !(policy & SCHED_RESET_ON_FORK)) || !rtshim_enter())
		return policy;
	int saved = errno;
	/* another thread of ours with its own RT request in flight (rtkit): its outcome */
	if (pid != 0 && rtshim_registry_wait_settled(false, 0, pid, rtshim_cfg()->timeout_ms) > 0) {
		int now = rtshim_real_sched_getscheduler()(pid);
		if (now >= 0)
			policy = now;
	}
	policy = rtshim_policy_reported(policy, rtshim_flags_by_pid(pid));
	rtshim_leave();
	errno = saved;
	return policy;
}
