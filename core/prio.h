/* prio.h — mapping an application's RT priority into rtkit's 1..MaxRealtimePriority. */
#ifndef RTSHIM_PRIO_H
#define RTSHIM_PRIO_H

#include <stdbool.h>

enum rtshim_prio_mode {
	RTSHIM_PRIO_CLAMP = 0, /* min(max(prio, 1), max) — what PipeWire does */
	RTSHIM_PRIO_SCALE,     /* 1..99 linearly onto 1..max (rounded): order kept, never inverted */
	RTSHIM_PRIO_OFFSET,    /* anchored: top → max, top-k → max-k, never below 1 */
};

/* Default anchor of the offset mode when none is declared (RTSHIM_TOP unset). */
#define RTSHIM_PRIO_DEFAULT_TOP 99

struct rtshim_prio_map {
	int mode;     /* enum rtshim_prio_mode */
	int max_prio; /* rtkit's MaxRealtimePriority */
	int top;      /* offset mode: the application's declared top priority (1..99; 0 = default) */
};

/* Map `prio` (the application's 1..99) for rtkit.  Returns 1..max_prio, or -EINVAL when no
 * valid priority exists (max_prio < 1, unknown mode).  *changed tells whether the result differs
 * from what was asked (for the log: "(clamped)", "(mapped)").
 * Every mode is monotonic: p <= q implies map(p) <= map(q). */
int rtshim_prio_map(const struct rtshim_prio_map *map, int prio, bool *changed);

/* The order kept: a priority mapped to `mapped` while `above` distinct priorities higher than
 * the one asked are held by other threads of the process gets at most max_prio - above (never
 * below 1), so that each of those can sit above it.  Identity when above is 0. */
int rtshim_prio_keep_order(int mapped, int max_prio, int above);

/* "clamp", "scale", "offset" (NULL for an unknown mode). */
const char *rtshim_prio_mode_name(int mode);

#endif
