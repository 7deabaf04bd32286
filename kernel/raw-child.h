/* raw-child.h — a short-lived child process of the shim's own, invisible to the program: made by
 * the raw clone system call, so that no fork handler of the program's (or glibc's) runs, and
 * with exit signal 0, so that the program gets no SIGCHLD and its wait(), waitpid(-1) and
 * waitid(P_ALL) never see it (a child whose exit signal is not SIGCHLD is a "clone" child: only
 * __WALL or __WCLONE waits, like rtshim_raw_child_gone's, find it).
 *
 * Every argument of the clone is 0: no flag (no CLONE_VM: the child has a copy of the memory,
 * as after fork, and returns from the system call on its copy of the stack), exit signal 0, no
 * new stack, no TID or TLS words.  That is why the order of the arguments, which differs between
 * architectures (s390x takes the stack before the flags; i386 and arm take the TLS before the
 * child's TID word), does not matter here.
 *
 * The child starts with every signal blocked (blocked in the calling thread around the clone,
 * so that none of the program's handlers can run in the copy, not even in its first
 * instruction: a signal to the process group reaches the child too), holds no descriptor but
 * `keep_fd` (a copy of a pipe's write end would keep the program's reader from seeing its end),
 * runs fn(arg) and exits.  In the child only system calls and functions that take no lock and
 * allocate nothing may run: the calling thread is the only one copied, another thread may have
 * held any lock.  Defined here, in the raw system calls' folder, because the daemon client
 * (which may include only core/ and kernel/) uses it, and os/ may too. */
#ifndef RTSHIM_RAW_CHILD_H
#define RTSHIM_RAW_CHILD_H

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "raw-rlimit.h"
#include "raw-syscall.h"

#ifndef SYS_close_range
#define SYS_close_range 436 /* the same number on every architecture the project builds */
#endif

/* the kernel's sigset_t: 64 signals on every architecture the project builds */
#define RTSHIM_KERNEL_SIGSET_SIZE 8L

/* Every descriptor but `keep` closed (close_range, Linux 5.9; before it, one at a time up to
 * RLIMIT_NOFILE, at most 65536 of them). */
static inline void rtshim_raw_close_all_but(int keep)
{
	bool ranged = true;
	if (keep > 0)
		ranged = rtshim_raw_syscall(SYS_close_range, 0L, (long)keep - 1, 0L) == 0;
	if (ranged && rtshim_raw_syscall(SYS_close_range, (long)keep + 1, (long)~0U, 0L) == 0)
		return;
	struct rlimit nofile = { 65536, 65536 };
	rtshim_raw_prlimit(0, RLIMIT_NOFILE, NULL, &nofile);
	long top = nofile.rlim_cur < 65536 ? (long)nofile.rlim_cur : 65536;
	for (long fd = 0; fd < top; fd++)
		if (fd != keep)
			rtshim_raw_syscall(SYS_close, fd);
}

/* The child running fn(arg), described above: its PID, or -errno (nothing was made). */
static inline pid_t rtshim_raw_child(int keep_fd, void (*fn)(void *), void *arg)
{
	unsigned long long all = ~0ULL, old = 0;
	if (rtshim_raw_syscall(SYS_rt_sigprocmask, (long)SIG_SETMASK, &all, &old,
			       RTSHIM_KERNEL_SIGSET_SIZE) < 0)
		return -errno;
	long pid = rtshim_raw_syscall(SYS_clone, 0L, 0L, 0L, 0L, 0L);
	if (pid == 0) {
		rtshim_raw_close_all_but(keep_fd);
		fn(arg);
		rtshim_raw_syscall(SYS_exit_group, 0L);
		__builtin_unreachable();
	}
	int err = pid < 0 ? errno : 0;
	rtshim_raw_syscall(SYS_rt_sigprocmask, (long)SIG_SETMASK, &old, NULL,
			   RTSHIM_KERNEL_SIGSET_SIZE);
	return err ? -err : (pid_t)pid;
}

/* Reaps child `pid` if it has exited, without waiting: true once it is gone (reaped now, or
 * by someone else before: no such child), false while it runs. */
static inline bool rtshim_raw_child_gone(pid_t pid)
{
	siginfo_t info;
	info.si_pid = 0;
	long r = rtshim_raw_syscall(SYS_waitid, (long)P_PID, (long)pid, &info,
				    (long)(WEXITED | WNOHANG | __WALL), NULL);
	return r < 0 ? errno != EINTR : info.si_pid != 0;
}

#endif
