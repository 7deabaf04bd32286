/* format.h — text without stdio or malloc (usable from a signal handler and a preloaded
 * library), and the names of policies and errnos.  Pure: shared by the shim and rtrun. */
#ifndef RTSHIM_FORMAT_H
#define RTSHIM_FORMAT_H

#include <stdarg.h>
#include <stddef.h>

/* A subset of printf: %s %.*s %c %d %i %u %x %ld %lu %lx %lld %llu %zu %zd %p %%.
 * Always NUL-terminates (if size > 0); returns the length written (truncated). */
size_t rtshim_vformat(char *buf, size_t size, const char *fmt, va_list ap);
size_t rtshim_format(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Name of a scheduling policy, without the flag ("FIFO", "RR", "OTHER", ...). */
const char *rtshim_policy_name(int policy);
/* Symbolic name of an errno ("EPERM"), or NULL. */
const char *rtshim_errno_name(int err);

#endif
