/* thread.c — this thread's record (made when the thread first needs one, linked into the
 * registry when other threads must see it), the records of other threads of ours by TID, and
 * what fork() does to the shim's state. */
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "budget.h"
#include "registry.h"
#include "runaway.h"
#include "thread.h"
#include "raw-syscall.h"
#include "wire-bus.h"

/* initial-exec: the shim is loaded at start-up (LD_PRELOAD); no __tls_get_addr, no libc-only
 * violation (NEEDED ld-linux), and cheap in every hook. */
#define RTSHIM_TLS __thread __attribute__((tls_model("initial-exec")))

/* This thread's record: made when the thread first needs one, never when it is created (a
 * thread that never asks for realtime costs the shim nothing).  Linked into the registry, with
 * a destructor that unlinks it when the thread ends, once other threads must see it: its
 * request goes to rtkit (readers wait for the outcome), or the shim set a flag on it. */
RTSHIM_TLS struct rtshim_thread rtshim_self_rec;
/* The process whose memory this is (set at start and in a forked child).  A vfork child, or a
 * child cloned without the atfork handlers, runs in memory that is not its own: it must leave
 * the parent's records, connection and limits alone. */
static pid_t process_pid;
/* What rtshim_self() gives such a child: a record of nobody, never linked. */
static struct rtshim_thread vfork_child_record;

bool rtshim_in_vfork_child(void)
{
	pid_t p = __atomic_load_n(&process_pid, __ATOMIC_RELAXED);
	return p && getpid() != p;
}
static pthread_key_t end_key;
static pthread_once_t end_key_once = PTHREAD_ONCE_INIT;
static bool end_key_ok;

static void thread_ends(void *p)
{
	/* cancelled or exited in the middle of a request: its readers stop waiting now */
	rtshim_registry_pending_end(p);
	/* a realtime slot of rtkit's may be free now */
	if (__atomic_load_n(&((struct rtshim_thread *)p)->flags, __ATOMIC_RELAXED) & RTSHIM_TF_GRANTED)
		rtshim_budget_rt_thread_gone();
	rtshim_registry_remove(p);
}

static void make_end_key(void)
{
	end_key_ok = pthread_key_create(&end_key, thread_ends) == 0;
}

/* This thread's record, given its TID (a request asks gettid() once, not at every step: the
 * privileged path is measured against the bare system call). */
static struct rtshim_thread *self_at(pid_t tid)
{
	if (rtshim_self_rec.tid != tid) {
		if (rtshim_in_vfork_child())
			return &vfork_child_record;
		/* first use in this thread, or a child forked by other means than fork() */
		bool linked = rtshim_self_rec.linked;
		if (linked)
			rtshim_registry_remove(&rtshim_self_rec);
		rtshim_self_rec.handle = pthread_self();
		rtshim_self_rec.tid = tid;
		__atomic_store_n(&rtshim_self_rec.flags, 0, __ATOMIC_RELAXED);
		if (linked)
			rtshim_registry_add(&rtshim_self_rec);
	}
	return &rtshim_self_rec;
}

/* Link this thread's record (self_at done), taking over what other threads recorded about it. */
static void link_self(void)
{
	if (rtshim_self_rec.linked)
		return;
	pthread_once(&end_key_once, make_end_key);
	if (!end_key_ok)
		return; /* cannot unlink it at its end: not linked (others see no flags, fail open) */
	pthread_setspecific(end_key, &rtshim_self_rec);
	rtshim_registry_add(&rtshim_self_rec);
}

/* Another thread set flags on this one before it had a record (a side record): take them over
 * now, so that this thread reads them from its own record from here on. */
static void take_over_side_record(void)
{
	if (!rtshim_self_rec.linked && rtshim_registry_has_side_records() &&
	    rtshim_registry_by_tid(rtshim_self_rec.tid, NULL) == 0)
		link_self();
}

struct rtshim_thread *rtshim_self(void)
{
	struct rtshim_thread *s = self_at(gettid());
	if (s == &rtshim_self_rec)
		link_self();
	return s;
}

int rtshim_self_flags(void)
{
	if (!rtshim_self_rec.linked && !rtshim_registry_has_side_records())
		return 0; /* nothing recorded about this thread (nor about any other) */
	struct rtshim_thread *s = self_at(gettid());
	if (s == &rtshim_self_rec)
		take_over_side_record();
	return __atomic_load_n(&s->flags, __ATOMIC_RELAXED);
}

void rtshim_thread_abandoned(void)
{
	if (rtshim_self_rec.linked) {
		pthread_setspecific(end_key, NULL);
		rtshim_registry_remove(&rtshim_self_rec);
	}
}

static void atfork_prepare(void)
{
	rtshim_runaway_atfork_prepare();
	rtshim_registry_atfork_prepare();
}

static void atfork_parent(void)
{
	rtshim_registry_atfork_parent();
	rtshim_runaway_atfork_release();
}

static void atfork_child(void)
{
	__atomic_store_n(&process_pid, getpid(), __ATOMIC_RELAXED);
	rtshim_budget_atfork_child();
	rtshim_registry_atfork_child(&rtshim_self_rec, gettid());
	rtshim_runaway_atfork_release();
}

void rtshim_thread_init(void)
{
	__atomic_store_n(&process_pid, getpid(), __ATOMIC_RELAXED);
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
	rtshim_wire_fork_handlers();
}

void rtshim_thread_update(struct rtshim_thread *t, int set, int clear)
{
	if (t == &rtshim_self_rec && !t->linked && (set || rtshim_registry_has_side_records()) &&
	    !rtshim_in_vfork_child()) {
		take_over_side_record();
		if (set)
			link_self(); /* other threads must see what is set on this one */
	}
	int f = __atomic_load_n(&t->flags, __ATOMIC_RELAXED);
	if (((f & ~clear) | set) != f && !rtshim_in_vfork_child())
		__atomic_store_n(&t->flags, (f & ~clear) | set, __ATOMIC_RELAXED);
}

RTSHIM_UNINSTRUMENTED bool rtshim_self_maybe_changed_uninstrumented(void)
{
	if (__atomic_load_n(&rtshim_self_rec.flags, __ATOMIC_RELAXED) & (RTSHIM_TF_GRANTED | RTSHIM_TF_FLAG_ADDED))
		return true;
	if (rtshim_self_rec.linked || !rtshim_registry_has_side_records())
		return false;
	/* maybe in a side record another thread made: only if this thread carries the flag every
	 * record describes (a thread that has just started never does) */
	long k = rtshim_raw_syscall(SYS_sched_getscheduler, 0L);
	return k >= 0 && (k & SCHED_RESET_ON_FORK);
}

struct rtshim_thread *rtshim_self_cheap(void)
{
	return rtshim_self_rec.tid ? &rtshim_self_rec : self_at(gettid());
}

void rtshim_thread_update_tid(pid_t tid, int set, int clear)
{
	if (tid == rtshim_self_rec.tid)
		rtshim_thread_update(&rtshim_self_rec, set, clear);
	else if (!rtshim_in_vfork_child())
		rtshim_registry_update(false, (pthread_t)0, tid, set, clear);
}

void rtshim_thread_flag_ours(pid_t tid, int old_policy)
{
	if (!(old_policy & SCHED_RESET_ON_FORK))
		rtshim_thread_update_tid(tid, RTSHIM_TF_FLAG_ADDED, 0);
}

int rtshim_flags_by_pid(pid_t pid)
{
	int flags = 0;
	if (pid == 0 || pid == gettid())
		flags = rtshim_self_flags();
	else
		rtshim_registry_by_tid(pid, &flags);
	return flags;
}
