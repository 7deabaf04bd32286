/* keep.h — grants that last (rtshim(7), "Grants that last"): what the keeper (wrapper/keeper.c)
 * decides about one thread it watches, from what the kernel shows.  Pure: no I/O, no clock.
 *
 * A thread rtkit granted is SCHED_RR (or FIFO) with SCHED_RESET_ON_FORK.  The program itself,
 * and the shim's runaway guard, can only leave realtime keeping that flag (the kernel refuses an
 * unprivileged caller who clears it).  rtkit's demotion (its canary, ResetKnown, its exit)
 * clears it: sched_setscheduler(SCHED_OTHER) from root.  So the flag tells who took realtime
 * away, and only what was taken from outside is asked for again. */
#ifndef RTSHIM_KEEP_H
#define RTSHIM_KEEP_H

#include <stdbool.h>
#include <stdint.h>

/* What the kernel shows of a thread now. */
struct rtshim_keep_seen {
	int policy;          /* without SCHED_RESET_ON_FORK */
	bool reset_on_fork;
	int prio;
};

enum rtshim_keep_state {
	RTSHIM_KEEP_WATCHING, /* realtime as granted */
	RTSHIM_KEEP_TAKEN,    /* taken away from outside: to be asked for again */
	RTSHIM_KEEP_REFUSED,  /* asked for once again and refused: not asked again */
	RTSHIM_KEEP_LEFT,     /* the program (or the runaway guard) left realtime: not watched */
};

/* What an observation means for a thread in `state`. */
enum rtshim_keep_event {
	RTSHIM_KEEP_NOTHING,  /* as before */
	RTSHIM_KEEP_GRANTED,  /* realtime with the flag: watch it (again) */
	RTSHIM_KEEP_DEMOTED,  /* SCHED_OTHER without the flag after being watched: taken */
	RTSHIM_KEEP_DROPPED,  /* not realtime, flag kept: the program's own doing */
	RTSHIM_KEEP_FOREIGN,  /* realtime without the flag (root's chrt): not rtkit's, not ours */
};

enum rtshim_keep_event rtshim_keep_observe(enum rtshim_keep_state state,
					   const struct rtshim_keep_seen *s);

/* Who answers for rtkit when a demotion is seen. */
enum rtshim_keep_daemon {
	RTSHIM_KEEP_DAEMON_SAME, /* the rtkit-daemon process that granted: its canary, or a reset */
	RTSHIM_KEEP_DAEMON_NEW,  /* another process: a new rtkit knows nothing of a refusal */
	RTSHIM_KEEP_DAEMON_NONE, /* nobody owns rtkit's name (yet): wait for one */
};

/* rtkit-daemon's canary as its command line sets it. */
struct rtshim_keep_canary {
	bool on;          /* not --no-canary */
	int refuse_sec;   /* --canary-refuse-sec (default 300) */
};
#define RTSHIM_KEEP_REFUSE_SEC_DEFAULT 300
/* Asked after rtkit's refusal window by this much: rtkit compares whole seconds of
 * CLOCK_MONOTONIC, as the keeper does. */
#define RTSHIM_KEEP_MARGIN_MS 50

/* When (CLOCK_MONOTONIC ms) a thread whose demotion was seen at `seen_ms` may be asked for, or
 * -1: not yet known (no daemon).  rtkit's canary sets refuse_until = whole seconds of now +
 * refuse_sec just before it demotes; a demotion seen at seen_ms happened at or before it, so
 * the window ends at or before floor(seen_ms / 1000) + refuse_sec. */
int64_t rtshim_keep_ask_at(int64_t seen_ms, enum rtshim_keep_daemon daemon,
			   const struct rtshim_keep_canary *canary);

/* Reads rtkit-daemon's canary options from its NUL-separated command line. */
void rtshim_keep_canary_parse(const char *args, int len, struct rtshim_keep_canary *out);

/* Sharing the user's budget (rtkit: burst_max requests per burst_sec, for all the user's
 * programs): the keeper's own requests of the last burst_sec stay below burst_max minus a
 * share it leaves to the programs.  times[] holds the keeper's last request times (ms). */
#define RTSHIM_KEEP_BUDGET_SLOTS 1024 /* as many as the keeper watches (keeper.c) */
#define RTSHIM_KEEP_BUDGET_LEFT 5 /* requests of a burst the keeper never takes */
struct rtshim_keep_budget {
	int64_t times[RTSHIM_KEEP_BUDGET_SLOTS];
	int n; /* used slots */
};
/* May the keeper ask at now_ms?  If not, *next_ms is when it may. */
bool rtshim_keep_budget_allows(const struct rtshim_keep_budget *b, int64_t now_ms, int burst_sec,
			       int burst_max, int64_t *next_ms);
void rtshim_keep_budget_spend(struct rtshim_keep_budget *b, int64_t now_ms, int burst_sec);

#endif
