/* nice.c — see nice.h.  On Linux, setpriority(PRIO_PROCESS, who) acts on one thread (who 0 = the
 * caller; who = a TID), which is exactly what rtkit's MakeThreadHighPriority changes. */
#include "nice.h"

#include <errno.h>
#include <string.h>
#include <sys/resource.h>

#include "budget.h"
#include "client.h"
#include "decide.h"
#include "log.h"
#include "real.h"
#include "settings.h"
#include "thread.h"

/* Ask rtkit to set thread `tid` of process `pid` (0: this one) to nice `want` as the core's
 * rtshim(7) rules 11-14 decide (core/decide.c).  0 done (or nothing better to get), 1 not asked (an
 * RT thread, which MakeThreadHighPriority would demote), or rtkit's negative errno. */
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
	/* one request to rtkit at a time: a refusal heard meanwhile is not asked again */
	e = rtshim_budget_begin(RTSHIM_BUDGET_NICE, rtshim_cfg()->timeout_ms);
	if (e < 0) {
		rtshim_log(RTSHIM_LOG_INFO, "thread %d: nice %d %s → not sent: %s", (int)tid, want,
			   why, e == -ETIMEDOUT ? "another request to rtkit is still at work"
						: "rtkit refused a moment ago");
		return e;
	}
	e = client->make_high_priority ? client->make_high_priority(pid, tid, send) : -ENOSYS;
	rtshim_budget_record(RTSHIM_BUDGET_NICE, e);
	rtshim_budget_end();
	if (e == -ETIMEDOUT)
		rtshim_thread_flag_ours(tid, policy);
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
	rtshim_thread_flag_ours(tid, policy);
	rtshim_log(RTSHIM_LOG_INFO, "thread %d: nice %d %s → rtkit nice %d%s", (int)tid, want, why,
		   send, d.clamped ? " (clamped to MinNiceLevel)" : "");
	return 0;
}

enum rtshim_nice_outcome rtshim_nice_instead(const struct rtkit_limits *lim, pid_t pid, pid_t tid)
{
	if (rtshim_cfg()->nice_fallback == RTSHIM_NICE_OFF)
		return RTSHIM_NICE_NOT_ASKED;
	int e = ask_nice(&rtshim_client_v1, lim, pid, tid, lim->min_nice_level,
			 "(RTSHIM_NICE_FALLBACK: no realtime; the call still fails)");
	return e == 0 ? RTSHIM_NICE_GOT : e == 1 ? RTSHIM_NICE_NOT_ASKED : RTSHIM_NICE_NOT_GOT;
}

/* On the shim's own stack (own-stack.h): the client, rtkit's limits and the request. */
int rtshim_nice_ask_rtkit(void *arg)
{
	const struct rtshim_nice_ask *n = arg;
	const struct rtshim_config *c = rtshim_cfg();
	/* rtshim(7) rule 21: a sandbox's filter may kill what the client does; switched off: nothing */
	if (c->disabled || rtshim_client_filtered_out(c->timeout_ms))
		return n->err;
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
