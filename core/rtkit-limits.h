/* rtkit-limits.h — rtkit's three limits, as the decision core reads them: a type of the core's
 * own, so that the core depends on nothing (the daemon client fills it: rtkit-client.h). */
#ifndef RTSHIM_RTKIT_LIMITS_H
#define RTSHIM_RTKIT_LIMITS_H

#include <stdint.h>

struct rtkit_limits {
	int32_t max_realtime_priority; /* MaxRealtimePriority, rtkit default 20 */
	int32_t min_nice_level;        /* MinNiceLevel, rtkit default -15 */
	int64_t rttime_usec_max;       /* RTTimeUSecMax, rtkit default 200000 */
};

#endif
