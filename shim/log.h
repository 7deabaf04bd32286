/* log.h — the shim's logging: prefix "rtshim[PID]: ", stderr, write(2) only (no stdio, no
 * malloc, no locks), so it is usable from any hook and from a signal handler. */
#ifndef RTSHIM_LOG_H
#define RTSHIM_LOG_H

#include <stdarg.h>
#include <stddef.h>

enum rtshim_log_level {
	RTSHIM_LOG_QUIET = 0, /* nothing at all */
	RTSHIM_LOG_WARN = 1,  /* default: warnings (each distinct one once) */
	RTSHIM_LOG_INFO = 2,  /* + one line per decision */
	RTSHIM_LOG_DEBUG = 3, /* + everything else */
};

void rtshim_log_set_level(int level);
int rtshim_log_get_level(void);
int rtshim_log_enabled(int level);

/* A subset of printf: %s %.*s %c %d %i %u %x %ld %lu %lx %lld %llu %zu %zd %p %%.
 * Always NUL-terminates (if size > 0); returns the length written (truncated). */
size_t rtshim_vformat(char *buf, size_t size, const char *fmt, va_list ap);
size_t rtshim_format(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* One line at `level` (a newline is added). */
void rtshim_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Same, but only the first time this (fmt, key) pair is seen in the process: "each distinct
 * failure once".  key distinguishes causes that share a format (e.g. an errno). */
void rtshim_log_once(int level, int key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Forget what was logged once (tests). */
void rtshim_log_once_reset(void);

/* Name of a scheduling policy, without the flag ("FIFO", "RR", "OTHER", ...). */
const char *rtshim_policy_name(int policy);
/* Symbolic name of an errno ("EPERM"), or NULL. */
const char *rtshim_errno_name(int err);

#endif
