/* rtkit-client.h — the daemon client: talks to rtkit-daemon over the system bus, or, inside a
 * sandbox (/.flatpak-info exists or $SNAP is not empty: daemon-client/sandbox.h), to the Realtime portal
 * (org.freedesktop.portal.Realtime) on the session bus, which forwards to rtkit (portal.c).
 *
 * Linked into the shim and into rtrun (libc only: wire-bus.h speaks D-Bus on a connection of
 * its own for each call, closed before the call returns; no allocation, no lock, no thread).
 * rtrun --check's doctor (RTSHIM_DOCTOR_SYMBOL) is librtshim-client.so, loaded by rtrun alone
 * with dlopen: it links libdbus-1.
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
 *   -EXDEV      this process is in another PID namespace than the system bus (and rtkit):
 *               the TIDs it knows name other processes there; nothing was sent (the bus's
 *               GetConnectionUnixProcessID for our connection is not getpid())
 * Thread-safe, fork-safe and async-signal-safe in what it shares: nothing but atomic words.
 */
#ifndef RTSHIM_RTKIT_CLIENT_H
#define RTSHIM_RTKIT_CLIENT_H

#include <stdint.h>
#include <sys/types.h>

#include "rtkit-limits.h" /* struct rtkit_limits: the decision core's type */

#define RTSHIM_CLIENT_DEFAULT_TIMEOUT_MS 500

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

/* The PID of the process that owns rtkit's name on the bus (in our PID namespace: -EXDEV
 * otherwise; -ENOTSUP through the portal), to read its options from /proc. */
int rtkit_daemon_pid(pid_t *pid);

/* One line, in plain words, for an errno this API returned (positive or negative). */
const char *rtkit_strerror(int err);

/* The client as a table of operations (the shim's and rtrun's, for core/carry-out.c's loop).
 * Hidden, as the rtkit_* functions are, so that a program's own rtkit_make_realtime
 * (PulseAudio has one) can never take their place. */
struct rtshim_client_v1 {
	void (*set_timeout_ms)(int timeout_ms);
	int (*get_limits)(struct rtkit_limits *out);
	int (*make_realtime)(pid_t pid, pid_t tid, int priority);
	int (*make_high_priority)(pid_t pid, pid_t tid, int nice);
	const char *(*strerror)(int err);
	int (*daemon_pid)(pid_t *pid);
};

extern const struct rtshim_client_v1 rtshim_client_v1;

/* The D-Bus questions only `rtrun --check` asks (doctor.c): does the system bus answer, is
 * rtkit on it (or activatable), and would polkit authorize rtkit's action for this process?
 * What rtrun gets from dlsym(handle, RTSHIM_DOCTOR_SYMBOL). */
#define RTSHIM_DOCTOR_SYMBOL "rtshim_doctor_v1"
struct rtshim_bus_report {
	char address[512];       /* the system bus address used */
	int bus;                 /* 0 reachable, or -errno: -ETIMEDOUT no answer (hung bus),
				    -ENOTCONN no usable bus, ... (the errors of the table above) */
	char bus_error[256];     /* why not, in words */
	int rtkit_owner;         /* 1 running, 0 not running, -errno unknown */
	int rtkit_activatable;   /* 1, 0, -errno */
	int polkit;              /* 1 authorized, 0 not, 2 challenge (authentication), or -errno:
				    -ENOTCONN polkitd is not on the bus, -ETIMEDOUT, -EPERM the
				    bus's policy refused the call, ... */
	char polkit_error[256];
};
struct rtshim_doctor_v1 {
	/* One private connection to the system bus ($DBUS_SYSTEM_BUS_ADDRESS or the default),
	 * at most `timeout_ms` for connecting and for each call (a hung bus included), closed
	 * before returning; never fails, *rep says it all.  Errors map as the client's do. */
	void (*bus_probe)(int timeout_ms, struct rtshim_bus_report *rep);
};
extern const struct rtshim_doctor_v1 rtshim_doctor_v1;

#endif
