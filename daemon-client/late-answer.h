/* late-answer.h — a request that timed out but that the daemon still holds (rtkit handles one
 * request at a time and may be waiting for polkit): its grant would come after the caller was
 * told "no".  A call that returned failure must leave the thread as it found it, so the
 * connection is handed to a watcher (kernel/raw-child.h: a process of the shim's own, invisible
 * to the program) that reads the daemon's late answer and, if it was a grant, puts the thread
 * back as it was before the request.  Closing the connection instead does not stop the daemon:
 * a request it has begun is carried out.
 *
 * While a watcher waits, the daemon is still busy with our request: every call of this process
 * fails at once with -ETIMEDOUT (a request queued behind it would be granted after the undo,
 * or undone after its own grant), until the watcher's answer is in (rtshim_late_pending). */
#ifndef RTSHIM_LATE_ANSWER_H
#define RTSHIM_LATE_ANSWER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "wire-bus.h"

/* How long a watcher waits for the late answer: past rtkit's own wait for polkit (25 s). */
#define RTSHIM_LATE_ANSWER_MS 30000

/* The kernel's struct sched_attr, its first version (the size sched_getattr is asked for). */
struct rtshim_sched_attr {
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t prio;
	uint64_t runtime, deadline, period;
};

/* A thread as it was before a request, and the grant asked for it. */
struct rtshim_late_undo {
	pid_t tgid, tid;
	bool realtime;                   /* realtime at priority `value`, or else nice `value` */
	int value;
	bool known;                      /* `before` was read */
	struct rtshim_sched_attr before;
};

/* Reads thread `tid` of process `pid` (0: this one) as it is before asking for `value`. */
void rtshim_late_before(pid_t pid, pid_t tid, bool realtime, int value, struct rtshim_late_undo *u);

/* The kernel shows the grant asked (it landed as the call timed out). */
bool rtshim_late_granted(const struct rtshim_late_undo *u);

/* Hands connection `c`, whose call `serial` timed out once all of it was written, to a watcher.
 * 0: handed over (the caller closes its own copy as ever; *c is left as it was), or -errno: not
 * (no room for another watcher, the clone refused): the daemon's late grant then stays. */
int rtshim_late_hand_over(struct rtshim_wire_conn *c, uint32_t serial,
			  const struct rtshim_late_undo *u);

/* Reaps the watchers that are done: true while one still waits for its answer. */
bool rtshim_late_pending(void);

#endif
