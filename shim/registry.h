/* registry.h — pthread_t → kernel TID, for requests about another thread of this process.
 *
 * Each thread's record lives in that thread's own storage (the shim keeps it in TLS) and is
 * linked in when the thread starts and out before it ends, so the registry never allocates.
 * All accesses to another thread's record go through these functions (one mutex); a thread may
 * read its own record's fields directly. */
#ifndef RTSHIM_REGISTRY_H
#define RTSHIM_REGISTRY_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

struct rtshim_thread {
	pthread_t handle;
	pid_t tid;
	/* RTSHIM_TF_* flags; atomic (read/written with __atomic builtins) */
	int flags;
	/* futex word: 0, or this thread's own RT request is in flight in the shim (1; 2 when a
	 * reader waits for its outcome).  Written by the thread itself (rtshim_registry_pending_*),
	 * read and raised to 2 by readers under the registry's lock. */
	int pending;
	/* links, owned by the registry */
	bool linked;
	struct rtshim_thread *next, **pprev;
};

/* The shim, not the program, added SCHED_RESET_ON_FORK to what this thread carries:
 * readers mask it. */
#define RTSHIM_TF_FLAG_ADDED 0x1
/* rtkit made this thread realtime (RTSHIM_INHERIT: the threads it creates are promoted). */
#define RTSHIM_TF_GRANTED 0x2

void rtshim_registry_add(struct rtshim_thread *t);
void rtshim_registry_remove(struct rtshim_thread *t);

/* Look a thread up by handle or by TID; copies its tid and flags.  0 or -ESRCH.  Called by a
 * signal handler that interrupted its own thread inside this registry (lock held): -ESRCH at
 * once, never a deadlock (so do rtshim_registry_update and rtshim_registry_wait_settled). */
int rtshim_registry_by_handle(pthread_t h, pid_t *tid, int *flags);
int rtshim_registry_by_tid(pid_t tid, int *flags);

/* Set or clear flags of a registered thread (by handle if by_handle, else by tid). */
int rtshim_registry_update(bool by_handle, pthread_t h, pid_t tid, int set, int clear);

/* The calling thread's own RT request (`self` is its record) goes beyond the privileged path
 * (rtkit, a D-Bus round trip): readers about it wait for its outcome.  begin is a store and a
 * counter increment; end wakes readers (FUTEX_WAKE) only when one waits.  Also ended when the
 * thread ends (its record is removed) and forgotten in a forked child. */
void rtshim_registry_pending_begin(struct rtshim_thread *self);
void rtshim_registry_pending_end(struct rtshim_thread *self);

/* A reader about another registered thread (by handle if by_handle, else by tid): if that
 * thread's request is in flight, wait until it has its outcome, at most timeout_ms in all.
 * 1 waited and settled, 0 nothing in flight (or not registered: no lock taken while no request
 * is in flight anywhere in the process), -ETIMEDOUT gave up.  The caller's own record is never
 * pending while it reads: a thread reads from outside the shim (its re-entrancy guard). */
int rtshim_registry_wait_settled(bool by_handle, pthread_t h, pid_t tid, int timeout_ms);

/* Number of registered threads (tests, debugging). */
size_t rtshim_registry_count(void);

/* fork: prepare takes the lock, parent releases it; child empties the registry (the other
 * threads do not exist there) and re-links `self` (the forking thread's record) with `new_tid`. */
void rtshim_registry_atfork_prepare(void);
void rtshim_registry_atfork_parent(void);
void rtshim_registry_atfork_child(struct rtshim_thread *self, pid_t new_tid);

#endif
