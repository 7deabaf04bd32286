/* slow-path.h — a request the kernel refused (or a configured one whose call is made),
 * carried on by the decide-and-do loop (core/carry-out.h) with the shim's operations: the
 * target's state, rtkit, RLIMIT_RTTIME, the runaway guard, the thread's record and one log
 * line.  The privileged path (privileged.h) comes here; nothing here calls back into it. */
#ifndef RTSHIM_SLOW_PATH_H
#define RTSHIM_SLOW_PATH_H

#include <sys/types.h>

#include "carry-out.h"

/* The request `r` whose direct call returned `direct` (a negative errno), carried on with the
 * shim's operations on the calling stack (the shim's own: own-stack.h): 0 or the program's
 * positive errno.  *granted: the thread rtkit made realtime (else untouched). */
int rtshim_slow_path(const struct rtshim_req *r, int direct, pid_t *granted);

/* The same with operations `ops` and configuration `cfg` (a unit test's fakes). */
int rtshim_slow_path_with(const struct rtshim_request_ops *ops, const struct rtshim_config *cfg,
			  const struct rtshim_req *r, int direct, pid_t *granted);

#endif
