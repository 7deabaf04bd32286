/* rtkit-client.h — the daemon client: talks to rtkit-daemon over the system bus, or, inside a
 * sandbox (/.flatpak-info exists or $SNAP is set), to the Realtime portal
 * (org.freedesktop.portal.Realtime) on the session bus, which forwards to rtkit (portal.c).
 *
 * Shared by the shim (which loads librtshim-client.so with dlopen and looks up the one
 * symbol RTSHIM_CLIENT_SYMBOL) and by rtrun (which links the same objects directly).
 *
 * Every function returns 0 or a negative errno:
 *   -EPERM      rtkit refused (priority above its max, RLIMIT_RTTIME missing/too high,
 *               polkit said no, another user's process)
 *   -EBUSY      a per-user limit of rtkit was reached (threads, processes, request burst)
 *   -EINVAL     argument outside what rtkit accepts (priority outside 1..99, nice outside -20..19)
 *   -ENOENT     the thread or process does not exist (or polkitd is missing)
 *   -ENOTCONN   no system bus, or no rtkit on it
 *   -ETIMEDOUT  no answer within the timeout (daemon hung)
 *   -EPROTO     a reply that does not match rtkit's API
 *   -ENOMEM     out of memory
 * Thread-safe. Fork-safe: a child never uses its parent's connection, it opens its own.
 */
#ifndef RTSHIM_RTKIT_CLIENT_H
#define RTSHIM_RTKIT_CLIENT_H

#include <stdint.h>
#include <sys/types.h>

#define RTSHIM_CLIENT_DEFAULT_TIMEOUT_MS 500

struct rtkit_limits {
	int32_t max_realtime_priority; /* MaxRealtimePriority, rtkit default 20 */
	int32_t min_nice_level;        /* MinNiceLevel, rtkit default -15 */
	int64_t rttime_usec_max;       /* RTTimeUSecMax, rtkit default 200000 */
};

/* Timeout for every call (connect included), in milliseconds; <= 0 restores the default. */
void rtkit_set_timeout_ms(int timeout_ms);

/* The three limits, read once per process and cached (the cache survives reconnects). */
int rtkit_get_limits(struct rtkit_limits *out);

/* Make thread `tid` of process `pid` SCHED_RR|SCHED_RESET_ON_FORK at `priority`.
 * pid 0 means the calling process (MakeThreadRealtime); otherwise the WithPID call is used.
 * tid must be a kernel thread id (gettid()), never 0. */
int rtkit_make_realtime(pid_t pid, pid_t tid, int priority);

/* Make the thread SCHED_OTHER|SCHED_RESET_ON_FORK at nice level `nice` (demotes an RT thread). */
int rtkit_make_high_priority(pid_t pid, pid_t tid, int nice);

/* One line, in plain words, for an errno this API returned (positive or negative). */
const char *rtkit_strerror(int err);

/* What the shim gets from dlsym(handle, RTSHIM_CLIENT_SYMBOL): one lookup, one version. */
#define RTSHIM_CLIENT_SYMBOL "rtshim_client_v1"
struct rtshim_client_v1 {
	void (*set_timeout_ms)(int timeout_ms);
	int (*get_limits)(struct rtkit_limits *out);
	int (*make_realtime)(pid_t pid, pid_t tid, int priority);
	int (*make_high_priority)(pid_t pid, pid_t tid, int nice);
	const char *(*strerror)(int err);
};

/* The object itself, for code that links the client directly (rtrun, tests). */
extern const struct rtshim_client_v1 rtshim_client_v1;

#endif
