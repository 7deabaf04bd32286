/* hooks-syscall.c — programs that make their scheduling call through libc's syscall() get what
 * the sched_* interposers give.  util-linux's chrt does (musl's sched_setscheduler is not the
 * system call, so chrt makes the system call itself), and so does code written with musl in
 * mind, or for sched_setattr, which glibc 2.36 does not wrap.  The exported entry is assembly
 * (hooks-syscall-entry.S): only sched_setscheduler, sched_setparam and sched_setattr come here,
 * with exactly the arguments those system calls take. */
#include <errno.h>
#include <stdint.h>
#include <sys/syscall.h>

#include "hooks.h"
#include "raw-syscall.h"

/* The leading fields of the kernel's struct sched_attr (linux/sched/types.h): all this reads. */
struct sched_attr_head {
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t priority;
};

/* The next syscall() (libc's), read by the entry; NULL until resolved. */
syscall_fn *rtshim_syscall_next;

static long next_setattr(long pid, const void *a, long flags)
{
	syscall_fn *next = __atomic_load_n(&rtshim_syscall_next, __ATOMIC_ACQUIRE);
	return next ? next(SYS_sched_setattr, pid, a, flags)
		    : rtshim_raw_syscall(SYS_sched_setattr, pid, a, flags);
}

/* The sizes of struct sched_attr a copy can hold (the kernel's VER0 is 48, VER1 56). */
#define ATTR_COPY_MAX 128

/* Rule 20: the attribute again, with SCHED_FLAG_RESET_ON_FORK, for a thread of this process that
 * carries the flag; on success its record says the flag is the shim's (the readers hide it).
 * -1 with errno EPERM when not retried (the kernel's answer stands). */
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

/* sched_setattr: made as asked; on the kernel's EPERM rule 19 (core/decide.c) makes a realtime
 * one the sched_setscheduler request, rule 20 retries the others keeping the flag. */
static long set_attr(long pid, const struct sched_attr_head *a, long flags)
{
	long r = next_setattr(pid, a, flags);
	int policy;
	/* only EPERM says the kernel could read the attribute (EFAULT: it is not there to read) */
	if (r == 0 || errno != EPERM)
		return r;
	if (!rtshim_attr_as_setscheduler(errno, a->policy, a->flags, &policy))
		return keeping_flag(pid, a, flags);
	struct sched_param p = { .sched_priority = (int)a->priority };
	return sched_setscheduler((pid_t)pid, policy, &p);
}

long rtshim_syscall_sched(long number, long pid, long a2, long a3)
{
	if (number == SYS_sched_setattr)
		return set_attr(pid, (const struct sched_attr_head *)(uintptr_t)a2, a3);
	if (number == SYS_sched_setparam)
		return sched_setparam((pid_t)pid, (const struct sched_param *)(uintptr_t)a2);
	return sched_setscheduler((pid_t)pid, (int)a2, (const struct sched_param *)(uintptr_t)a3);
}

void rtshim_resolve_syscall(void)
{
	if (!__atomic_load_n(&rtshim_syscall_next, __ATOMIC_ACQUIRE))
		__atomic_store_n(&rtshim_syscall_next, (syscall_fn *)rtshim_next_symbol("syscall", NULL),
				 __ATOMIC_RELEASE);
}
