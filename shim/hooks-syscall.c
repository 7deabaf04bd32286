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

/* The sched_* interposers themselves (hooks-sched.c). */
int rtshim_sched_setscheduler(pid_t pid, int policy, const struct sched_param *param) RTSHIM_HIDDEN;
int rtshim_sched_setparam(pid_t pid, const struct sched_param *param) RTSHIM_HIDDEN;

/* sched_setattr: made as asked; rule 19 (core/decide.c) says when the kernel's EPERM makes it
 * the sched_setscheduler request. */
static long set_attr(long pid, const struct sched_attr_head *a, long flags)
{
	syscall_fn *next = __atomic_load_n(&rtshim_syscall_next, __ATOMIC_ACQUIRE);
	long r = next ? next(SYS_sched_setattr, pid, a, flags)
		      : rtshim_raw_syscall(SYS_sched_setattr, pid, a, flags);
	int policy;
	/* only EPERM says the kernel could read the attribute (EFAULT: it is not there to read) */
	if (r == 0 || errno != EPERM || !rtshim_attr_as_setscheduler(errno, a->policy, a->flags, &policy))
		return r;
	struct sched_param p = { .sched_priority = (int)a->priority };
	return rtshim_sched_setscheduler((pid_t)pid, policy, &p);
}

long rtshim_syscall_sched(long number, long pid, long a2, long a3)
{
	if (number == SYS_sched_setattr)
		return set_attr(pid, (const struct sched_attr_head *)(uintptr_t)a2, a3);
	if (number == SYS_sched_setparam)
		return rtshim_sched_setparam((pid_t)pid, (const struct sched_param *)(uintptr_t)a2);
	return rtshim_sched_setscheduler((pid_t)pid, (int)a2, (const struct sched_param *)(uintptr_t)a3);
}
