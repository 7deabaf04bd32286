/* budget.h — spending rtkit's per-user budget (25 requests / 20 s, of which it lets a 26th
 * through; 25 threads; 15 processes; shared with every program of the user) wisely, and making
 * a refusal cheap to hear again.
 *
 * The memo of refusals: after rtkit refused (EPERM: policy, polkit; EBUSY: a per-user limit)
 * the same kind of request is not sent again for a while, with an exponential backoff
 * (RTSHIM_BACKOFF_MIN_MS doubling up to RTSHIM_BACKOFF_MAX_MS); a success resets it.  An EBUSY
 * of this process's own threads ends early when one of its realtime threads drops realtime or
 * ends (rtkit's thread limit may have freed).  The request path reads it before any work of
 * the client's, with a few atomic loads (a sequence count, no lock: a realtime thread never
 * waits for a preempted writer; a read that overlaps a write holds nothing back).
 *
 * The gate: one thread at a time works with the client (loads it, reads rtkit's limits, asks).
 * A thread that finds another at work sleeps (futex, bounded by its own timeout) until that
 * answer is in the memo, then reads the memo again: a herd of threads that ask at once loads
 * the client once, sends one request and hears the refusal, instead of each polling the
 * dynamic loader's lock and queueing for the daemon. */
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
	int64_t said_ms;   /* when rtkit said no (monotonic ms) */
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

/* The process's memo: 0 if rtkit may be asked for `kind` now, else the remembered refusal
 * (negative errno) and *wait_ms how long it still holds. */
int rtshim_budget_check(int kind, int64_t *wait_ms);
/* The outcome of a request that was sent (only EPERM and EBUSY start/extend a backoff). */
void rtshim_budget_record(int kind, int result);
/* The process's flap memory: record a granted raise. */
void rtshim_budget_raise_granted(int tid, int prio);
/* A realtime thread of this process dropped realtime or ended: an EBUSY held for its threads
 * ends now. */
void rtshim_budget_rt_thread_gone(void);
/* The facts the decision core needs: how long each kind is held and since when, the flap
 * memory. */
void rtshim_budget_facts(struct rtshim_facts *f);

/* The gate, around a request's work with the client (loading it, rtkit's limits, the request
 * of `kind`): 0 and the gate is this thread's until rtshim_budget_end; or, without the gate,
 * the refusal the memo holds now for `kind` (negative errno), or -ETIMEDOUT when another
 * thread's work did not end within timeout_ms.  rtshim_budget_record writes rtkit's answer
 * first.  A thread that holds the gate already (the request path takes it on the program's
 * stack: privileged.c) gets it again at once, nested: each begin that returned 0 has its end,
 * and the outermost end opens the gate.  Opening it after a refusal wakes every waiter (the
 * memo answers them), otherwise only the next. */
int rtshim_budget_begin(int kind, int timeout_ms);
void rtshim_budget_end(void);

/* fn(arg) while a write to the memo is half done (tests: a writer preempted by a realtime
 * reader). */
void rtshim_budget_locked(void (*fn)(void *), void *arg);
/* A clean slate (tests). */
void rtshim_budget_reset(void);
/* A forked child keeps the memo of refusals (they are the user's), and starts with an open gate
 * and no flap memory. */
void rtshim_budget_atfork_child(void);

#endif
