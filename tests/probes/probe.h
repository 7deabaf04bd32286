/* probe.h — helpers shared by the probe programs: they behave like legacy RT programs, print
 * what they see (one "key value" line each, line-buffered) and then wait until stdin closes, so
 * a test can read /proc/PID/task/TID from outside.  Header-only: every probe is one .c file. */
#ifndef RTSHIM_PROBE_H
#define RTSHIM_PROBE_H

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kernel-view.h"

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif

/* the kernel's struct sched_attr, its first version (SCHED_ATTR_SIZE_VER0, 48 bytes): glibc 2.36
 * has neither it nor sched_setattr/sched_getattr */
struct probe_sched_attr {
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t priority;
	uint64_t runtime, deadline, period;
};

static inline const char *probe_errname(int e)
{
	switch (e) {
	case 0: return "OK";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ESRCH: return "ESRCH";
	case EINVAL: return "EINVAL";
	case EFAULT: return "EFAULT";
	case EAGAIN: return "EAGAIN";
	case ENOSYS: return "ENOSYS";
	case ENOTSUP: return "ENOTSUP";
	case EBUSY: return "EBUSY";
	case ENOENT: return "ENOENT";
	case ENOTCONN: return "ENOTCONN";
	case ETIMEDOUT: return "ETIMEDOUT";
	case EPROTO: return "EPROTO";
	case ENOMEM: return "ENOMEM";
	case EIO: return "EIO";
	case E2BIG: return "E2BIG";
	case ECHILD: return "ECHILD";
	case EINTR: return "EINTR";
	default: {
		static __thread char buf[16];
		snprintf(buf, sizeof buf, "E%d", e);
		return buf;
	}
	}
}

/* "FIFO", "RR|RESET", ... for a policy value as returned by sched_getscheduler. */
static inline const char *probe_policy(int p)
{
	static __thread char buf[32];
	const char *base;
	if (p < 0)
		return "ERR";
	switch (p & ~SCHED_RESET_ON_FORK) {
	case SCHED_OTHER: base = "OTHER"; break;
	case SCHED_FIFO: base = "FIFO"; break;
	case SCHED_RR: base = "RR"; break;
	case SCHED_BATCH: base = "BATCH"; break;
	case SCHED_IDLE: base = "IDLE"; break;
	default: base = "?"; break;
	}
	snprintf(buf, sizeof buf, "%s%s", base, (p & SCHED_RESET_ON_FORK) ? "|RESET" : "");
	return buf;
}

static inline pid_t probe_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* The kernel's view, bypassing any interposer. */
static inline int probe_kernel_policy(pid_t tid)
{
	return kernel_view_policy(tid);
}

static inline int probe_kernel_prio(pid_t tid)
{
	return kernel_view_prio(tid);
}

static pthread_mutex_t probe_out_lock = PTHREAD_MUTEX_INITIALIZER;

/* A probe that forks while another of its threads prints must not hand its child a held output
 * lock (the child would hang in its first probe_say): fork takes it first. */
static void probe_out_take(void) { pthread_mutex_lock(&probe_out_lock); }
static void probe_out_give(void) { pthread_mutex_unlock(&probe_out_lock); }
__attribute__((constructor)) static void probe_out_atfork(void)
{
	pthread_atfork(probe_out_take, probe_out_give, probe_out_give);
}

#define probe_say(...)                                   \
	do {                                             \
		pthread_mutex_lock(&probe_out_lock);     \
		printf(__VA_ARGS__);                     \
		putchar('\n');                           \
		fflush(stdout);                          \
		pthread_mutex_unlock(&probe_out_lock);   \
	} while (0)

static inline void probe_start(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	probe_say("pid %d", (int)getpid());
}

/* "tid LABEL N" */
static inline void probe_tid(const char *label)
{
	probe_say("tid %s %d", label, (int)probe_gettid());
}

/* "kernel LABEL POLICY PRIO" for the calling thread */
static inline void probe_kernel(const char *label)
{
	pid_t t = probe_gettid();
	probe_say("kernel %s %s %d", label, probe_policy(probe_kernel_policy(t)), probe_kernel_prio(t));
}

/* "call LABEL rc=R err=E" — rc as returned, err: errno (for -1 returns) or the returned code */
static inline void probe_rc(const char *label, int rc, int err)
{
	probe_say("call %s rc=%d err=%s", label, rc, probe_errname(err));
}

/* Report and return the result of a sched_*-style call (-1/errno). */
#define PROBE_SCHED(label, expr)                          \
	({                                                \
		errno = 0;                                \
		int r_ = (expr);                          \
		int e_ = r_ < 0 ? errno : 0;              \
		probe_rc(label, r_, e_);                  \
		r_;                                       \
	})

/* Report and return the result of a pthread_*-style call (returns the error). */
#define PROBE_PTHREAD(label, expr)                        \
	({                                                \
		int r_ = (expr);                          \
		probe_rc(label, r_, r_);                  \
		r_;                                       \
	})

/* Block until stdin reaches EOF (or 120 s pass, so a forgotten probe never lingers). */
static inline void probe_wait(void)
{
	probe_say("ready");
	char buf[256];
	for (int waited = 0; waited < 120000;) {
		struct pollfd p = { .fd = 0, .events = POLLIN };
		int n = poll(&p, 1, 1000);
		if (n < 0 && errno != EINTR)
			break;
		if (n == 0) {
			waited += 1000;
			continue;
		}
		if (n > 0 && read(0, buf, sizeof buf) <= 0)
			break;
	}
}

/* A thread body that waits forever (the process ends when main returns). */
static inline void probe_park(void)
{
	for (;;)
		pause();
}

#endif
