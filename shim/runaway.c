/* runaway.c — see runaway.h.
 *
 * The kernel (kernel/time/posix-cpu-timers.c, check_thread_timers) checks RLIMIT_RTTIME for
 * the running RT task on the tick: at the hard limit SIGKILL to the process; at the soft limit
 * SIGXCPU to the process (delivered to the offending thread unless it blocks SIGXCPU) and the
 * process's soft limit raised by one second.  The handler therefore demotes the thread it runs
 * on when that thread is realtime; otherwise (the offender blocks SIGXCPU) every realtime thread
 * of the process that is running right now.  It tells RLIMIT_RTTIME's signal from others by
 * the raised soft limit, and puts the guard's soft limit back.  A SIGXCPU that demoted nothing
 * (RLIMIT_CPU, kill -XCPU) gets the program's own disposition. */
#include "runaway.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "log.h"

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif

/* What the program had for SIGXCPU; read by the handler, written before it is installed. */
static struct sigaction prev;
static rlim_t guard_soft;
static int armed;
static pthread_mutex_t arm_lock = PTHREAD_MUTEX_INITIALIZER;

/* prlimit64's own layout (struct rlimit has 32-bit fields on i386); RLIM64_INFINITY = ~0 */
struct rlim64 {
	uint64_t cur, max;
};

static long sys_prlimit(const struct rlim64 *set, struct rlim64 *get)
{
	return syscall(SYS_prlimit64, 0, RLIMIT_RTTIME, set, get);
}

static int sys_policy(pid_t tid)
{
	return (int)syscall(SYS_sched_getscheduler, tid);
}

static bool is_rt(int policy)
{
	policy &= ~SCHED_RESET_ON_FORK;
	return policy == SCHED_FIFO || policy == SCHED_RR;
}

static bool demote(pid_t tid, int policy)
{
	struct sched_param p = { .sched_priority = 0 };
	int pol = SCHED_OTHER | (policy & SCHED_RESET_ON_FORK);
	if (syscall(SYS_sched_setscheduler, tid, pol, &p) == 0)
		return true;
	/* the kernel wants the flag kept when it is set; try with it */
	return syscall(SYS_sched_setscheduler, tid, SCHED_OTHER | SCHED_RESET_ON_FORK, &p) == 0;
}

/* State letter of /proc/self/task/TID/stat ('R' running), or 0. */
static char thread_state(pid_t tid)
{
	char path[64], buf[256];
	rtshim_format(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	char *rp = NULL;
	for (char *q = buf; *q; q++)
		if (*q == ')')
			rp = q;
	return rp && rp[1] == ' ' ? rp[2] : 0;
}

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* The offender blocked SIGXCPU: demote every RT thread of the process that is running now. */
static int demote_running_rt(pid_t self, pid_t *first)
{
	char buf[2048];
	int n = 0;
	int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	for (;;) {
		long got = syscall(SYS_getdents64, fd, buf, sizeof buf);
		if (got <= 0)
			break;
		for (long off = 0; off < got;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + off);
			off += d->d_reclen;
			pid_t tid = 0;
			for (const char *c = d->d_name; *c >= '0' && *c <= '9'; c++)
				tid = tid * 10 + (*c - '0');
			if (tid <= 0 || tid == self)
				continue;
			int pol = sys_policy(tid);
			if (pol < 0 || !is_rt(pol) || thread_state(tid) != 'R')
				continue;
			if (demote(tid, pol)) {
				if (!n)
					*first = tid;
				n++;
			}
		}
	}
	close(fd);
	return n;
}

static void on_sigxcpu(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	pid_t self = (pid_t)syscall(SYS_gettid), who = 0;
	int demoted = 0, rttime = 0;
	rlim_t want = __atomic_load_n(&guard_soft, __ATOMIC_RELAXED);
	struct rlim64 cur;

	/* Only the kernel's RLIMIT_RTTIME signal: SI_KERNEL (never a kill -XCPU from someone), and
	 * the soft limit raised past the guard's (RLIMIT_CPU sends SI_KERNEL SIGXCPU too). */
	if (si && si->si_code == SI_KERNEL && want && want != RLIM_INFINITY &&
	    sys_prlimit(NULL, &cur) == 0 && cur.cur != RLIM64_INFINITY && cur.cur > want) {
		rttime = 1;
		/* the kernel raised the soft limit by one second: put the guard back */
		if (want < cur.max) {
			cur.cur = want;
			sys_prlimit(&cur, NULL);
		}
		int pol = sys_policy(0);
		if (pol >= 0 && is_rt(pol)) {
			if (demote(0, pol)) {
				demoted = 1;
				who = self;
			}
		} else {
			demoted = demote_running_rt(self, &who);
		}
	}
	if (demoted) {
		rtshim_log_once(RTSHIM_LOG_WARN, 0,
				"thread %d ran realtime for the soft RLIMIT_RTTIME (%llu us) without blocking: demoted to SCHED_OTHER so that the kernel does not kill the process (RTSHIM_RUNAWAY=kill keeps the kernel's behaviour)",
				(int)who, (unsigned long long)want);
	}

	/* the program's own disposition */
	if (prev.sa_flags & SA_SIGINFO) {
		if (prev.sa_sigaction)
			prev.sa_sigaction(sig, si, uc);
	} else if (prev.sa_handler == SIG_DFL) {
		if (!rttime) {
			/* not RLIMIT_RTTIME's: the default action (terminate, core), as without us */
			struct sigaction dfl;
			memset(&dfl, 0, sizeof dfl);
			dfl.sa_handler = SIG_DFL;
			sigaction(SIGXCPU, &dfl, NULL);
			syscall(SYS_tgkill, getpid(), self, SIGXCPU);
		}
	} else if (prev.sa_handler != SIG_IGN && prev.sa_handler) {
		prev.sa_handler(sig);
	}
	errno = saved;
}

void rtshim_runaway_atfork_prepare(void)
{
	pthread_mutex_lock(&arm_lock);
}

void rtshim_runaway_atfork_release(void)
{
	pthread_mutex_unlock(&arm_lock);
}

int rtshim_runaway_arm(rlim_t soft)
{
	struct sigaction cur, mine;
	int r = 0;
	pthread_mutex_lock(&arm_lock);
	__atomic_store_n(&guard_soft, soft, __ATOMIC_RELAXED);
	if (sigaction(SIGXCPU, NULL, &cur) < 0) {
		r = -errno;
		goto out;
	}
	if (armed && (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_sigxcpu)
		goto out;
	/* the program's handler (installed before, or since our last one): chain it, with its
	 * mask and flags, so its semantics are kept */
	memset(&mine, 0, sizeof mine);
	mine.sa_sigaction = on_sigxcpu;
	mine.sa_mask = cur.sa_mask;
	mine.sa_flags = SA_SIGINFO | (cur.sa_flags & (SA_RESTART | SA_ONSTACK | SA_NODEFER));
	/* block SIGXCPU while `prev` changes, so a handler never sees half of it */
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGXCPU);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	prev = cur;
	prev.sa_flags &= ~SA_RESETHAND;
	if (sigaction(SIGXCPU, &mine, NULL) < 0)
		r = -errno;
	else
		armed = 1;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!r)
		rtshim_log(RTSHIM_LOG_DEBUG, "runaway guard: SIGXCPU handler installed (the program's was %s), soft RLIMIT_RTTIME %llu",
			   (cur.sa_flags & SA_SIGINFO) || (cur.sa_handler != SIG_DFL && cur.sa_handler != SIG_IGN)
				   ? "a handler (chained)" : cur.sa_handler == SIG_IGN ? "SIG_IGN" : "SIG_DFL",
			   (unsigned long long)soft);
out:
	pthread_mutex_unlock(&arm_lock);
	return r;
}
