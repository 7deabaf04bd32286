/* thread.h — the shim's records of threads (registry.h) as the interposers use them: this
 * thread's own record, the records of other threads of ours by TID, fork (thread.c). */
#ifndef RTSHIM_THREAD_H
#define RTSHIM_THREAD_H

#include <stdbool.h>
#include <sys/types.h>

#include "enter.h" /* RTSHIM_UNINSTRUMENTED */
#include "registry.h"

/* From the shim's constructor: this process's identity and the fork handlers. */
void rtshim_thread_init(void);

/* This thread's record (tid up to date, also in a forked child), linked into the registry: a
 * request about this thread is going beyond the privileged path.  A thread gets its record the
 * first time it needs one, never when it is created. */
struct rtshim_thread *rtshim_self(void);

/* This thread's RTSHIM_TF_* flags (what the shim, or another thread through it, changed). */
int rtshim_self_flags(void);

/* The trampoline gives up before the start routine: unrecord now. */
void rtshim_thread_abandoned(void);

/* Might the shim have changed this thread's scheduling (RTSHIM_TF_GRANTED or
 * RTSHIM_TF_FLAG_ADDED)?  No lock, nothing a sanitizer instruments (pthread_getattr_np). */
bool rtshim_self_maybe_changed_uninstrumented(void);

/* This thread's record as last known (no gettid(): fork() renews it in the child), not
 * necessarily linked: for rtshim_thread_update. */
struct rtshim_thread *rtshim_self_cheap(void);

/* thread.c: this thread's own record (initial-exec: see enter.h). */
extern __thread struct rtshim_thread rtshim_self_rec RTSHIM_HIDDEN
	__attribute__((tls_model("initial-exec")));

/* No RTSHIM_TF_* flag of `clear` on this thread, in its record or in one it would take over:
 * clearing them would change nothing (the privileged path then skips its record: inline). */
static inline bool rtshim_self_has_nothing_to_clear(int clear)
{
	if (__atomic_load_n(&rtshim_self_rec.flags, __ATOMIC_RELAXED) & clear)
		return false;
	/* unlinked: a record another thread made for this one may still be taken over */
	return rtshim_self_rec.linked || !rtshim_registry_has_side_records();
}

/* This thread's record, or that of a thread of ours by TID: set and clear RTSHIM_TF_* flags
 * (never in a vfork child, whose memory is its parent's).  This thread's record is linked
 * when a flag is set on it. */
void rtshim_thread_update(struct rtshim_thread *t, int set, int clear);
void rtshim_thread_update_tid(pid_t tid, int set, int clear);
/* Thread `tid`, whose policy was `old_policy` before a request to rtkit, carries or may carry
 * (a grant that comes after the timeout is undone but for it) SCHED_RESET_ON_FORK because of
 * rtkit: unless the flag was the program's own, its readers hide it. */
void rtshim_thread_flag_ours(pid_t tid, int old_policy);

/* Is this a vfork child, or a child cloned without the atfork handlers, running in memory that
 * belongs to another process?  Then the shim leaves every piece of its state alone. */
bool rtshim_in_vfork_child(void);

/* Readers: the RTSHIM_TF_* flags of this thread of ours (0: none, or not ours). */
int rtshim_flags_by_pid(pid_t pid);

#endif
