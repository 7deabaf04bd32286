/* privileged.h — rule 1, the privileged path, inline in each interposer: the call exactly as
 * asked, and when the kernel grants it, nothing else to do in the common case (a root or
 * RLIMIT_RTPRIO thread with nothing configured).  It is measured against the bare system call
 * (scripts/bench, callgrind): inline, the request's kind is a constant and its switch folds
 * away.  Anything configured, and every refusal, goes on in request.c. */
#ifndef RTSHIM_PRIVILEGED_H
#define RTSHIM_PRIVILEGED_H

#include <errno.h>
#include <pthread.h>

#include "real.h"
#include "request.h"
#include "settings.h"
#include "thread.h"

static inline bool rtshim_req_has_policy(const struct rtshim_req *r)
{
	return r->kind == RTSHIM_REQ_SCHED_SETSCHEDULER || r->kind == RTSHIM_REQ_PTHREAD_SETSCHEDPARAM;
}

static inline bool rtshim_req_about_pthread(const struct rtshim_req *r)
{
	return r->kind == RTSHIM_REQ_PTHREAD_SETSCHEDPARAM || r->kind == RTSHIM_REQ_PTHREAD_SETSCHEDPRIO;
}

/* The real call with `policy` in place of the program's: 0 or a negative errno. */
static inline int rtshim_req_real_call(const struct rtshim_req *r, int policy)
{
	const struct sched_param *p = r->param;
	switch (r->kind) {
	case RTSHIM_REQ_SCHED_SETSCHEDULER:
		return rtshim_real_sched_setscheduler()(r->pid, policy, p) == -1 ? -errno : 0;
	case RTSHIM_REQ_SCHED_SETPARAM:
		return rtshim_real_sched_setparam()(r->pid, p) == -1 ? -errno : 0;
	case RTSHIM_REQ_PTHREAD_SETSCHEDPARAM:
		return -rtshim_real_pthread_setschedparam()(r->thread, policy, p);
	case RTSHIM_REQ_PTHREAD_SETSCHEDPRIO:
		return -rtshim_real_pthread_setschedprio()(r->thread, p->sched_priority);
	}
	return -EINVAL;
}

/* The privileged path's record.  The caller's own thread with the flag not in play and no
 * record that says otherwise (the common case: root's threads) has nothing to write. */
static inline void rtshim_record_direct(const struct rtshim_req *r, enum rtshim_flag_owner owner)
{
	/* UNTOUCHED (no policy), by its sign: 1 instruction less than ==; only an asked priority
	 * the thread no longer has to clear */
	bool untouched = owner < RTSHIM_FLAG_PROGRAMS;
	if (untouched && !rtshim_registry_asked_prio_ever())
		return;
	bool caller = rtshim_req_about_pthread(r) ? pthread_equal(r->thread, pthread_self())
						  : r->pid == 0;
	if (owner != RTSHIM_FLAG_SHIMS && caller &&
	    rtshim_self_has_nothing_to_clear(untouched ? RTSHIM_TF_ASKED_PRIO
						       : RTSHIM_TF_FLAG_ADDED | RTSHIM_TF_ASKED_FIFO |
								 RTSHIM_TF_ASKED_PRIO))
		return;
	rtshim_record_direct_flags(r, owner);
}

/* One request: 0 or a positive errno (request.h). */
static inline int rtshim_request(const struct rtshim_req *r)
{
	if (!rtshim_cfg_plain())
		return rtshim_request_configured(r);
	struct rtshim_direct rule1 = rtshim_direct_as_asked(rtshim_req_has_policy(r), r->policy);
	int direct = rtshim_req_real_call(r, rule1.policy);
	if (direct != 0)
		return rtshim_request_after_refusal(r, direct);
	rtshim_record_direct(r, rule1.flag_owner);
	return 0;
}

#endif
