/* hooks-syscall.c — programs that make their scheduling call through libc's syscall() get what
 * the sched_* interposers give.  util-linux's chrt does (musl's sched_setscheduler is not the
 * system call, so chrt makes the system call itself), and so does code written with musl in
 * mind.  The exported entry is assembly (hooks-syscall-entry.S): only sched_setscheduler and
 * sched_setparam come here, with exactly the arguments those system calls take. */
#include <dlfcn.h>
#include <stdint.h>
#include <sys/syscall.h>

#include "hooks.h"

/* The next syscall() (libc's), read by the entry; NULL until resolved. */
syscall_fn *rtshim_syscall_next;

long rtshim_syscall_sched(long number, long pid, long a2, long a3)
{
	if (number == SYS_sched_setparam)
		return sched_setparam((pid_t)pid, (const struct sched_param *)(uintptr_t)a2);
	return sched_setscheduler((pid_t)pid, (int)a2, (const struct sched_param *)(uintptr_t)a3);
}

void rtshim_resolve_syscall(void)
{
	if (!__atomic_load_n(&rtshim_syscall_next, __ATOMIC_ACQUIRE))
		__atomic_store_n(&rtshim_syscall_next, (syscall_fn *)dlsym(RTLD_NEXT, "syscall"),
				 __ATOMIC_RELEASE);
}
