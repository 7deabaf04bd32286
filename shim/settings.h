/* settings.h — the shim's configuration (core/config.c), read from the environment on first use
 * and its bad values said once. */
#ifndef RTSHIM_SETTINGS_H
#define RTSHIM_SETTINGS_H

#include <stdbool.h>

#include "config.h"

#include "enter.h" /* RTSHIM_HIDDEN */

/* settings.c: the configuration once loaded (NULL before), and whether it is plain (below). */
extern const struct rtshim_config *rtshim_cfg_loaded RTSHIM_HIDDEN;
extern bool rtshim_cfg_is_plain RTSHIM_HIDDEN;
const struct rtshim_config *rtshim_cfg_load(void);

/* The configuration, loaded on first use; then one load, no call (every request reads it). */
static inline const struct rtshim_config *rtshim_cfg(void)
{
	const struct rtshim_config *c = __atomic_load_n(&rtshim_cfg_loaded, __ATOMIC_ACQUIRE);
	return __builtin_expect(c != NULL, 1) ? c : rtshim_cfg_load();
}

/* The same, read by the constructor for a program that started realtime (its bad values were
 * said by whoever made it realtime: rtrun -p, or the shim of an earlier image). */
const struct rtshim_config *rtshim_cfg_at_start(void);

/* The configuration is loaded and asks nothing of a request the kernel grants: rtshim(7) rule 1 as
 * asked (rtshim_direct_is_as_asked), no RTSHIM_TRACE or RTSHIM_ONLY, the log level below "info". */
static inline bool rtshim_cfg_plain(void)
{
	return __atomic_load_n(&rtshim_cfg_is_plain, __ATOMIC_ACQUIRE);
}

/* Is a stack wanted (RTSHIM_TRACE or RTSHIM_ONLY set) by this configuration? */
static inline bool rtshim_trace_wanted_by(const struct rtshim_config *c)
{
	return c->trace || c->only[0];
}

#endif
