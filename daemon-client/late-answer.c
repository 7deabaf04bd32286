/* late-answer.c — see late-answer.h.
 *
 * The watcher is a copy of the process (no CLONE_VM): the connection struct and the undo are
 * its own copies, and errno is its own.  It reads with the same bounded reader as every call
 * (rtshim_wire_reply: raw clock and poll, send/recv, no lock, no allocation), then uses only
 * raw system calls.  The watchers' PIDs are kept with the PID of the process that made them: a
 * child forked meanwhile has none of its own to reap. */
#include "late-answer.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "raw-child.h"
#include "raw-syscall.h"
#include "raw-time.h"

#define WATCHERS 4
#define FLAG_RESET_ON_FORK 1u /* SCHED_FLAG_RESET_ON_FORK */

/* (owner << 32) | watcher, both PIDs; 0: a free slot, a watcher of -1: one being made */
static int64_t watchers[WATCHERS];
/* when each was made (CLOCK_MONOTONIC ns): one still there well past its own bound (stuck
 * where it should not be) is killed, so that no request waits for it for ever */
static int64_t made_at[WATCHERS];
#define OVERDUE_NS ((int64_t)(RTSHIM_LATE_ANSWER_MS + 5000) * 1000000)

static int64_t slot_value(pid_t owner, pid_t watcher)
{
	return (int64_t)((uint64_t)(uint32_t)owner << 32 | (uint32_t)watcher);
}

static bool read_attr(pid_t tid, struct rtshim_sched_attr *a)
{
	*a = (struct rtshim_sched_attr){ 0 };
	return rtshim_raw_syscall(SYS_sched_getattr, (long)tid, a, (long)sizeof *a, 0L) == 0;
}

void rtshim_late_before(pid_t pid, pid_t tid, bool realtime, int value, struct rtshim_late_undo *u)
{
	int saved = errno;
	u->tgid = pid ? pid : getpid();
	u->tid = tid;
	u->realtime = realtime;
	u->value = value;
	u->known = read_attr(tid, &u->before);
	errno = saved;
}

static bool is_rt(uint32_t policy)
{
	return policy == SCHED_FIFO || policy == SCHED_RR;
}

bool rtshim_late_granted(const struct rtshim_late_undo *u)
{
	struct rtshim_sched_attr now;
	int saved = errno;
	bool read = read_attr(u->tid, &now);
	errno = saved;
	if (!read)
		return false;
	if (u->realtime)
		return is_rt(now.policy) && now.prio == (uint32_t)u->value;
	return !is_rt(now.policy) && now.nice == u->value;
}

/* The thread as it was: the kernel refuses an unprivileged caller who clears the
 * reset-on-fork flag rtkit set, so it stays where it must. */
static void put_back(const struct rtshim_late_undo *u)
{
	struct rtshim_sched_attr a = u->before;
	a.size = (uint32_t)sizeof a;
	if (rtshim_raw_syscall(SYS_sched_setattr, (long)u->tid, &a, 0L) == 0 || errno != EPERM)
		return;
	a.flags |= FLAG_RESET_ON_FORK;
	rtshim_raw_syscall(SYS_sched_setattr, (long)u->tid, &a, 0L);
}

/* What the watcher reads: in its own copy of the memory, the calling thread's very structs. */
struct watch {
	struct rtshim_wire_conn *conn;
	uint32_t serial;
	const struct rtshim_late_undo *undo;
};

/* In the watcher: the late answer; a grant is undone if the thread is still the process's and
 * still as the grant made it (what the program did since is its own). */
static void watch(void *arg)
{
	struct watch *w = arg;
	struct rtshim_wire_msg m;
	int64_t deadline = rtshim_raw_now_ns() + (int64_t)RTSHIM_LATE_ANSWER_MS * 1000000;
	if (rtshim_wire_reply(w->conn, w->serial, deadline, &m) < 0 ||
	    m.type != RTSHIM_WIRE_METHOD_RETURN)
		return;
	if (rtshim_raw_syscall(SYS_tgkill, (long)w->undo->tgid, (long)w->undo->tid, 0L) == 0 &&
	    rtshim_late_granted(w->undo))
		put_back(w->undo);
}

int rtshim_late_hand_over(struct rtshim_wire_conn *c, uint32_t serial,
			  const struct rtshim_late_undo *u)
{
	if (!u->known || c->fd < 0 || c->out_len) /* a request not all written never arrives */
		return -EINVAL;
	int saved = errno;
	pid_t self = getpid();
	int64_t making = slot_value(self, -1);
	int i, r = -EAGAIN;
	for (i = 0; i < WATCHERS; i++) {
		int64_t free_slot = 0;
		if (__atomic_compare_exchange_n(&watchers[i], &free_slot, making, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			break;
	}
	if (i < WATCHERS) {
		struct watch w = { .conn = c, .serial = serial, .undo = u };
		__atomic_store_n(&made_at[i], rtshim_raw_now_ns(), __ATOMIC_RELAXED);
		pid_t pid = rtshim_raw_child(c->fd, watch, &w);
		__atomic_store_n(&watchers[i], pid > 0 ? slot_value(self, pid) : 0, __ATOMIC_RELEASE);
		r = pid > 0 ? 0 : pid;
	}
	errno = saved;
	return r;
}

bool rtshim_late_pending(void)
{
	int saved = errno;
	pid_t self = getpid();
	bool pending = false;
	for (int i = 0; i < WATCHERS; i++) {
		int64_t v = __atomic_load_n(&watchers[i], __ATOMIC_ACQUIRE);
		if (!v)
			continue;
		pid_t owner = (pid_t)(v >> 32), pid = (pid_t)(uint32_t)v;
		if (owner == self && pid > 0 &&
		    rtshim_raw_now_ns() - __atomic_load_n(&made_at[i], __ATOMIC_RELAXED) > OVERDUE_NS)
			rtshim_raw_syscall(SYS_kill, (long)pid, (long)SIGKILL); /* ours until reaped */
		if (owner == self && (pid == -1 || !rtshim_raw_child_gone(pid))) {
			pending = true;
			continue;
		}
		/* reaped, or a watcher of the process this one was forked from */
		__atomic_compare_exchange_n(&watchers[i], &v, 0, false, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED);
	}
	errno = saved;
	return pending;
}
