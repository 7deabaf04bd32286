/* prio.c — see prio.h. */
#include "prio.h"

#include <errno.h>

int rtshim_prio_map(const struct rtshim_prio_map *map, int prio, bool *changed)
{
	int out;
	if (map->max_prio < 1)
		return -EINVAL;
	switch (map->mode) {
	case RTSHIM_PRIO_CLAMP:
		out = prio < 1 ? 1 : prio > map->max_prio ? map->max_prio : prio;
		break;
	default:
		return -EINVAL;
	}
	if (changed)
		*changed = out != prio;
	return out;
}
