/* prio.h — mapping an application's RT priority into rtkit's 1..MaxRealtimePriority. */
#ifndef RTSHIM_PRIO_H
#define RTSHIM_PRIO_H

#include <stdbool.h>

enum rtshim_prio_mode {
	RTSHIM_PRIO_CLAMP = 0, /* min(max(prio, 1), max) — what PipeWire does */
	/* later: RTSHIM_PRIO_SCALE, RTSHIM_PRIO_OFFSET (order-preserving modes) */
};

struct rtshim_prio_map {
	int mode;     /* enum rtshim_prio_mode */
	int max_prio; /* rtkit's MaxRealtimePriority */
	int top;      /* for an anchored mode: the application's declared top priority (unused yet) */
};

/* Map `prio` (the application's 1..99) for rtkit.  Returns 1..max_prio, or -EINVAL when no
 * valid priority exists (max_prio < 1, unknown mode).  *changed tells whether the result differs
 * from what was asked (for the log: "(clamped)"). */
int rtshim_prio_map(const struct rtshim_prio_map *map, int prio, bool *changed);

#endif
