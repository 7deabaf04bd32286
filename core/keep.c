/* keep.c — see keep.h. */
#include "keep.h"

#include <sched.h>
#include <string.h>

static bool is_rt(int policy)
{
	return policy == SCHED_FIFO || policy == SCHED_RR;
}

enum rtshim_keep_event rtshim_keep_observe(enum rtshim_keep_state state,
					   const struct rtshim_keep_seen *s)
{
	if (is_rt(s->policy) && !s->reset_on_fork)
		return RTSHIM_KEEP_FOREIGN;
	if (is_rt(s->policy))
		return state == RTSHIM_KEEP_WATCHING ? RTSHIM_KEEP_NOTHING : RTSHIM_KEEP_GRANTED;
	if (s->reset_on_fork)
		return state == RTSHIM_KEEP_LEFT ? RTSHIM_KEEP_NOTHING : RTSHIM_KEEP_DROPPED;
	/* SCHED_OTHER (or batch, idle) without the flag: a privileged hand took it */
	return state == RTSHIM_KEEP_WATCHING ? RTSHIM_KEEP_DEMOTED : RTSHIM_KEEP_NOTHING;
}

int64_t rtshim_keep_ask_at(int64_t seen_ms, enum rtshim_keep_daemon daemon,
			   const struct rtshim_keep_canary *canary)
{
	switch (daemon) {
	case RTSHIM_KEEP_DAEMON_NONE:
		return -1;
	case RTSHIM_KEEP_DAEMON_NEW:
		return seen_ms;
	case RTSHIM_KEEP_DAEMON_SAME:
		break;
	}
	if (!canary->on)
		return seen_ms; /* no window: a reset by an administrator, or a privileged chrt */
	return (seen_ms / 1000 + canary->refuse_sec) * 1000 + RTSHIM_KEEP_MARGIN_MS;
}

/* A decimal number of up to 7 digits, else -1. */
static int small_number(const char *s)
{
	int v = 0, digits = 0;

	for (; *s >= '0' && *s <= '9' && digits < 8; s++, digits++)
		v = v * 10 + (*s - '0');
	return digits && digits < 8 && !*s ? v : -1;
}

void rtshim_keep_canary_parse(const char *args, int len, struct rtshim_keep_canary *out)
{
	static const char name[] = "--canary-refuse-sec";
	const size_t nlen = sizeof name - 1;
	const char *end = args + len;

	out->on = true;
	out->refuse_sec = RTSHIM_KEEP_REFUSE_SEC_DEFAULT;
	for (const char *a = args; a < end; a += strnlen(a, (size_t)(end - a)) + 1) {
		const char *next = a + strnlen(a, (size_t)(end - a)) + 1;
		int v = -1;

		if (!strcmp(a, "--no-canary"))
			out->on = false;
		else if (!strncmp(a, name, nlen) && a[nlen] == '=')
			v = small_number(a + nlen + 1);
		else if (!strcmp(a, name) && next < end)
			v = small_number(next);
		if (v >= 0)
			out->refuse_sec = v;
	}
}

bool rtshim_keep_budget_allows(const struct rtshim_keep_budget *b, int64_t now_ms, int burst_sec,
			       int burst_max, int64_t *next_ms)
{
	int share = burst_max - RTSHIM_KEEP_BUDGET_LEFT, recent = 0;
	int64_t window = (int64_t)burst_sec * 1000, oldest = 0;

	if (share < 1)
		share = 1;
	if (share > RTSHIM_KEEP_BUDGET_SLOTS)
		share = RTSHIM_KEEP_BUDGET_SLOTS;
	for (int i = 0; i < b->n; i++)
		if (b->times[i] > now_ms - window) {
			if (!recent || b->times[i] < oldest)
				oldest = b->times[i];
			recent++;
		}
	if (recent < share)
		return true;
	*next_ms = oldest + window;
	return false;
}

void rtshim_keep_budget_spend(struct rtshim_keep_budget *b, int64_t now_ms, int burst_sec)
{
	int64_t window = (int64_t)burst_sec * 1000;
	int w = 0;

	for (int i = 0; i < b->n; i++) /* keep the recent ones only */
		if (b->times[i] > now_ms - window)
			b->times[w++] = b->times[i];
	b->n = w;
	if (b->n == RTSHIM_KEEP_BUDGET_SLOTS) { /* full: the oldest goes */
		memmove(b->times, b->times + 1, sizeof b->times[0] * (RTSHIM_KEEP_BUDGET_SLOTS - 1));
		b->n--;
	}
	b->times[b->n++] = now_ms;
}
