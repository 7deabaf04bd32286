/* registry.h — what the shim knows about the threads of this process: a pthread_t's kernel TID
 * (read from glibc when asked), and a record for each thread the shim changed something about.
 *
 * Nothing is recorded when a thread is created: a thread that never asks for realtime costs the
 * shim nothing.  A thread's own record lives in its own storage (the shim keeps it in TLS); the
 * thread links it in the first time it needs one (its request goes beyond the privileged path,
 * or the shim set a flag on it) and out when it ends.  A request that sets a flag on another
 * thread without a record of its own leaves a side record (heap, owned by the registry) that
 * the thread takes over when it links its own.  Every flag describes a SCHED_RESET_ON_FORK the
 * thread carries, so a side record whose thread is gone, or no longer carries that flag (a new
 * thread that reused the TID), is dropped when met.  All accesses to another thread's record go
 * through these functions (one mutex); a thread may read its own record's fields directly. */
#ifndef RTSHIM_REGISTRY_H
#define RTSHIM_REGISTRY_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

struct rtshim_thread {
	/* own record: the thread's handle; side record: the handle the request named, or 0 */
	pthread_t handle;
	pid_t tid;
	/* RTSHIM_TF_* flags; atomic (read/written with __atomic builtins) */
	int flags;
	/* futex word: 0, or this thread's own RT request is in flight in the shim (1; 2 when a
	 * reader waits for its outcome).  Written by the thread itself (rtshim_registry_pending_*),
	 * read and raised to 2 by readers under the registry's lock.  Never set on a side record. */
	int pending;
	/* links, owned by the registry */
	bool linked;
	bool side; /* a side record: the registry's own memory */
	struct rtshim_thread *next, **pprev;
};

/* The shim, not the program, added SCHED_RESET_ON_FORK to what this thread carries:
 * readers mask it. */
#define RTSHIM_TF_FLAG_ADDED 0x1
/* rtkit made this thread realtime (RTSHIM_INHERIT: the threads it creates are promoted). */
#define RTSHIM_TF_GRANTED 0x2
/* The program's last request with a policy asked SCHED_FIFO and rtkit granted SCHED_RR:
 * readers report SCHED_FIFO. */
#define RTSHIM_TF_ASKED_FIFO 0x4

/* The program's last successful request asked a priority other than the one the thread got
 * (99 where rtkit's maximum gave 20): the asked and the got priority are in the flags
 * (RTSHIM_TF_PRIO_BITS), and readers report the asked one while the kernel still has the got
 * one.  A change from outside (chrt -p) shows through as it is. */
#define RTSHIM_TF_ASKED_PRIO 0x8
#define RTSHIM_TF_PRIO_BITS (0xff << 8 | 0xff << 16)
/* All that makes the readers report what was asked rather than what the kernel has: a thread
 * that starts with its creator's scheduling takes it over. */
#define RTSHIM_TF_READ_AS_ASKED (RTSHIM_TF_ASKED_FIFO | RTSHIM_TF_ASKED_PRIO | RTSHIM_TF_PRIO_BITS)

/* The flags that say "asked `asked`, got `got`" (RTSHIM_TF_ASKED_PRIO and its bits). */
int rtshim_asked_prio_flags(int asked, int got);
/* Has any thread of this process had them?  One load, inline: until then a privileged
 * success without a policy (sched_setparam) has no asked priority to clear. */
extern int rtshim_registry_asked_prio_seen __attribute__((visibility("hidden")));
static inline bool rtshim_registry_asked_prio_ever(void)
{
	return __atomic_load_n(&rtshim_registry_asked_prio_seen, __ATOMIC_RELAXED) != 0;
}

/* The policy the readers report for a thread the kernel says has `policy`, given its flags:
 * SCHED_RESET_ON_FORK hidden where the shim added it, SCHED_FIFO where the program asked it
 * and rtkit gave SCHED_RR. */
int rtshim_policy_reported(int policy, int flags);
/* The priority they report for it, the kernel's being `prio`: the asked one (above). */
int rtshim_prio_reported(int policy, int prio, int flags);

/* The kernel TID of a live thread of this process, from glibc's own descriptor (the TID its
 * pthread_setschedparam uses): 0, or -ESRCH for a thread that has ended. */
int rtshim_registry_tid_of(pthread_t h, pid_t *tid);

/* Link a thread's own record (its tid set), taking over the side record of that TID. */
void rtshim_registry_add(struct rtshim_thread *t);
void rtshim_registry_remove(struct rtshim_thread *t);

/* By handle: any live thread of this process, 0 with its TID and its flags (0 without a
 * record); -ESRCH when it has ended.  By TID: 0 and its flags when it has a record, else
 * -ESRCH.  Called by a signal handler that interrupted its own thread inside this registry
 * (lock held): -ESRCH at once, never a deadlock (so do rtshim_registry_update and
 * rtshim_registry_wait_settled). */
int rtshim_registry_by_handle(pthread_t h, pid_t *tid, int *flags);
int rtshim_registry_by_tid(pid_t tid, int *flags);

/* Set and clear flags of a thread of this process (by handle if by_handle, else by TID): its
 * record, or a new side record when flags are set on a thread without one (only a live thread
 * of this process that carries SCHED_RESET_ON_FORK).  0, or -ESRCH (nothing recorded). */
int rtshim_registry_update(bool by_handle, pthread_t h, pid_t tid, int set, int clear);

/* The calling thread's own RT request (`self` is its linked record) goes beyond the privileged
 * path (rtkit, a D-Bus round trip): readers about it wait for its outcome.  begin is a store
 * and a counter increment; end wakes readers (FUTEX_WAKE) only when one waits.  Also ended
 * when the thread ends (its record is removed) and forgotten in a forked child. */
void rtshim_registry_pending_begin(struct rtshim_thread *self);
void rtshim_registry_pending_end(struct rtshim_thread *self);

/* A reader about another thread (by handle if by_handle, else by tid): if that thread's request
 * is in flight, wait until it has its outcome, at most timeout_ms in all.  1 waited and
 * settled, 0 nothing in flight (no lock taken while no request is in flight anywhere in the
 * process), -ETIMEDOUT gave up.  The caller's own record is never pending while it reads: a
 * thread reads from outside the shim (its re-entrancy guard). */
int rtshim_registry_wait_settled(bool by_handle, pthread_t h, pid_t tid, int timeout_ms);

/* Call fn with the records rtkit made realtime (RTSHIM_TF_GRANTED; the first
 * RTSHIM_REGISTRY_GRANTED_MAX of them) while the registry is locked: fn may read and write
 * their flags, never keep a pointer.  Nothing when no record is linked, or from a signal
 * handler that interrupted this registry. */
#define RTSHIM_REGISTRY_GRANTED_MAX 32
void rtshim_registry_with_granted(void (*fn)(struct rtshim_thread **recs, int n, void *arg), void *arg);

/* Number of linked records, side records included (tests, debugging). */
size_t rtshim_registry_count(void);

/* Are there side records at all?  One atomic load, inline (the privileged path asks), no
 * sanitizer instrumentation (the shim's pthread_getattr_np asks from a thread a sanitizer
 * runtime has not set up yet). */
extern int rtshim_registry_sides __attribute__((visibility("hidden")));
__attribute__((no_sanitize("address", "thread"))) static inline bool rtshim_registry_has_side_records(void)
{
	return __atomic_load_n(&rtshim_registry_sides, __ATOMIC_RELAXED) > 0;
}

/* fork: prepare takes the lock, parent releases it; child empties the registry (the other
 * threads do not exist there) and re-links `self` (the forking thread's record) with `new_tid`. */
void rtshim_registry_atfork_prepare(void);
void rtshim_registry_atfork_parent(void);
void rtshim_registry_atfork_child(struct rtshim_thread *self, pid_t new_tid);

#endif
