/* raw-time.h — the clock and the waits that bound every wait of the shim and the client, made
 * by the system calls themselves (rtshim_raw_syscall): another preload that wraps the clock
 * functions and the waits (libfaketime wraps clock_gettime, poll, ppoll, select, nanosleep,
 * pthread_cond_timedwait, and can freeze or slow its clock) cannot stop or stretch them.
 * The kernel's timespec is written as two longs: what the classic system calls take on both
 * x86_64 and i386, whatever the program's time_t. */
#ifndef RTSHIM_RAW_TIME_H
#define RTSHIM_RAW_TIME_H

#include <linux/futex.h>
#include <poll.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>

#include "raw-syscall.h"

struct rtshim_kernel_timespec {
	long tv_sec;
	long tv_nsec;
};

/* CLOCK_MONOTONIC in nanoseconds. */
static inline int64_t rtshim_raw_now_ns(void)
{
	struct rtshim_kernel_timespec ts = { 0, 0 };
	rtshim_raw_syscall(SYS_clock_gettime, (long)CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline struct rtshim_kernel_timespec rtshim_raw_span(int64_t ns)
{
	if (ns < 0)
		ns = 0;
	return (struct rtshim_kernel_timespec){ (long)(ns / 1000000000), (long)(ns % 1000000000) };
}

/* ppoll on one descriptor for at most `ns`: >0 ready, 0 timed out, -1 errno (EINTR included). */
static inline int rtshim_raw_poll_fd(int fd, short events, int64_t ns)
{
	struct pollfd p = { .fd = fd, .events = events };
	struct rtshim_kernel_timespec ts = rtshim_raw_span(ns);
	return (int)rtshim_raw_syscall(SYS_ppoll, &p, 1L, &ts, NULL, 8L);
}

/* FUTEX_WAIT_PRIVATE on `word` while it holds `val`, at most `ns`. */
static inline void rtshim_raw_futex_wait(int *word, int val, int64_t ns)
{
	struct rtshim_kernel_timespec ts = rtshim_raw_span(ns);
	rtshim_raw_syscall(SYS_futex, word, (long)FUTEX_WAIT_PRIVATE, (long)val,
			   &ts, NULL, 0L);
}

#endif
