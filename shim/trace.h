/* trace.h — RTSHIM_TRACE (log each request, its decision and the caller's stack) and
 * RTSHIM_ONLY (forward only requests whose stack holds a matching library).
 *
 * The stack is taken with libunwind, which the shim's constructor loads with dlopen (only when
 * RTSHIM_TRACE or RTSHIM_ONLY is set), so librtshim.so keeps depending on libc alone.  Without
 * libunwind, glibc's backtrace() is used instead (said once). */
#ifndef RTSHIM_TRACE_H
#define RTSHIM_TRACE_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"

/* only.c (pure): does `name` (a library's file name, e.g. "libjack.so.0") match one of the
 * comma-separated fnmatch(3) patterns in `patterns`? */
bool rtshim_only_match(const char *patterns, const char *name);

/* trace.c */

#define RTSHIM_STACK_MAX 32

struct rtshim_trace {
	bool on;        /* RTSHIM_TRACE: log this request */
	bool pass;      /* RTSHIM_ONLY has no match: the plain call, nothing else */
	char what[160]; /* "pthread_setschedparam(self, FIFO, 70)" */
};

/* Load the unwinder now (the shim's constructor: the loader's lock is free, or ours). */
void rtshim_trace_init(void);

/* Is a stack wanted at all (RTSHIM_TRACE or RTSHIM_ONLY set)?  Cheap. */
bool rtshim_trace_wanted(void);

/* The caller's stack as return addresses (RTSHIM_TRACE or RTSHIM_ONLY set). */
struct rtshim_stack {
	void *pcs[RTSHIM_STACK_MAX + 8];
	int n;
};

/* Take the calling thread's stack: on the program's stack, before the request moves to the
 * shim's own (own-stack.h), where the unwinder would see only the shim's frames. */
void rtshim_trace_take_stack(struct rtshim_stack *s);

/* Start a request described by `fmt` with the stack taken (frames of the shim itself skipped):
 * log it when tracing, and decide RTSHIM_ONLY.  true (t->pass): RTSHIM_ONLY does not select
 * the call, which is left alone (the plain call, nothing else). */
bool rtshim_trace_left_alone_with(struct rtshim_trace *t, const struct rtshim_stack *s,
				  const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The same, taking the stack here. */
bool rtshim_trace_left_alone(struct rtshim_trace *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The request's outcome: 0 or the errno the program sees. */
void rtshim_trace_end(const struct rtshim_trace *t, int err);

#endif
