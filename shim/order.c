/* order.c — see order.h.  The registry's records of the threads rtkit made realtime, and the
 * kernel's view of each, read with raw system calls while the registry is locked (a record
 * lives in its thread's storage: it is valid only while linked). */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/syscall.h>

#include "decide.h"
#include "log.h"
#include "order.h"
#include "prio.h"
#include "raw-syscall.h"
#include "registry.h"

/* rtkit's per-user threads (25 by default) fit */
#define HELD_MAX RTSHIM_REGISTRY_GRANTED_MAX

struct held {
	pid_t tid;
	int policy, prio; /* the kernel's, flags included */
	int asked;        /* what the thread's readers report */
	struct rtshim_thread *rec;
};

static int gather(struct rtshim_thread **recs, int n, struct held *h)
{
	int m = 0;
	for (int i = 0; i < n; i++) {
		struct sched_param sp;
		pid_t tid = recs[i]->tid;
		long pol = rtshim_raw_syscall(SYS_sched_getscheduler, (long)tid);
		if (pol < 0 || !rtshim_is_rt((int)pol) ||
		    rtshim_raw_syscall(SYS_sched_getparam, (long)tid, &sp) < 0)
			continue;
		int flags = __atomic_load_n(&recs[i]->flags, __ATOMIC_RELAXED);
		h[m++] = (struct held){ .tid = tid, .policy = (int)pol, .prio = sp.sched_priority,
					.asked = rtshim_prio_reported((int)pol, sp.sched_priority, flags),
					.rec = recs[i] };
	}
	return m;
}

/* distinct asked priorities above `prio` among h, `except`'s aside */
static int distinct_above(const struct held *h, int n, int prio, pid_t except)
{
	int above = 0;
	for (int i = 0; i < n; i++) {
		if (h[i].tid == except || h[i].asked <= prio)
			continue;
		bool seen = false;
		for (int j = 0; j < i && !seen; j++)
			seen = h[j].tid != except && h[j].asked == h[i].asked;
		above += !seen;
	}
	return above;
}

struct above_q {
	pid_t tid;
	int prio, above;
};

static void count_above(struct rtshim_thread **recs, int n, void *arg)
{
	struct above_q *q = arg;
	struct held h[HELD_MAX];
	int m = gather(recs, n, h);
	q->above = distinct_above(h, m, q->prio, q->tid);
}

int rtshim_order_prios_above(pid_t tid, int prio)
{
	int saved = errno;
	struct above_q q = { .tid = tid, .prio = prio, .above = 0 };
	rtshim_registry_with_granted(count_above, &q);
	errno = saved;
	return q.above;
}

struct keep_q {
	int max;
	int lowered; /* how many threads were lowered */
	pid_t tid;   /* ... the last of them, its priority now and the one it asked */
	int to, asked;
};

static void lower_below(struct rtshim_thread **recs, int n, void *arg)
{
	struct keep_q *q = arg;
	int max = q->max;
	struct held h[HELD_MAX];
	int m = gather(recs, n, h);
	for (int i = 0; i < m; i++) {
		int to = rtshim_prio_keep_order(h[i].prio, max, distinct_above(h, m, h[i].asked, h[i].tid));
		struct sched_param sp = { .sched_priority = to };
		if (to >= h[i].prio ||
		    rtshim_raw_syscall(SYS_sched_setscheduler, (long)h[i].tid, (long)h[i].policy, &sp) < 0)
			continue;
		/* the readers keep reporting what it asked, from the priority it has now */
		int f = __atomic_load_n(&h[i].rec->flags, __ATOMIC_RELAXED);
		f &= ~(RTSHIM_TF_ASKED_PRIO | RTSHIM_TF_PRIO_BITS);
		if (h[i].asked != to)
			f |= rtshim_asked_prio_flags(h[i].asked, to);
		__atomic_store_n(&h[i].rec->flags, f, __ATOMIC_RELAXED);
		q->lowered++;
		q->tid = h[i].tid;
		q->to = to;
		q->asked = h[i].asked;
	}
}

void rtshim_order_keep(int max_prio)
{
	int saved = errno;
	struct keep_q q = { .max = max_prio };
	rtshim_registry_with_granted(lower_below, &q);
	/* the log writes outside the registry's lock */
	if (q.lowered)
		rtshim_log(RTSHIM_LOG_INFO, "thread %d (asked %d) lowered to %d, below the higher priorities other threads asked (%d thread%s lowered)",
			   (int)q.tid, q.asked, q.to, q.lowered, q.lowered > 1 ? "s" : "");
	errno = saved;
}
