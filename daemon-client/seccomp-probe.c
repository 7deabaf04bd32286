/* seccomp-probe.c — see seccomp-probe.h.
 *
 * The child is made with clone(CLONE_VM | CLONE_VFORK) and exit signal 0: glibc's fork is not
 * used, so no atfork handler runs; the program gets no SIGCHLD and its wait() or waitpid(-1)
 * never sees the child (a child whose exit signal is not SIGCHLD is seen only by __WALL or
 * __WCLONE waits: the one here).  It shares the program's memory (its answer is written there)
 * and nothing else: its own descriptors, limits and signal dispositions, so that what it sets
 * to try the calls is undone with it.  It blocks every signal first, so a filter's SIGSYS kills
 * it as the kernel forces the default action, and no handler of the program's runs in it.  The parent waits for it (CLONE_VFORK) and reaps it.
 */
#include "seccomp-probe.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "client-internal.h"
#include "raw-syscall.h"
#include "raw-time.h"
#include "wire-bus.h"

#define CHILD_STACK_SIZE (32 * 1024)

struct probe {
	const char *address;
	int64_t deadline;
	int reached; /* written by the child: it got through every call */
};

/* The calls a request makes besides the bus's, each undone in the child (its own limits and
 * dispositions): RLIMIT_RTTIME read and set, SIGXCPU's disposition read and set, its policy. */
static void other_calls(void)
{
	struct rlimit rl;
	struct sigaction sa;
	if (rtshim_raw_syscall(SYS_prlimit64, 0L, (long)RLIMIT_RTTIME, 0L, (long)&rl, 0L) == 0)
		rtshim_raw_syscall(SYS_prlimit64, 0L, (long)RLIMIT_RTTIME, (long)&rl, 0L, 0L);
	if (rtshim_raw_syscall(SYS_rt_sigaction, (long)SIGXCPU, 0L, (long)&sa, 8L) == 0)
		rtshim_raw_syscall(SYS_rt_sigaction, (long)SIGXCPU, (long)&sa, 0L, 8L);
	rtshim_raw_syscall(SYS_sched_getscheduler, 0L);
}

static int child(void *arg)
{
	struct probe *p = arg;
	struct rtshim_wire_conn c;
	struct rtshim_wire_msg m;
	/* every signal blocked, the synchronous ones too (the shim's own stack leaves those to the
	 * program's handlers): a filter's SIGSYS, or any fault, then kills the child and runs no
	 * handler of the program's, whose memory the child shares */
	uint64_t all = ~(uint64_t)0;
	rtshim_raw_syscall(SYS_rt_sigprocmask, (long)SIG_SETMASK, (long)&all, 0L, 8L);
	other_calls();
	/* the connection, authentication and Hello, as the client makes them */
	if (rtshim_wire_open_untracked(&c, p->address, p->deadline) == 0) {
		rtshim_wire_reply(&c, RTSHIM_WIRE_HELLO_SERIAL, p->deadline, &m);
		rtshim_wire_close(&c);
	}
	__atomic_store_n(&p->reached, 1, __ATOMIC_RELAXED);
	rtshim_raw_syscall(SYS_exit, 0L);
	return 0;
}

/* 1: a child made the client's calls and lived; 0: it died (or could not be made). */
static int child_lives(const char *address, int timeout_ms)
{
	_Alignas(16) unsigned char stack[CHILD_STACK_SIZE];
	struct probe p = { .address = address, .reached = 0 };
	p.deadline = rtshim_raw_now_ns() + (int64_t)timeout_ms * 1000000;
	int saved = errno;
	int pid = clone(child, stack + sizeof stack, CLONE_VM | CLONE_VFORK, &p);
	int lived = 0;
	if (pid > 0) {
		siginfo_t info;
		memset(&info, 0, sizeof info);
		while (rtshim_raw_syscall(SYS_waitid, (long)P_PID, (long)pid, (long)&info,
					  (long)(WEXITED | __WALL), 0L) < 0 && errno == EINTR)
			;
		lived = info.si_code == CLD_EXITED && __atomic_load_n(&p.reached, __ATOMIC_RELAXED);
	}
	errno = saved;
	return lived;
}

/* How many filters the process has (Seccomp_filters in /proc/self/status, Linux 5.9+), or -1:
 * a filter added after a probe is probed again. */
static long filter_count(void)
{
	char buf[2048];
	long n = -1;
	int saved = errno;
	int fd = (int)rtshim_raw_syscall(SYS_openat, (long)AT_FDCWD, (long)"/proc/self/status",
					 (long)(O_RDONLY | O_CLOEXEC), 0L);
	if (fd >= 0) {
		long len = rtshim_raw_syscall(SYS_read, (long)fd, (long)buf, (long)sizeof buf - 1);
		rtshim_raw_syscall(SYS_close, (long)fd);
		if (len > 0) {
			buf[len] = '\0';
			const char *k = strstr(buf, "\nSeccomp_filters:");
			if (k)
				for (k += 17, n = 0; *k == ' ' || *k == '\t' || (*k >= '0' && *k <= '9'); k++)
					if (*k >= '0')
						n = n * 10 + (*k - '0');
		}
	}
	errno = saved;
	return n;
}

/* ((filters + 1) << 2) | 2 | lets: the last answer, and for how many filters; 0: none yet */
static long answer;

bool rtshim_client_passes_filter(int timeout_ms)
{
	/* an unknown sandbox's filter may kill the child's clone itself, in the program */
	if (!rtshim_in_sandbox())
		return false;
	long filters = filter_count();
	long a = __atomic_load_n(&answer, __ATOMIC_RELAXED);
	if (a && a >> 2 == filters + 1)
		return a & 1;
	char address[512];
	int lets = rtshim_backend_address(rtshim_backend(), address, sizeof address) == 0 &&
		   child_lives(address, timeout_ms > 0 ? timeout_ms : 1);
	__atomic_store_n(&answer, ((filters + 1) << 2) | 2 | lets, __ATOMIC_RELAXED);
	return lets;
}
