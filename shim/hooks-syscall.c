/* hooks-syscall.c — programs that make their scheduling call through libc's syscall() get what
 * the sched_* interposers give.  util-linux's chrt does (musl's sched_setscheduler is not the
 * system call, so chrt makes the system call itself), and so does code written with musl in
 * mind, or for sched_setattr, which glibc 2.36 does not wrap.  The exported entry is assembly
 * (hooks-syscall-entry.S): only sched_setscheduler, sched_setparam, sched_setattr and their
 * readers come here, with exactly the arguments those system calls take; so do glibc 2.41's
 * sched_setattr() and sched_getattr() functions. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>

#include "hooks.h"
#include "log.h"
#include "raw-syscall.h"

/* The leading fields of the kernel's struct sched_attr (linux/sched/types.h): all this reads. */
struct sched_attr_head {
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t priority;
};

#ifndef SCHED_FLAG_RESET_ON_FORK
#define SCHED_FLAG_RESET_ON_FORK 0x01 /* linux/sched.h, which clashes with sched.h */
#endif

/* The sched_* interposers themselves (hooks-sched.c). */
int rtshim_sched_setscheduler(pid_t pid, int policy, const struct sched_param *param) RTSHIM_HIDDEN;
int rtshim_sched_setparam(pid_t pid, const struct sched_param *param) RTSHIM_HIDDEN;
int rtshim_sched_getscheduler(pid_t pid) RTSHIM_HIDDEN;
int rtshim_sched_getparam(pid_t pid, struct sched_param *param) RTSHIM_HIDDEN;

/* The next sched_setattr: libc's syscall(), or the system call until that is resolved. */
static long next_setattr(long pid, const void *a, long flags)
{
	syscall_fn *next = __atomic_load_n(&rtshim_syscall_next, __ATOMIC_ACQUIRE);
	return next ? next(SYS_sched_setattr, pid, a, flags)
		    : rtshim_raw_syscall(SYS_sched_setattr, pid, a, flags);
}

/* The largest struct sched_attr written back below (the kernel's is 56 bytes today; it checks
 * that bytes it does not know are zero). */
#define ATTR_COPY_MAX 128

/* sched_setattr refused (EPERM) with what the readers report for a thread the shim changed:
 * the program writes back what sched_getattr gave it, another field changed (stress-ng's
 * utilization clamp).  Made again with the kernel's policy, priority and reset-on-fork flag in
 * place of the reported ones: 0, or -1 with errno EPERM (not that case, or the kernel's own
 * errno). */
static long write_back_as_kernel(long pid, const struct sched_attr_head *a, long flags)
{
	struct rtshim_hook h;
	size_t size = a->size ? a->size : 48; /* 0: the first version's 48 bytes */
	if (size < sizeof *a || size > ATTR_COPY_MAX || !rtshim_hook_enter(&h))
		return -1;
	long r = -1;
	int err = EPERM, f = rtshim_flags_by_pid((pid_t)pid);
	int kernel = f ? rtshim_real_sched_getscheduler()((pid_t)pid) : -1;
	struct sched_param now;
	int asked = (int)a->policy | (a->flags & SCHED_FLAG_RESET_ON_FORK ? SCHED_RESET_ON_FORK : 0);
	if (kernel >= 0 && rtshim_real_sched_getparam()((pid_t)pid, &now) == 0 &&
	    rtshim_policy_reported(kernel, f) == asked &&
	    rtshim_prio_reported(kernel, now.sched_priority, f) == (int)a->priority) {
		union {
			struct sched_attr_head head;
			unsigned char bytes[ATTR_COPY_MAX];
		} copy;
		memcpy(copy.bytes, a, size);
		copy.head.policy = (uint32_t)(kernel & ~SCHED_RESET_ON_FORK);
		copy.head.priority = (uint32_t)now.sched_priority;
		if (kernel & SCHED_RESET_ON_FORK)
			copy.head.flags |= SCHED_FLAG_RESET_ON_FORK;
		r = next_setattr(pid, copy.bytes, flags);
		err = r < 0 ? errno : 0;
	}
	rtshim_hook_leave(&h, err);
	return r;
}

/* rtshim(7) rule 20: the attribute again, with SCHED_FLAG_RESET_ON_FORK, for a thread of this
 * process that carries the flag; on success its record says the flag is the shim's (the readers
 * hide it).  -1 with errno EPERM when not retried (the kernel's answer stands). */
static long keeping_flag(long pid, const struct sched_attr_head *a, long flags)
{
	struct rtshim_hook h;
	pid_t tid, other;
	uint64_t with_flag;
	long r = -1;
	size_t size = a->size ? a->size : 48; /* 0 is the kernel's VER0 */
	if (size < sizeof *a || size > ATTR_COPY_MAX || !rtshim_hook_enter(&h))
		goto refused;
	enum rtshim_target where = rtshim_target_of_tid((pid_t)pid, &tid, &other);
	int cur = where == RTSHIM_TARGET_SELF || where == RTSHIM_TARGET_OWN
			  ? rtshim_real_sched_getscheduler()(tid) : -1;
	if (rtshim_attr_keeps_flag(EPERM, a->flags, cur, &with_flag)) {
		union { struct sched_attr_head head; unsigned char bytes[ATTR_COPY_MAX]; } copy;
		__builtin_memcpy(copy.bytes, a, size);
		copy.head.flags = with_flag;
		r = next_setattr(pid, &copy, flags);
		if (r == 0) {
			struct rtshim_req req = { .kind = RTSHIM_REQ_SCHED_SETSCHEDULER, .pid = (pid_t)pid,
						  .policy = (int)a->policy };
			rtshim_record_direct_flags(&req, RTSHIM_FLAG_SHIMS);
		}
	}
	rtshim_hook_leave(&h, 0);
	if (r == 0)
		return 0;
refused:
	errno = EPERM;
	return -1;
}

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif

/* SCHED_DEADLINE refused (EPERM): rtkit grants SCHED_RR or SCHED_FIFO only, so the kernel's
 * answer stands; said once at the info log level (-v).  -1 with errno EPERM. */
static long deadline_as_is(void)
{
	struct rtshim_hook h;
	if (rtshim_hook_enter(&h)) {
		rtshim_cfg(); /* the log level */
		rtshim_log_once(RTSHIM_LOG_INFO, 0, "sched_setattr(SCHED_DEADLINE) refused by the kernel (EPERM): rtkit has no deadline policy; passed to the kernel as is");
		rtshim_hook_leave(&h, EPERM);
	}
	errno = EPERM;
	return -1;
}

/* sched_setattr: made as asked; on the kernel's EPERM rtshim(7) rule 19 (core/decide.c) makes a
 * realtime one the sched_setscheduler request, rtshim(7) rule 20 retries the others keeping the
 * flag. */
static long set_attr(long pid, const struct sched_attr_head *a, long flags)
{
	long r = next_setattr(pid, a, flags);
	int policy;
	/* only EPERM says the kernel could read the attribute (EFAULT: it is not there to read) */
	if (r == 0 || errno != EPERM)
		return r;
	if (write_back_as_kernel(pid, a, flags) == 0)
		return 0;
	if (a->policy == SCHED_DEADLINE)
		return deadline_as_is();
	if (!rtshim_attr_as_setscheduler(errno, a->policy, a->flags, &policy))
		return keeping_flag(pid, a, flags);
	struct sched_param p = { .sched_priority = (int)a->priority };
	return rtshim_sched_setscheduler((pid_t)pid, policy, &p);
}

/* sched_getattr: what the readers report (DESIGN.md rule 6), SCHED_FLAG_RESET_ON_FORK included. */
static long get_attr(long pid, struct sched_attr_head *a, long size, long flags)
{
	struct rtshim_hook h;
	syscall_fn *next = __atomic_load_n(&rtshim_syscall_next, __ATOMIC_ACQUIRE);
	if (!next)
		next = rtshim_raw_syscall;
	if (!rtshim_hook_enter(&h))
		return next(SYS_sched_getattr, pid, a, size, flags);
	/* another thread of ours with its own RT request in flight (rtkit): its outcome */
	if (pid != 0)
		rtshim_registry_wait_settled(false, 0, (pid_t)pid, rtshim_cfg()->timeout_ms);
	long r = next(SYS_sched_getattr, pid, a, size, flags);
	int err = r < 0 ? errno : 0, f;
	if (r == 0 && (f = rtshim_flags_by_pid((pid_t)pid)) != 0) {
		int kernel = (int)a->policy | (a->flags & SCHED_FLAG_RESET_ON_FORK ? SCHED_RESET_ON_FORK : 0);
		int reported = rtshim_policy_reported(kernel, f);
		a->priority = (uint32_t)rtshim_prio_reported(kernel, (int)a->priority, f);
		a->policy = (uint32_t)(reported & ~SCHED_RESET_ON_FORK);
		if (!(reported & SCHED_RESET_ON_FORK))
			a->flags &= ~(uint64_t)SCHED_FLAG_RESET_ON_FORK;
	}
	rtshim_hook_leave(&h, err);
	return r;
}

#if __GLIBC_PREREQ(2, 41)
/* glibc 2.41's sched_setattr() and sched_getattr() make the system call themselves, not through
 * syscall(): they take the way of their syscall() forms.  Exported where the glibc built against
 * has them (shim/librtshim.map), so that every export stays a function of libc. */
RTSHIM_EXPORT int sched_setattr(pid_t pid, struct sched_attr *attr, unsigned int flags)
{
	return (int)set_attr(pid, (const struct sched_attr_head *)attr, flags);
}

RTSHIM_EXPORT int sched_getattr(pid_t pid, struct sched_attr *attr, unsigned int size, unsigned int flags)
{
	return (int)get_attr(pid, (struct sched_attr_head *)attr, size, flags);
}
#endif

long rtshim_syscall_sched(long number, long pid, long a2, long a3, long a4)
{
	if (number == SYS_sched_getscheduler)
		return rtshim_sched_getscheduler((pid_t)pid);
	if (number == SYS_sched_getparam)
		return rtshim_sched_getparam((pid_t)pid, (struct sched_param *)(uintptr_t)a2);
	if (number == SYS_sched_getattr)
		return get_attr(pid, (struct sched_attr_head *)(uintptr_t)a2, a3, a4);
	if (number == SYS_sched_setattr)
		return set_attr(pid, (const struct sched_attr_head *)(uintptr_t)a2, a3);
	if (number == SYS_sched_setparam)
		return rtshim_sched_setparam((pid_t)pid, (const struct sched_param *)(uintptr_t)a2);
	return rtshim_sched_setscheduler((pid_t)pid, (int)a2, (const struct sched_param *)(uintptr_t)a3);
}
