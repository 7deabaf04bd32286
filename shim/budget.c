/* budget.c — see budget.h. */
#include "budget.h"

#include <errno.h>
#include <limits.h>

#include "raw-time.h"

bool rtshim_backoff_allows(const struct rtshim_backoff *b, int64_t now_ms)
{
	return b->until_ms == 0 || now_ms >= b->until_ms;
}

void rtshim_backoff_record(struct rtshim_backoff *b, int64_t now_ms, int result)
{
	if (result != -EPERM && result != -EBUSY) {
		if (result == 0)
			*b = (struct rtshim_backoff){ 0 };
		return; /* no answer from rtkit (timeout, no daemon): not a refusal, nothing learnt */
	}
	int64_t d = b->delay_ms < RTSHIM_BACKOFF_MIN_MS ? RTSHIM_BACKOFF_MIN_MS : b->delay_ms;
	b->until_ms = now_ms + d;
	b->delay_ms = d * 2 > RTSHIM_BACKOFF_MAX_MS ? RTSHIM_BACKOFF_MAX_MS : d * 2;
	b->said_ms = now_ms;
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
		m->b = (struct rtshim_backoff){ 0 };
	}
	rtshim_backoff_record(&m->b, now_ms, -EBUSY);
}

/* ---- the process's memo: one cell per kind and the flap memory, each under a sequence count.
 * A writer makes the count odd, writes, makes it even again; a reader copies the cell and
 * keeps the copy if the count was even and unchanged around it.  Writers are the thread that
 * holds the gate (below), and thread ends: one that finds another writer half-way leaves the
 * cell as it is (it would write nearly the same thing).  A reader that keeps overlapping a
 * write reads an empty cell: rtkit is asked, as without the memo. */
struct cell {
	unsigned seq;
	struct rtshim_raise_memo m; /* tid and prio: the flap memory's only */
};

#define RAISE_CELL RTSHIM_BUDGET_KINDS
static struct cell cells[RTSHIM_BUDGET_KINDS + 1];
/* rtkit refused while the gate was held (written by its holder, read as it opens it: below) */
static int refusal_heard;

/* A sequence count without fences (ThreadSanitizer supports none): each field is read with
 * acquire, so the count read after them is not read before them, and written with release, so
 * the odd count written before them is seen by whoever sees one of them. */
#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELEASE)

static void copy_out(const struct cell *c, struct rtshim_raise_memo *m)
{
	m->tid = LOAD(c->m.tid);
	m->prio = LOAD(c->m.prio);
	m->b.until_ms = LOAD(c->m.b.until_ms);
	m->b.delay_ms = LOAD(c->m.b.delay_ms);
	m->b.said_ms = LOAD(c->m.b.said_ms);
	m->b.err = LOAD(c->m.b.err);
}

static void copy_in(struct cell *c, const struct rtshim_raise_memo *m)
{
	STORE(c->m.tid, m->tid);
	STORE(c->m.prio, m->prio);
	STORE(c->m.b.until_ms, m->b.until_ms);
	STORE(c->m.b.delay_ms, m->b.delay_ms);
	STORE(c->m.b.said_ms, m->b.said_ms);
	STORE(c->m.b.err, m->b.err);
}

static void cell_read(const struct cell *c, struct rtshim_raise_memo *m)
{
	for (int tries = 0; tries < 4; tries++) {
		unsigned s = __atomic_load_n(&c->seq, __ATOMIC_ACQUIRE);
		if (s & 1)
			continue;
		copy_out(c, m);
		if (__atomic_load_n(&c->seq, __ATOMIC_RELAXED) == s)
			return;
	}
	*m = (struct rtshim_raise_memo){ 0 };
}

/* true: the cell is this writer's, *seq its even count before (cell_write_end). */
static bool cell_write_begin(struct cell *c, unsigned *seq)
{
	unsigned s = LOAD(c->seq);
	if ((s & 1) || !__atomic_compare_exchange_n(&c->seq, &s, s + 1, false, __ATOMIC_RELAXED,
						    __ATOMIC_RELAXED))
		return false;
	*seq = s;
	return true;
}

static void cell_write_end(struct cell *c, unsigned seq)
{
	__atomic_store_n(&c->seq, seq + 2, __ATOMIC_RELEASE);
}

/* fn(cell's memo, now, arg) as one write. */
static void cell_update(struct cell *c, void (*fn)(struct rtshim_raise_memo *, int64_t, const void *),
			const void *arg)
{
	unsigned seq;
	int64_t now = rtshim_raw_now_ns() / 1000000; /* the kernel's clock (raw-time.h) */
	if (!cell_write_begin(c, &seq))
		return;
	struct rtshim_raise_memo m;
	copy_out(c, &m);
	fn(&m, now, arg);
	copy_in(c, &m);
	cell_write_end(c, seq);
}

static int64_t now_ms(void)
{
	return rtshim_raw_now_ns() / 1000000;
}

void rtshim_budget_locked(void (*fn)(void *), void *arg)
{
	unsigned seq;
	if (!cell_write_begin(&cells[RTSHIM_BUDGET_OWN], &seq))
		return;
	fn(arg);
	cell_write_end(&cells[RTSHIM_BUDGET_OWN], seq);
}

int rtshim_budget_check(int kind, int64_t *wait_ms)
{
	if (kind < 0 || kind >= RTSHIM_BUDGET_KINDS)
		return 0;
	struct rtshim_raise_memo m;
	cell_read(&cells[kind], &m);
	int64_t now = now_ms();
	if (rtshim_backoff_allows(&m.b, now))
		return 0;
	if (wait_ms)
		*wait_ms = m.b.until_ms - now;
	return m.b.err ? m.b.err : -EBUSY;
}

static void record(struct rtshim_raise_memo *m, int64_t now, const void *arg)
{
	rtshim_backoff_record(&m->b, now, *(const int *)arg);
}

void rtshim_budget_record(int kind, int result)
{
	if (kind >= 0 && kind < RTSHIM_BUDGET_KINDS)
		cell_update(&cells[kind], record, &result);
	if (result == -EPERM || result == -EBUSY)
		__atomic_store_n(&refusal_heard, 1, __ATOMIC_RELAXED);
}

static void raise_granted(struct rtshim_raise_memo *m, int64_t now, const void *arg)
{
	const int *tp = arg;
	rtshim_raise_granted(m, tp[0], tp[1], now);
}

void rtshim_budget_raise_granted(int tid, int prio)
{
	int tp[2] = { tid, prio };
	cell_update(&cells[RAISE_CELL], raise_granted, tp);
}

static void busy_ends(struct rtshim_raise_memo *m, int64_t now, const void *arg)
{
	(void)arg;
	if (m->b.err == -EBUSY && !rtshim_backoff_allows(&m->b, now))
		m->b.until_ms = now; /* the delay stays: a refusal again holds longer */
}

void rtshim_budget_rt_thread_gone(void)
{
	if (LOAD(cells[RTSHIM_BUDGET_OWN].m.b.err) == -EBUSY)
		cell_update(&cells[RTSHIM_BUDGET_OWN], busy_ends, NULL);
}

void rtshim_budget_facts(struct rtshim_facts *f)
{
	int64_t now = now_ms();
	struct rtshim_raise_memo m;
	for (int k = 0; k < RTSHIM_BUDGET_KINDS; k++) {
		cell_read(&cells[k], &m);
		bool held = !rtshim_backoff_allows(&m.b, now);
		f->held_ms[k] = held ? m.b.until_ms - now : 0;
		f->held_err[k] = m.b.err ? m.b.err : -EBUSY;
		f->held_ago_ms[k] = held ? now - m.b.said_ms : 0;
	}
	cell_read(&cells[RAISE_CELL], &m);
	f->raise_tid = m.tid;
	f->raise_prio = m.prio;
	f->raise_hold_ms = rtshim_backoff_allows(&m.b, now) ? 0 : m.b.until_ms - now;
}

/* ---- the gate: a futex word, 0 open, 1 taken, 2 taken and a thread may sleep on it ---------- */
static int gate;
/* How many rtshim_budget_begin of this thread hold the gate: the request path takes it before
 * the shim's own stack (privileged.c), the slow path's begin inside is then a nested one.
 * initial-exec: no __tls_get_addr (the dynamic loader), the shim is loaded at start-up. */
static __thread int gate_depth __attribute__((tls_model("initial-exec")));

/* Open the gate.  After a refusal every waiter may find its answer in the memo: all are woken.
 * Otherwise (a grant, no answer) the next one asks for itself, and only it is woken: a herd of
 * waiters woken at every grant only to sleep again costs the machine a context switch each. */
static void gate_open(void)
{
	long wake = __atomic_exchange_n(&refusal_heard, 0, __ATOMIC_RELAXED) ? INT_MAX : 1;
	if (__atomic_exchange_n(&gate, 0, __ATOMIC_RELEASE) == 2)
		rtshim_raw_syscall(SYS_futex, &gate, (long)FUTEX_WAKE_PRIVATE, wake, NULL, NULL, 0L);
}

int rtshim_budget_begin(int kind, int timeout_ms)
{
	if (gate_depth) { /* the gate is this thread's already */
		int held = rtshim_budget_check(kind, NULL);
		if (!held)
			gate_depth++;
		return held;
	}
	int64_t deadline = rtshim_raw_now_ns() + (int64_t)(timeout_ms > 0 ? timeout_ms : 1) * 1000000;
	int c = 0;
	if (!__atomic_compare_exchange_n(&gate, &c, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		/* another request is in flight: its answer may be the one this request would get */
		while ((c = __atomic_exchange_n(&gate, 2, __ATOMIC_ACQUIRE)) != 0) {
			int held = rtshim_budget_check(kind, NULL);
			if (held)
				return held;
			int64_t left = deadline - rtshim_raw_now_ns();
			if (left <= 0)
				return -ETIMEDOUT;
			rtshim_raw_futex_wait(&gate, 2, left);
		}
	}
	int held = rtshim_budget_check(kind, NULL);
	if (held) {
		__atomic_store_n(&refusal_heard, 1, __ATOMIC_RELAXED);
		gate_open();
	} else {
		gate_depth = 1;
	}
	return held;
}

void rtshim_budget_end(void)
{
	if (gate_depth > 1) {
		gate_depth--;
		return;
	}
	gate_depth = 0;
	gate_open();
}

void rtshim_budget_reset(void)
{
	for (int k = 0; k <= RAISE_CELL; k++)
		cells[k] = (struct cell){ 0 };
	gate = 0;
	gate_depth = 0;
	refusal_heard = 0;
}

void rtshim_budget_atfork_child(void)
{
	/* rtkit's refusals are the user's, the child's too; the flap memory is about threads the
	 * child does not have, a write half done and the gate were another thread's */
	cells[RAISE_CELL] = (struct cell){ 0 };
	for (int k = 0; k < RAISE_CELL; k++)
		if (cells[k].seq & 1)
			cells[k] = (struct cell){ 0 };
	gate = 0;
	gate_depth = 0;
	refusal_heard = 0;
}
