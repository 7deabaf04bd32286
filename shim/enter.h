/* enter.h — the one prologue of every interposer: enter the shim's logic or call the real
 * function and nothing else, and the program's errno kept across what the shim does.
 *
 *	struct rtshim_hook h;
 *	if (!rtshim_hook_enter(&h))
 *		return real(...);
 *	int err = ...;                       0 or a positive errno
 *	return rtshim_hook_return(&h, err);  -1 and errno = err, or 0 and errno as it was */
#ifndef RTSHIM_ENTER_H
#define RTSHIM_ENTER_H

#include <errno.h>
#include <stdbool.h>

/* Not instrumented by a sanitizer: for interposers a sanitizer runtime calls while it starts,
 * before its own state exists (TSan's start-up calls getrlimit and pthread_getattr_np). */
#define RTSHIM_UNINSTRUMENTED __attribute__((no_sanitize("address", "thread")))

#define RTSHIM_HIDDEN __attribute__((visibility("hidden")))

/* Secure-execution mode (set-user-ID, file capabilities: AT_SECURE), or rtshim switched off
 * (RTSHIM_DISABLE): the shim does nothing. */
bool rtshim_secure_execution(void);

/* enter.c: this thread is inside the shim (initial-exec: the shim is loaded at start-up, so no
 * __tls_get_addr, no NEEDED ld-linux); AT_SECURE: -1 not read yet, 0, 1. */
extern __thread int rtshim_in_shim RTSHIM_HIDDEN __attribute__((tls_model("initial-exec")));
extern int rtshim_secure_mode RTSHIM_HIDDEN;

/* Enter the shim's logic: false when the process is in secure-execution mode or this thread is
 * already inside the shim (then: call the real function and nothing else).  rtshim_leave() after
 * each true, and only then.  Inline, no call: every interposer pays it (the privileged path is
 * measured against the bare system call). */
RTSHIM_UNINSTRUMENTED static inline bool rtshim_enter(void)
{
	/* one test for both: secure mode not read yet (-1) or set, or inside the shim already */
	int busy = __atomic_load_n(&rtshim_secure_mode, __ATOMIC_RELAXED) | rtshim_in_shim;
	if (__builtin_expect(busy != 0, 0) && (rtshim_secure_execution() || rtshim_in_shim))
		return false;
	rtshim_in_shim = 1;
	return true;
}

RTSHIM_UNINSTRUMENTED static inline void rtshim_leave(void)
{
	rtshim_in_shim = 0;
}

/* An interposer's frame: where the program's errno lives, and its value on entry. */
struct rtshim_hook {
	int *errno_at;
	int saved;
};

RTSHIM_UNINSTRUMENTED static inline bool rtshim_hook_enter(struct rtshim_hook *h)
{
	if (!rtshim_enter())
		return false;
	h->errno_at = &errno;
	h->saved = *h->errno_at;
	return true;
}

/* Leave: errno = err when err is not 0, else the program's errno as it was on entry (err 0 for
 * the pthread_* functions, whose error is their result). */
RTSHIM_UNINSTRUMENTED static inline void rtshim_hook_leave(struct rtshim_hook *h, int err)
{
	rtshim_leave();
	*h->errno_at = err ? err : h->saved;
}

/* Leave, and the C library's answer for err: -1 with errno = err, or 0. */
RTSHIM_UNINSTRUMENTED static inline int rtshim_hook_return(struct rtshim_hook *h, int err)
{
	rtshim_hook_leave(h, err);
	return err ? -1 : 0;
}

#endif
