/* privileged.h — DESIGN.md rule 1, the privileged path, inline in each interposer: the call
 * exactly as asked, and when the kernel grants it, nothing else to do in the common case (a
 * root or RLIMIT_RTPRIO thread with nothing configured).  It is measured against the bare
 * system call (scripts/bench, callgrind): inline, the request's kind is a constant and its
 * switch folds away.  Anything configured, and every refusal, goes on out of line
 * (privileged.c), a refusal to the slow path (slow-path.h). */
#ifndef RTSHIM_PRIVILEGED_H
#define RTSHIM_PRIVILEGED_H

#include <pthread.h>

#include "request.h"
#include "request-record.h"
#include "settings.h"
#include "thread.h"

/* The request made with something configured: 0 or a positive errno (privileged.c). */
int rtshim_request_configured(const struct rtshim_req *r);
/* The plain request's call refused with `direct` (a negative errno): 0 or a positive errno
 * (privileged.c). */
int rtshim_request_refused(const struct rtshim_req *r, int direct);

/* The privileged path's record.  The caller's own thread with the flag not in play and no
 * record that says otherwise (the common case: root's threads) has nothing to write. */
static inline void rtshim_record_direct(const struct rtshim_req *r, enum rtshim_flag_owner owner)
{
	/* UNTOUCHED (no policy), by its sign: 1 instruction less than ==; only an asked priority
	 * the thread no longer has to clear */
	bool untouched = owner < RTSHIM_FLAG_PROGRAMS;
	if (untouched && !rtshim_registry_asked_prio_ever())
		return;
	if (owner != RTSHIM_FLAG_SHIMS && rtshim_req_about_caller(r) &&
	    rtshim_self_has_nothing_to_clear(untouched ? RTSHIM_TF_ASKED_PRIO
						       : RTSHIM_TF_FLAG_ADDED | RTSHIM_TF_ASKED_FIFO |
								 RTSHIM_TF_ASKED_PRIO))
		return;
	rtshim_record_direct_flags(r, owner);
}

/* One request, the entry of every scheduling interposer: 0 or a positive errno, exactly the
 * unshimmed call's error when the shim could not do better. */
static inline int rtshim_request(const struct rtshim_req *r)
{
	if (!rtshim_cfg_plain())
		return rtshim_request_configured(r);
	struct rtshim_direct rule1 = rtshim_direct_as_asked(rtshim_req_has_policy(r), r->policy);
	int direct = rtshim_req_real_call(r, rule1.policy);
	if (direct != 0)
		return rtshim_request_refused(r, direct);
	rtshim_record_direct(r, rule1.flag_owner);
	return 0;
}

#endif
