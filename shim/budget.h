/* budget.h — spending rtkit's per-user budget (25 requests / 20 s, of which it lets a 26th
 * through; 25 threads; shared with every program of the user) wisely: after rtkit refused
 * (EPERM: policy, polkit; EBUSY: a limit) the same kind of request is not sent again for a
 * while, with an exponential backoff
 * (RTSHIM_BACKOFF_MIN_MS doubling up to RTSHIM_BACKOFF_MAX_MS); a success resets it.
 * The process's state is kept under a priority-inheritance mutex (budget.c): never a lock a
 * realtime thread could spin on. */
#ifndef RTSHIM_BUDGET_H
#define RTSHIM_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

#include "decide.h" /* enum rtshim_budget_kind */

#define RTSHIM_BACKOFF_MIN_MS 1000
#define RTSHIM_BACKOFF_MAX_MS 32000

struct rtshim_backoff {
	int64_t until_ms;  /* no request of this kind before this (monotonic ms); 0 = none */
	int64_t delay_ms;  /* the next refusal's delay */
	int err;           /* the refusal remembered (negative errno) */
};

/* Pure core, for tests: may a request go at `now_ms`?  Then record its outcome (0 or -errno). */
bool rtshim_backoff_allows(const struct rtshim_backoff *b, int64_t now_ms);
void rtshim_backoff_record(struct rtshim_backoff *b, int64_t now_ms, int result);

/* A priority that flaps: the same thread raised again and again to the same priority (lowered
 * in between, which needs no rtkit).  After a granted raise, the same raise is held back for
 * RTSHIM_BACKOFF_MIN_MS, doubling while it repeats (up to RTSHIM_BACKOFF_MAX_MS); a raise of
 * another thread or to another priority is not held. */
struct rtshim_raise_memo {
	int tid, prio;
	struct rtshim_backoff b;
};
bool rtshim_raise_allows(const struct rtshim_raise_memo *m, int tid, int prio, int64_t now_ms);
void rtshim_raise_granted(struct rtshim_raise_memo *m, int tid, int prio, int64_t now_ms);

/* The process's state: 0 if rtkit may be asked for `kind` now, else the remembered refusal
 * (negative errno) and *wait_ms how long it still holds. */
int rtshim_budget_check(int kind, int64_t *wait_ms);
/* The outcome of a request that was sent (only EPERM and EBUSY start/extend a backoff). */
void rtshim_budget_record(int kind, int result);
/* The process's flap memory: record a granted raise. */
void rtshim_budget_raise_granted(int tid, int prio);
/* The facts the decision core needs: how long each kind is held, the flap memory. */
void rtshim_budget_facts(struct rtshim_facts *f);
/* fn(arg) with the process's state locked (tests: a holder preempted by a realtime waiter). */
void rtshim_budget_locked(void (*fn)(void *), void *arg);
/* A forked child starts with a clean slate. */
void rtshim_budget_reset(void);

#endif
