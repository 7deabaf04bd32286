/* registry.c — see registry.h.  A chained hash table on the pthread_t, one mutex: insertion and
 * removal are O(1) and uncontended in practice (a thread start costs one lock/unlock pair).
 *
 * Signal handlers: a program's handler may read scheduling (pthread_getschedparam, ...) while
 * the thread it interrupted is inside this file, holding the mutex (starting or ending a thread,
 * forking).  Relocking would deadlock that thread for good; glibc alone never does.  So each
 * thread notes in TLS that it holds (or is about to take) the mutex, and a lookup from that
 * same thread (necessarily a handler that interrupted it) does not lock: it answers "not found",
 * and the readers then give the kernel's raw view, which is what glibc alone gives. */
#include "registry.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define BUCKETS 256

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* this thread holds `lock` or is about to take it (set before locking, cleared after
 * unlocking: a handler that runs in between is told "not found", never blocks) */
static __thread int holding __attribute__((tls_model("initial-exec")));
static struct rtshim_thread *buckets[BUCKETS];
static size_t count;
/* requests in flight in this process (rtshim_registry_pending_*): readers look no further while
 * it is 0, so they cost one load when nothing is in flight */
static int inflight;

static void take(void)
{
	__atomic_store_n(&holding, 1, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	pthread_mutex_lock(&lock);
}

static void give(void)
{
	pthread_mutex_unlock(&lock);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&holding, 0, __ATOMIC_RELAXED);
}

/* For lookups and flag updates: false (do nothing) when this thread already holds the lock,
 * i.e. a signal handler interrupted it inside this file. */
static bool take_unless_held(void)
{
	if (__atomic_load_n(&holding, __ATOMIC_RELAXED))
		return false;
	take();
	return true;
}

static unsigned bucket_of(pthread_t h)
{
	uint64_t x = (uint64_t)(uintptr_t)h * 0x9E3779B97F4A7C15ull;
	return (unsigned)(x >> 56) % BUCKETS;
}

static void link_locked(struct rtshim_thread *t)
{
	struct rtshim_thread **head = &buckets[bucket_of(t->handle)];
	t->next = *head;
	if (t->next)
		t->next->pprev = &t->next;
	t->pprev = head;
	*head = t;
	t->linked = true;
	count++;
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
	count--;
}

static struct rtshim_thread *find_handle_locked(pthread_t h)
{
	for (struct rtshim_thread *t = buckets[bucket_of(h)]; t; t = t->next)
		if (pthread_equal(t->handle, h))
			return t;
	return NULL;
}

static struct rtshim_thread *find_tid_locked(pid_t tid)
{
	for (unsigned b = 0; b < BUCKETS; b++)
		for (struct rtshim_thread *t = buckets[b]; t; t = t->next)
			if (t->tid == tid)
				return t;
	return NULL;
}

void rtshim_registry_add(struct rtshim_thread *t)
{
	take();
	/* a handle can be reused only after its thread ended, but be robust anyway */
	struct rtshim_thread *old = find_handle_locked(t->handle);
	if (old)
		unlink_locked(old);
	link_locked(t);
	give();
}

void rtshim_registry_remove(struct rtshim_thread *t)
{
	take();
	unlink_locked(t);
	give();
}

int rtshim_registry_by_handle(pthread_t h, pid_t *tid, int *flags)
{
	int r = -ESRCH;
	if (!take_unless_held())
		return r;
	struct rtshim_thread *t = find_handle_locked(h);
	if (t) {
		if (tid)
			*tid = t->tid;
		if (flags)
			*flags = __atomic_load_n(&t->flags, __ATOMIC_RELAXED);
		r = 0;
	}
	give();
	return r;
}

int rtshim_registry_by_tid(pid_t tid, int *flags)
{
	int r = -ESRCH;
	if (!take_unless_held())
		return r;
	struct rtshim_thread *t = find_tid_locked(tid);
	if (t) {
		if (flags)
			*flags = __atomic_load_n(&t->flags, __ATOMIC_RELAXED);
		r = 0;
	}
	give();
	return r;
}

int rtshim_registry_update(bool by_handle, pthread_t h, pid_t tid, int set, int clear)
{
	int r = -ESRCH;
	if (!take_unless_held())
		return r;
	struct rtshim_thread *t = by_handle ? find_handle_locked(h) : find_tid_locked(tid);
	if (t) {
		int f = __atomic_load_n(&t->flags, __ATOMIC_RELAXED);
		__atomic_store_n(&t->flags, (f & ~clear) | set, __ATOMIC_RELAXED);
		r = 0;
	}
	give();
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
		syscall(SYS_futex, &self->pending, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
		errno = saved;
	}
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int rtshim_registry_wait_settled(bool by_handle, pthread_t h, pid_t tid, int timeout_ms)
{
	int64_t deadline = 0;
	int waited = 0;
	for (;;) {
		if (!__atomic_load_n(&inflight, __ATOMIC_SEQ_CST))
			return waited;
		int *word = NULL;
		if (!take_unless_held())
			return waited;
		/* under the lock a linked record is a live thread's: its word may be touched */
		struct rtshim_thread *t = by_handle ? find_handle_locked(h) : find_tid_locked(tid);
		if (t) {
			int v = __atomic_load_n(&t->pending, __ATOMIC_SEQ_CST);
			if (v == 1 && __atomic_compare_exchange_n(&t->pending, &v, 2, false, __ATOMIC_SEQ_CST,
								  __ATOMIC_SEQ_CST))
				v = 2;
			if (v)
				word = &t->pending;
		}
		give();
		if (!word)
			return waited;
		int64_t now = now_ns();
		if (!deadline)
			deadline = now + (int64_t)(timeout_ms > 0 ? timeout_ms : 1) * 1000000;
		if (now >= deadline)
			return -ETIMEDOUT;
		struct timespec rel = { .tv_sec = (deadline - now) / 1000000000,
					.tv_nsec = (deadline - now) % 1000000000 };
		/* The thread may end and its record go once the lock is released: the kernel checks
		 * the word's value atomically (EAGAIN if it changed) and fails cleanly on an unmapped
		 * address (EFAULT); either way the record is looked up again, under the lock. */
		syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, 2, &rel, NULL, 0);
		waited = 1;
	}
}

size_t rtshim_registry_count(void)
{
	if (!take_unless_held())
		return __atomic_load_n(&count, __ATOMIC_RELAXED);
	size_t n = count;
	give();
	return n;
}

void rtshim_registry_atfork_prepare(void)
{
	take();
}

void rtshim_registry_atfork_parent(void)
{
	give();
}

void rtshim_registry_atfork_child(struct rtshim_thread *self, pid_t new_tid)
{
	/* the records of the parent's other threads live in memory nobody will free or unlink:
	 * just forget them */
	for (unsigned b = 0; b < BUCKETS; b++)
		buckets[b] = NULL;
	count = 0;
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
