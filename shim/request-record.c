/* request-record.c — see request-record.h. */
#include <sched.h>

#include "request.h"
#include "request-record.h"
#include "registry.h"
#include "thread.h"

void rtshim_record_update(const struct rtshim_req *r, const struct rtshim_request_target *t,
			  int set, int clear)
{
	if (t->self)
		rtshim_thread_update(t->self, set, clear);
	else if (rtshim_req_about_caller(r)) /* the privileged path: without asking gettid() */
		rtshim_thread_update(rtshim_self_cheap(), set, clear);
	else if (rtshim_req_about_pthread(r))
		rtshim_registry_update(true, r->thread, 0, set, clear);
	else
		rtshim_thread_update_tid(t->tid ? t->tid : r->pid, set, clear);
}

/* The RTSHIM_TF_* flags to set and clear after a success: who put SCHED_RESET_ON_FORK there,
 * whether rtkit made it realtime (RTSHIM_INHERIT), and, for a request with a policy, whether
 * the program asked SCHED_FIFO and has rtkit's SCHED_RR (the readers report what it asked).
 * false: nothing to write (the flag not in play). */
static bool flag_changes(const struct rtshim_req *r, enum rtshim_flag_owner owner, bool granted,
			 bool fifo_as_rr, int *set, int *clear)
{
	if (owner == RTSHIM_FLAG_UNTOUCHED)
		return false;
	bool shims = owner == RTSHIM_FLAG_SHIMS;
	*set = shims ? RTSHIM_TF_FLAG_ADDED : 0;
	*clear = shims ? 0 : RTSHIM_TF_FLAG_ADDED;
	if (granted)
		*set |= RTSHIM_TF_GRANTED;
	if (fifo_as_rr)
		*set |= RTSHIM_TF_ASKED_FIFO;
	else if (rtshim_req_has_policy(r))
		*clear |= RTSHIM_TF_ASKED_FIFO;
	return true;
}

/* The kernel has what the call asked: no asked priority to report any more. */
void rtshim_record_direct_flags(const struct rtshim_req *r, enum rtshim_flag_owner owner)
{
	struct rtshim_request_target t = { .where = RTSHIM_TARGET_UNKNOWN };
	int set = 0, clear = 0;
	flag_changes(r, owner, false, false, &set, &clear);
	rtshim_record_update(r, &t, set, clear | RTSHIM_TF_ASKED_PRIO | RTSHIM_TF_PRIO_BITS);
}

/* The flags, and the priority asked where the thread is realtime at another (rtkit's maximum,
 * the map), which its readers report (DESIGN.md rule 6). */
void rtshim_record_outcome(const struct rtshim_request_ops *ops, const struct rtshim_req *r,
			   const struct rtshim_request_target *t, const struct rtshim_decision *d)
{
	int policy = 0, prio = 0, set = 0, clear = 0;
	bool read = t->tid > 0 && ops->read_sched(t->tid, &policy, &prio) == 0;
	bool fifo_as_rr = rtshim_req_has_policy(r) && (r->policy & ~SCHED_RESET_ON_FORK) == SCHED_FIFO &&
			  read && (policy & ~SCHED_RESET_ON_FORK) == SCHED_RR;
	bool flagged = flag_changes(r, d->flag_owner, d->why == RTSHIM_WHY_GRANTED, fifo_as_rr, &set, &clear);
	if (read) {
		clear |= RTSHIM_TF_ASKED_PRIO | RTSHIM_TF_PRIO_BITS;
		if (rtshim_is_rt(policy) && prio != rtshim_req_prio(r))
			set |= rtshim_asked_prio_flags(rtshim_req_prio(r), prio);
	}
	if (flagged || read)
		ops->update_flags(r, t, set, clear & ~set);
}
