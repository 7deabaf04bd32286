/* rttime.c — see rttime.h. */
#include "rttime.h"

#include <errno.h>

int rtshim_rttime_plan(rlim_t soft, rlim_t hard, int64_t configured_us, int64_t daemon_max_us,
		       rlim_t *new_soft, rlim_t *new_hard)
{
	if (hard == 0 || soft == 0)
		return -EPERM;
	if (configured_us <= 0)
		return -EPERM;
	rlim_t target = (rlim_t)configured_us;
	rlim_t ceiling = daemon_max_us > 0 ? (rlim_t)daemon_max_us : target;
	if (target > ceiling)
		target = ceiling;

	if (hard != RLIM_INFINITY && hard <= ceiling) {
		*new_soft = soft;
		*new_hard = hard;
		return RTSHIM_RTTIME_OK;
	}
	/* hard is unlimited or above the daemon's max, hence above target: lowering only */
	*new_hard = target;
	*new_soft = soft < target ? soft : target;
	return RTSHIM_RTTIME_LOWER;
}

rlim_t rtshim_runaway_soft(rlim_t soft, rlim_t hard)
{
	if (hard == RLIM_INFINITY || hard == 0)
		return soft;
	rlim_t want = hard / 100 * RTSHIM_RUNAWAY_SOFT_PERCENT + hard % 100 * RTSHIM_RUNAWAY_SOFT_PERCENT / 100;
	if (want == 0)
		want = 1;
	return soft < want ? soft : want;
}
