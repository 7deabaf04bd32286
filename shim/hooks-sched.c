/* hooks-sched.c — the sched_* interposers.  Each one: resolve, guard, decide, call. */
#include "hooks.h"
#include "runaway.h"

RTSHIM_EXPORT int sched_setscheduler(pid_t pid, int policy, const struct sched_param *param)
{
	struct rtshim_hook h;
	if (!rtshim_hook_enter(&h))
		return rtshim_real_sched_setscheduler()(pid, policy, param);
	struct rtshim_req r = {
		.kind = RTSHIM_REQ_SCHED_SETSCHEDULER, .pid = pid, .policy = policy, .param = param,
	};
	return rtshim_hook_return(&h, rtshim_request(&r));
}

RTSHIM_EXPORT int sched_setparam(pid_t pid, const struct sched_param *param)
{
	struct rtshim_hook h;
	if (!rtshim_hook_enter(&h))
		return rtshim_real_sched_setparam()(pid, param);
	struct rtshim_req r = { .kind = RTSHIM_REQ_SCHED_SETPARAM, .pid = pid, .param = param };
	return rtshim_hook_return(&h, rtshim_request(&r));
}

/* gcc checks that an alias has its target's attributes (-Wmissing-attributes) and copies them
 * with copy(); clang (the cross builds) has no copy() and no such check. */
#if __has_attribute(copy)
#define SAME_ATTRIBUTES(f) copy(f)
#else
#define SAME_ATTRIBUTES(f)
#endif

/* The way in for syscall(SYS_sched_setscheduler/SYS_sched_setparam) (hooks-syscall.c): these
 * interposers themselves, bound here, not whatever comes first under their exported names. */
extern __typeof(sched_setscheduler) rtshim_sched_setscheduler
	__attribute__((alias("sched_setscheduler"), SAME_ATTRIBUTES(sched_setscheduler), visibility("hidden")));
extern __typeof(sched_setparam) rtshim_sched_setparam
	__attribute__((alias("sched_setparam"), SAME_ATTRIBUTES(sched_setparam), visibility("hidden")));

RTSHIM_EXPORT int sched_getscheduler(pid_t pid)
{
	struct rtshim_hook h;
	int policy = rtshim_real_sched_getscheduler()(pid);
	if (policy < 0 || (pid == 0 && !(policy & SCHED_RESET_ON_FORK)) || !rtshim_hook_enter(&h))
		return policy;
	/* another thread of ours with its own RT request in flight (rtkit): its outcome */
	if (pid != 0 && rtshim_registry_wait_settled(false, 0, pid, rtshim_cfg()->timeout_ms) > 0) {
		int now = rtshim_real_sched_getscheduler()(pid);
		if (now >= 0)
			policy = now;
	}
	policy = rtshim_policy_reported(policy, rtshim_flags_by_pid(pid));
	rtshim_hook_leave(&h, 0);
	return policy;
}

/* The priority a successful request asked, where the thread is realtime at another
 * (DESIGN.md rule 6). */
RTSHIM_EXPORT int sched_getparam(pid_t pid, struct sched_param *param)
{
	struct rtshim_hook h;
	int r = rtshim_real_sched_getparam()(pid, param);
	if (r < 0 || (pid == 0 && !rtshim_registry_asked_prio_ever()) || !rtshim_hook_enter(&h))
		return r;
	struct sched_param now;
	/* another thread of ours with its own RT request in flight (rtkit): its outcome */
	if (pid != 0 && rtshim_registry_wait_settled(false, 0, pid, rtshim_cfg()->timeout_ms) > 0 &&
	    rtshim_real_sched_getparam()(pid, &now) == 0)
		*param = now;
	int policy = rtshim_real_sched_getscheduler()(pid);
	param->sched_priority = rtshim_prio_reported(policy, param->sched_priority, rtshim_flags_by_pid(pid));
	rtshim_hook_leave(&h, 0);
	return 0;
}

/* The way in for syscall(SYS_sched_getscheduler/SYS_sched_getparam) (hooks-syscall.c), as above. */
extern __typeof(sched_getscheduler) rtshim_sched_getscheduler
	__attribute__((alias("sched_getscheduler"), SAME_ATTRIBUTES(sched_getscheduler), visibility("hidden")));
extern __typeof(sched_getparam) rtshim_sched_getparam
	__attribute__((alias("sched_getparam"), SAME_ATTRIBUTES(sched_getparam), visibility("hidden")));
