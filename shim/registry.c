/* registry.c — see registry.h.  A chained hash table on the TID, one mutex; nothing here runs
 * when a thread is created, and a thread that never gets a record never takes the mutex.
 *
 * Signal handlers: a program's handler may read scheduling (pthread_getschedparam, ...) while
 * the thread it interrupted is inside this file, holding the mutex (linking or unlinking its
 * record, forking).  Relocking would deadlock that thread for good; glibc alone never does.  So
 * each thread notes in TLS that it holds (or is about to take) the mutex, and a lookup from that
 * same thread (necessarily a handler that interrupted it) does not lock: it answers "not found",
 * and the readers then give the kernel's raw view, which is what glibc alone gives.  Lookups
 * never free memory (a stale side record goes to a list of spares), so a handler that
 * interrupted malloc cannot deadlock here either. */
#include "registry.h"
#include "raw-time.h"
#include "raw-syscall.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define BUCKETS 256

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* this thread holds `lock` or is about to take it (set before locking, cleared after
 * unlocking: a handler that runs in between is told "not found", never blocks) */
static __thread int holding __attribute__((tls_model("initial-exec")));
static struct rtshim_thread *buckets[BUCKETS];
static size_t count; /* atomic: read without the lock (nothing linked: nothing to look up) */
/* side records linked (atomic: read without the lock), the next count that triggers a sweep
 * for stale ones, and the unlinked ones kept for reuse */
int rtshim_registry_sides;
static int sweep_at = 16;
static struct rtshim_thread *spares;
/* requests in flight in this process (rtshim_registry_pending_*): readers look no further while
 * it is 0, so they cost one load when nothing is in flight */
static int inflight;

static void lock_registry(void)
{
	__atomic_store_n(&holding, 1, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	pthread_mutex_lock(&lock);
}

static void unlock_registry(void)
{
	pthread_mutex_unlock(&lock);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&holding, 0, __ATOMIC_RELAXED);
}

/* For lookups and flag updates: false (do nothing) when this thread already holds the lock,
 * i.e. a signal handler interrupted it inside this file. */
static bool lock_unless_held(void)
{
	if (__atomic_load_n(&holding, __ATOMIC_RELAXED))
		return false;
	lock_registry();
	return true;
}

int rtshim_registry_tid_of(pthread_t h, pid_t *tid)
{
	/* glibc's CPU clock id of a thread encodes the TID in its descriptor (the kernel's
	 * MAKE_THREAD_CPUCLOCK: ~tid << 3 | CPUCLOCK_PERTHREAD_MASK | CPUCLOCK_SCHED, in 32 bits);
	 * glibc answers ESRCH once the thread has ended (the kernel cleared that TID) */
	clockid_t c;
	if (pthread_getcpuclockid(h, &c) != 0 || (c & 7) != 6)
		return -ESRCH;
	pid_t t = (pid_t)(~((uint32_t)c >> 3) & 0x1fffffff);
	if (t <= 0)
		return -ESRCH;
	*tid = t;
	return 0;
}

static unsigned bucket_of(pid_t tid)
{
	return (unsigned)tid % BUCKETS;
}

static void link_locked(struct rtshim_thread *t)
{
	struct rtshim_thread **head = &buckets[bucket_of(t->tid)];
	t->next = *head;
	if (t->next)
		t->next->pprev = &t->next;
	t->pprev = head;
	*head = t;
	t->linked = true;
	__atomic_store_n(&count, count + 1, __ATOMIC_RELAXED);
	if (t->side)
		__atomic_store_n(&rtshim_registry_sides, rtshim_registry_sides + 1, __ATOMIC_RELAXED);
}

static void unlink_locked(struct rtshim_thread *t)
{
	if (!t->linked)
		return;
	*t->pprev = t->next;
	if (t->next)
		t->next->pprev = t->pprev;
	t->next = NULL;
	t->pprev = NULL;
	t->linked = false;
	__atomic_store_n(&count, count - 1, __ATOMIC_RELAXED);
	if (t->side)
		__atomic_store_n(&rtshim_registry_sides, rtshim_registry_sides - 1, __ATOMIC_RELAXED);
}

/* Is `tid` a live thread of this process that carries SCHED_RESET_ON_FORK? */
static bool carries_flag_here(pid_t tid)
{
	int saved = errno;
	long k = -1;
	if (rtshim_raw_syscall(SYS_tgkill, (long)getpid(), (long)tid, 0L) == 0)
		k = rtshim_raw_syscall(SYS_sched_getscheduler, (long)tid);
	errno = saved;
	return k >= 0 && (k & SCHED_RESET_ON_FORK);
}

/* A side record that no longer describes its thread: another handle named for that TID, the
 * thread gone, or the flag gone (the TID reused by a thread the record is not about). */
static bool side_stale(const struct rtshim_thread *t, pthread_t named)
{
	if (named && t->handle && !pthread_equal(named, t->handle))
		return true;
	return !carries_flag_here(t->tid);
}

static void drop_side_locked(struct rtshim_thread *t)
{
	unlink_locked(t);
	t->next = spares;
	spares = t;
}

/* The record of `tid` (`named`: the handle the caller named, or 0); a stale side record is
 * dropped on the way. */
static struct rtshim_thread *find_locked(pid_t tid, pthread_t named)
{
	for (struct rtshim_thread *t = buckets[bucket_of(tid)]; t; t = t->next) {
		if (t->tid != tid)
			continue;
		if (t->side && side_stale(t, named)) {
			drop_side_locked(t);
			return NULL;
		}
		return t;
	}
	return NULL;
}

/* Side records of threads that ended unseen would pile up: look at all of them each time their
 * number has doubled (a few system calls per side record made, on average). */
static void sweep_locked(void)
{
	if (rtshim_registry_sides < sweep_at)
		return;
	for (unsigned b = 0; b < BUCKETS; b++)
		for (struct rtshim_thread *t = buckets[b], *next; t; t = next) {
			next = t->next;
			if (t->side && side_stale(t, 0))
				drop_side_locked(t);
		}
	sweep_at = rtshim_registry_sides * 2 > 16 ? rtshim_registry_sides * 2 : 16;
}

static struct rtshim_thread *new_side_locked(pid_t tid, pthread_t named)
{
	sweep_locked();
	struct rtshim_thread *t = spares;
	if (t)
		spares = t->next;
	else if (!(t = malloc(sizeof *t)))
		return NULL;
	*t = (struct rtshim_thread){ .handle = named, .tid = tid, .side = true };
	link_locked(t);
	return t;
}

void rtshim_registry_add(struct rtshim_thread *t)
{
	lock_registry();
	struct rtshim_thread *old = NULL;
	for (struct rtshim_thread *o = buckets[bucket_of(t->tid)]; o; o = o->next)
		if (o->tid == t->tid)
			old = o;
	if (old && old->side) {
		/* what other threads recorded about this one before it had a record */
		if (!side_stale(old, t->handle))
			__atomic_fetch_or(&t->flags, __atomic_load_n(&old->flags, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
		drop_side_locked(old);
	} else if (old) {
		unlink_locked(old); /* a TID is one live thread's: that record is stale */
	}
	t->side = false;
	link_locked(t);
	unlock_registry();
}

void rtshim_registry_remove(struct rtshim_thread *t)
{
	lock_registry();
	unlink_locked(t);
	unlock_registry();
}

int rtshim_registry_by_handle(pthread_t h, pid_t *tid, int *flags)
{
	pid_t t;
	int f = 0;
	if (rtshim_registry_tid_of(h, &t) < 0)
		return -ESRCH;
	if (__atomic_load_n(&count, __ATOMIC_RELAXED)) {
		if (!lock_unless_held())
			return -ESRCH;
		struct rtshim_thread *r = find_locked(t, h);
		if (r)
			f = __atomic_load_n(&r->flags, __ATOMIC_RELAXED);
		unlock_registry();
	}
	if (tid)
		*tid = t;
	if (flags)
		*flags = f;
	return 0;
}

int rtshim_registry_by_tid(pid_t tid, int *flags)
{
	int r = -ESRCH;
	if (!__atomic_load_n(&count, __ATOMIC_RELAXED) || !lock_unless_held())
		return r;
	struct rtshim_thread *t = find_locked(tid, 0);
	if (t) {
		if (flags)
			*flags = __atomic_load_n(&t->flags, __ATOMIC_RELAXED);
		r = 0;
	}
	unlock_registry();
	return r;
}

int rtshim_registry_update(bool by_handle, pthread_t h, pid_t tid, int set, int clear)
{
	int r = -ESRCH;
	pthread_t named = 0;
	if (by_handle) {
		if (rtshim_registry_tid_of(h, &tid) < 0)
			return r;
		named = h;
	}
	if (!lock_unless_held())
		return r;
	struct rtshim_thread *t = find_locked(tid, named);
	if (!t && set && carries_flag_here(tid))
		t = new_side_locked(tid, named);
	if (t) {
		int f = __atomic_load_n(&t->flags, __ATOMIC_RELAXED);
		__atomic_store_n(&t->flags, (f & ~clear) | set, __ATOMIC_RELAXED);
		r = 0;
	}
	unlock_registry();
	return r;
}

void rtshim_registry_pending_begin(struct rtshim_thread *self)
{
	if (__atomic_load_n(&self->pending, __ATOMIC_RELAXED))
		return;
	__atomic_fetch_add(&inflight, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&self->pending, 1, __ATOMIC_SEQ_CST);
}

void rtshim_registry_pending_end(struct rtshim_thread *self)
{
	int was = __atomic_exchange_n(&self->pending, 0, __ATOMIC_SEQ_CST);
	if (!was)
		return;
	/* release: a reader that sees the count drop also sees what the request recorded */
	__atomic_fetch_sub(&inflight, 1, __ATOMIC_SEQ_CST);
	/* a waiter may have given up and returned already: a wake-up on this (live: our own TLS)
	 * word finds nobody, which is harmless */
	if (was == 2) {
		int saved = errno;
		rtshim_raw_syscall(SYS_futex, &self->pending, (long)FUTEX_WAKE_PRIVATE, (long)INT_MAX, NULL, NULL, 0L);
		errno = saved;
	}
}

int rtshim_registry_wait_settled(bool by_handle, pthread_t h, pid_t tid, int timeout_ms)
{
	int64_t deadline = 0;
	int waited = 0;
	for (;;) {
		if (!__atomic_load_n(&inflight, __ATOMIC_SEQ_CST))
			return waited;
		if (by_handle && rtshim_registry_tid_of(h, &tid) < 0)
			return waited;
		int *word = NULL;
		if (!lock_unless_held())
			return waited;
		/* under the lock a linked record is a live thread's: its word may be touched */
		struct rtshim_thread *t = find_locked(tid, by_handle ? h : 0);
		if (t) {
			int v = __atomic_load_n(&t->pending, __ATOMIC_SEQ_CST);
			if (v == 1 && __atomic_compare_exchange_n(&t->pending, &v, 2, false, __ATOMIC_SEQ_CST,
								  __ATOMIC_SEQ_CST))
				v = 2;
			if (v)
				word = &t->pending;
		}
		unlock_registry();
		if (!word)
			return waited;
		int64_t now = rtshim_raw_now_ns();
		if (!deadline)
			deadline = now + (int64_t)(timeout_ms > 0 ? timeout_ms : 1) * 1000000;
		if (now >= deadline)
			return -ETIMEDOUT;
		/* The thread may end and its record go once the lock is released: the kernel checks
		 * the word's value atomically (EAGAIN if it changed) and fails cleanly on an unmapped
		 * address (EFAULT); either way the record is looked up again, under the lock. */
		rtshim_raw_futex_wait(word, 2, deadline - now);
		waited = 1;
	}
}

void rtshim_registry_with_granted(void (*fn)(struct rtshim_thread **recs, int n, void *arg), void *arg)
{
	struct rtshim_thread *recs[RTSHIM_REGISTRY_GRANTED_MAX];
	int n = 0, max = RTSHIM_REGISTRY_GRANTED_MAX;
	if (!__atomic_load_n(&count, __ATOMIC_RELAXED) || !lock_unless_held())
		return;
	for (unsigned b = 0; b < BUCKETS; b++)
		for (struct rtshim_thread *t = buckets[b]; t && n < max; t = t->next)
			if (__atomic_load_n(&t->flags, __ATOMIC_RELAXED) & RTSHIM_TF_GRANTED)
				recs[n++] = t;
	fn(recs, n, arg);
	unlock_registry();
}

size_t rtshim_registry_count(void)
{
	if (!lock_unless_held())
		return __atomic_load_n(&count, __ATOMIC_RELAXED);
	size_t n = count;
	unlock_registry();
	return n;
}

void rtshim_registry_atfork_prepare(void)
{
	lock_registry();
}

void rtshim_registry_atfork_parent(void)
{
	unlock_registry();
}

void rtshim_registry_atfork_child(struct rtshim_thread *self, pid_t new_tid)
{
	/* the records of the parent's other threads live in memory nobody will free or unlink:
	 * just forget them; side records become spares */
	for (unsigned b = 0; b < BUCKETS; b++) {
		for (struct rtshim_thread *t = buckets[b], *next; t; t = next) {
			next = t->next;
			if (t->side) {
				t->linked = false;
				t->next = spares;
				spares = t;
			}
		}
		buckets[b] = NULL;
	}
	__atomic_store_n(&count, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&rtshim_registry_sides, 0, __ATOMIC_RELAXED);
	sweep_at = 16;
	/* the parent's requests in flight are not the child's: never wait for them here */
	__atomic_store_n(&inflight, 0, __ATOMIC_RELAXED);
	pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
	lock = fresh;
	__atomic_store_n(&holding, 0, __ATOMIC_RELAXED);
	if (self) {
		bool was_linked = self->linked;
		self->linked = false;
		self->tid = new_tid;
		__atomic_store_n(&self->flags, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&self->pending, 0, __ATOMIC_RELAXED);
		if (was_linked)
			link_locked(self);
	}
}

int rtshim_policy_reported(int policy, int flags)
{
	if (policy < 0)
		return policy;
	if ((policy & SCHED_RESET_ON_FORK) && (flags & RTSHIM_TF_FLAG_ADDED))
		policy &= ~SCHED_RESET_ON_FORK;
	if ((flags & RTSHIM_TF_ASKED_FIFO) && (policy & ~SCHED_RESET_ON_FORK) == SCHED_RR)
		policy = (policy & SCHED_RESET_ON_FORK) | SCHED_FIFO;
	return policy;
}

int rtshim_registry_asked_prio_seen;

int rtshim_asked_prio_flags(int asked, int got)
{
	if (asked < 0 || asked > 0xff || got < 0 || got > 0xff)
		return 0;
	__atomic_store_n(&rtshim_registry_asked_prio_seen, 1, __ATOMIC_RELAXED);
	return RTSHIM_TF_ASKED_PRIO | asked << 8 | got << 16;
}

int rtshim_prio_reported(int policy, int prio, int flags)
{
	int k = policy & ~SCHED_RESET_ON_FORK;
	if (!(flags & RTSHIM_TF_ASKED_PRIO) || (k != SCHED_RR && k != SCHED_FIFO) ||
	    prio != (flags >> 16 & 0xff))
		return prio;
	return flags >> 8 & 0xff;
}
