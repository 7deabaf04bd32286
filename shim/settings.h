/* settings.h — the shim's configuration (core/config.c), read from the environment on first use
 * and its bad values said once. */
#ifndef RTSHIM_SETTINGS_H
#define RTSHIM_SETTINGS_H

#include <stdbool.h>

#include "config.h"

/* The configuration, loaded on first use. */
const struct rtshim_config *rtshim_cfg(void);

/* The same, read by the constructor for a program that started realtime (its bad values were
 * said by whoever made it realtime: rtrun -p, or the shim of an earlier image). */
const struct rtshim_config *rtshim_cfg_at_start(void);

/* The configuration is loaded and asks nothing of a request the kernel grants: rule 1 as asked
 * (rtshim_direct_is_as_asked), no RTSHIM_TRACE or RTSHIM_ONLY, the log level below "info". */
bool rtshim_cfg_plain(void);

/* Is a stack wanted (RTSHIM_TRACE or RTSHIM_ONLY set) by this configuration? */
static inline bool rtshim_trace_wanted_by(const struct rtshim_config *c)
{
	return c->trace || c->only[0];
}

#endif
