/* prio.c — see prio.h. */
#include "prio.h"

#include <errno.h>
#include <stddef.h>

static int clamp(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

int rtshim_prio_map(const struct rtshim_prio_map *map, int prio, bool *changed)
{
	int out, max = map->max_prio;
	if (max < 1)
		return -EINVAL;
	switch (map->mode) {
	case RTSHIM_PRIO_CLAMP:
		out = clamp(prio, 1, max);
		break;
	case RTSHIM_PRIO_SCALE: {
		/* 1 → 1, 99 → max, linear in between, rounded to nearest; max >= 99: identity */
		int p = clamp(prio, 1, 99);
		if (max >= 99)
			out = p;
		else
			out = 1 + ((p - 1) * (max - 1) * 2 + 98) / (2 * 98);
		break;
	}
	case RTSHIM_PRIO_OFFSET: {
		int top = map->top >= 1 && map->top <= 99 ? map->top : RTSHIM_PRIO_DEFAULT_TOP;
		int p = clamp(prio, 1, 99);
		out = p >= top ? max : clamp(max - (top - p), 1, max);
		break;
	}
	default:
		return -EINVAL;
	}
	if (changed)
		*changed = out != prio;
	return out;
}

int rtshim_prio_keep_order(int mapped, int max_prio, int above)
{
	int room = max_prio - (above > 0 ? above : 0);
	return mapped <= room ? mapped : room >= 1 ? room : 1;
}

const char *rtshim_prio_mode_name(int mode)
{
	switch (mode) {
	case RTSHIM_PRIO_CLAMP: return "clamp";
	case RTSHIM_PRIO_SCALE: return "scale";
	case RTSHIM_PRIO_OFFSET: return "offset";
	default: return NULL;
	}
}
