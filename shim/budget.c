/* budget.c — see budget.h. */
#include "budget.h"

#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "raw-time.h"

bool rtshim_backoff_allows(const struct rtshim_backoff *b, int64_t now_ms)
{
	return b->until_ms == 0 || now_ms >= b->until_ms;
}

void rtshim_backoff_record(struct rtshim_backoff *b, int64_t now_ms, int result)
{
	if (result != -EPERM && result != -EBUSY) {
		if (result == 0) {
			b->until_ms = 0;
			b->delay_ms = 0;
			b->err = 0;
		}
		return; /* no answer from rtkit (timeout, no daemon): not a refusal, nothing learnt */
	}
	int64_t d = b->delay_ms < RTSHIM_BACKOFF_MIN_MS ? RTSHIM_BACKOFF_MIN_MS : b->delay_ms;
	b->until_ms = now_ms + d;
	b->delay_ms = d * 2 > RTSHIM_BACKOFF_MAX_MS ? RTSHIM_BACKOFF_MAX_MS : d * 2;
	b->err = result;
}

bool rtshim_raise_allows(const struct rtshim_raise_memo *m, int tid, int prio, int64_t now_ms)
{
	return !rtshim_raise_flaps(m->tid, m->prio, rtshim_backoff_allows(&m->b, now_ms) ? 0 : 1, tid, prio);
}

void rtshim_raise_granted(struct rtshim_raise_memo *m, int tid, int prio, int64_t now_ms)
{
	if (m->tid != tid || m->prio != prio) {
		m->tid = tid;
		m->prio = prio;
		m->b.until_ms = 0;
		m->b.delay_ms = 0;
	}
	rtshim_backoff_record(&m->b, now_ms, -EBUSY);
}

/* The process's state, under a priority-inheritance mutex: the caller may be a realtime
 * thread (a raise), and a spin lock with sched_yield() never yields to a SCHED_OTHER holder
 * preempted on the same CPU; with priority inheritance the kernel runs the holder at the
 * waiter's priority until it lets go.  Requests are rare and the sections a few loads long. */
static struct rtshim_backoff state[RTSHIM_BUDGET_KINDS];
static struct rtshim_raise_memo raise_memo;
static pthread_mutex_t mutex;
static pthread_once_t mutex_once = PTHREAD_ONCE_INIT;

static void mutex_init(void)
{
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
	pthread_mutex_init(&mutex, &a);
	pthread_mutexattr_destroy(&a);
}

/* the kernel's clock, not one another preload can stop (raw-time.h) */
static int64_t now_ms(void)
{
	return rtshim_raw_now_ns() / 1000000;
}

static void lock(void)
{
	pthread_once(&mutex_once, mutex_init);
	pthread_mutex_lock(&mutex);
}

static void unlock(void)
{
	pthread_mutex_unlock(&mutex);
}

void rtshim_budget_locked(void (*fn)(void *), void *arg)
{
	lock();
	fn(arg);
	unlock();
}

int rtshim_budget_check(int kind, int64_t *wait_ms)
{
	if (kind < 0 || kind >= RTSHIM_BUDGET_KINDS)
		return 0;
	int64_t now = now_ms();
	int r = 0;
	lock();
	if (!rtshim_backoff_allows(&state[kind], now)) {
		r = state[kind].err ? state[kind].err : -EBUSY;
		if (wait_ms)
			*wait_ms = state[kind].until_ms - now;
	}
	unlock();
	return r;
}

void rtshim_budget_record(int kind, int result)
{
	if (kind < 0 || kind >= RTSHIM_BUDGET_KINDS)
		return;
	int64_t now = now_ms();
	lock();
	rtshim_backoff_record(&state[kind], now, result);
	unlock();
}

void rtshim_budget_raise_granted(int tid, int prio)
{
	int64_t now = now_ms();
	lock();
	rtshim_raise_granted(&raise_memo, tid, prio, now);
	unlock();
}

void rtshim_budget_facts(struct rtshim_facts *f)
{
	int64_t now = now_ms();
	lock();
	for (int k = 0; k < RTSHIM_BUDGET_KINDS; k++) {
		f->held_ms[k] = rtshim_backoff_allows(&state[k], now) ? 0 : state[k].until_ms - now;
		f->held_err[k] = state[k].err ? state[k].err : -EBUSY;
	}
	f->raise_tid = raise_memo.tid;
	f->raise_prio = raise_memo.prio;
	f->raise_hold_ms = rtshim_backoff_allows(&raise_memo.b, now) ? 0 : raise_memo.b.until_ms - now;
	unlock();
}

void rtshim_budget_reset(void)
{
	raise_memo.tid = 0;
	raise_memo.prio = 0;
	raise_memo.b.until_ms = 0;
	raise_memo.b.delay_ms = 0;
	for (int k = 0; k < RTSHIM_BUDGET_KINDS; k++) {
		state[k].until_ms = 0;
		state[k].delay_ms = 0;
		state[k].err = 0;
	}
	/* a forked child: the mutex may have been held by a thread that does not exist here (a
	 * priority-inheritance mutex can only be unlocked by its owner): made anew */
	pthread_once(&mutex_once, mutex_init);
	mutex_init();
}
