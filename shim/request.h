/* request.h — one scheduling request in the shim (the struct: core/carry-out.h) and its real
 * call, which the privileged path (privileged.h) makes first and the slow path
 * (slow-path.h) again with SCHED_RESET_ON_FORK kept. */
#ifndef RTSHIM_REQUEST_H
#define RTSHIM_REQUEST_H

#include <errno.h>
#include <pthread.h>

#include "carry-out.h"
#include "real.h"

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

/* Is the request about the calling thread? */
static inline bool rtshim_req_about_caller(const struct rtshim_req *r)
{
	return rtshim_req_about_pthread(r) ? pthread_equal(r->thread, pthread_self()) : r->pid == 0;
}

#endif
