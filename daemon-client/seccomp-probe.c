/* seccomp-probe.c — see seccomp-probe.h.
 *
 * The child is kernel/raw-child.h's: a copy of the process made by the raw clone system call
 * with exit signal 0 (no atfork handler runs, the program gets no SIGCHLD and its wait() never
 * sees it), every signal blocked (a filter's SIGSYS then kills it, as the kernel forces the
 * default action, and no handler of the program's runs in it), no descriptor of the program's.
 * Its own limits and signal dispositions are its own, so that what it sets to try the calls is
 * undone with it.  It exits 0 only if it got through them; the parent waits for it and reaps it.
 */
#include "seccomp-probe.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "client-internal.h"
#include "raw-child.h"
#include "raw-syscall.h"
#include "raw-time.h"
#include "wire-bus.h"

struct probe {
	const char *address;
	int64_t deadline;
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

static void child(void *arg)
{
	const struct probe *p = arg;
	struct rtshim_wire_conn c;
	struct rtshim_wire_msg m;
	other_calls();
	/* the connection, authentication and Hello, as the client makes them */
	if (rtshim_wire_open_untracked(&c, p->address, p->deadline) == 0) {
		rtshim_wire_reply(&c, RTSHIM_WIRE_HELLO_SERIAL, p->deadline, &m);
		rtshim_wire_close(&c);
	}
	/* got through: exit 0 (rtshim_raw_child) */
}

/* 1: a child made the client's calls and lived; 0: it died (or could not be made). */
static int child_lives(const char *address, int timeout_ms)
{
	struct probe p = { .address = address };
	p.deadline = rtshim_raw_now_ns() + (int64_t)timeout_ms * 1000000;
	int saved = errno;
	pid_t pid = rtshim_raw_child(-1, child, &p);
	int lived = 0;
	if (pid > 0) {
		siginfo_t info;
		memset(&info, 0, sizeof info);
		/* bounded: the child's own calls end at p.deadline */
		while (rtshim_raw_syscall(SYS_waitid, (long)P_PID, (long)pid, (long)&info,
					  (long)(WEXITED | __WALL), 0L) < 0 && errno == EINTR)
			;
		lived = info.si_code == CLD_EXITED && info.si_status == 0;
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
