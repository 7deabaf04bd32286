/* client-internal.h — what the files of daemon-client/ share; nothing here is exported.
 *
 * Everything is hidden (the library is built with -fvisibility=hidden); unit tests link the
 * objects directly and may call these.
 */
#ifndef RTSHIM_CLIENT_INTERNAL_H
#define RTSHIM_CLIENT_INTERNAL_H

#include <dbus/dbus.h>
#include <time.h>

#define RTSHIM_EXPORT __attribute__((visibility("default")))

/* libdbus's built-in default; /var/run is /run on every current distribution. */
#define SYSTEM_BUS_DEFAULT_ADDRESS "unix:path=/var/run/dbus/system_bus_socket"

#define RTKIT_SERVICE_NAME "org.freedesktop.RealtimeKit1"
#define RTKIT_OBJECT_PATH  "/org/freedesktop/RealtimeKit1"
#define RTKIT_INTERFACE    "org.freedesktop.RealtimeKit1"

#define PORTAL_SERVICE_NAME       "org.freedesktop.portal.Desktop"
#define PORTAL_OBJECT_PATH        "/org/freedesktop/portal/desktop"
#define PORTAL_REALTIME_INTERFACE "org.freedesktop.portal.Realtime"

/* portal.c — rtkit on the system bus, or (in a sandbox) the Realtime portal on the session bus. */
struct rtshim_backend {
	int portal;            /* the portal: session bus, WithPID methods only */
	const char *service, *path, *interface;
};
/* Inside a sandbox (sandbox.h: /.flatpak-info exists, or $SNAP is not empty).  1 or 0. */
int rtshim_in_sandbox(void);
/* The backend of this process (decided on first use). */
const struct rtshim_backend *rtshim_backend(void);
/* The bus address for backend `b`; 0, or -1 if none is known (or it does not fit). */
int rtshim_backend_address(const struct rtshim_backend *b, char *buf, size_t size);

/* errors.c — pure functions, no bus needed. */

/* The negative errno for an error reply (name, message) of a method call. */
int rtshim_errno_from_dbus_error(const char *name, const char *message);

/* The same for an error while connecting (open, authenticate, Hello): everything but a
 * timeout or lack of memory means "no usable bus" (-ENOTCONN). */
int rtshim_errno_from_connect_error(const char *name, const char *message);

/* connection.c */

/* The budget of one API call: now + the configured timeout (CLOCK_MONOTONIC). */
void rtshim_deadline_start(struct timespec *deadline);
/* now + `ms` milliseconds (CLOCK_MONOTONIC). */
void rtshim_deadline_after(struct timespec *deadline, int ms);

/* Lock the connection, waiting at most until `deadline` (-ETIMEDOUT), and forget it if we
 * are a forked child. 0 on success; then always pair with rtshim_conn_unlock(). The calling
 * thread cannot be cancelled in between (its cancellation state is restored by unlock). */
int rtshim_conn_lock(const struct timespec *deadline);
void rtshim_conn_unlock(void);

/* With the lock held, before a call that names PIDs or TIDs: connected (connecting if
 * needed), and the bus reads our PIDs in our own PID namespace.  0, -EXDEV when it reads them
 * in another one (the TIDs we would send name other processes there), or the connection's
 * error. */
int rtshim_conn_ready_locked(const struct timespec *deadline);

/* Forget that the daemon did not answer (unit tests: the next call is sent at once). */
void rtshim_conn_forget_silence(void);

/* With the lock held: send `msg` (connecting first if needed) and wait for the reply until
 * `deadline`. Returns 0 and a method-return in *reply (caller unrefs), or a negative errno. */
int rtshim_conn_call_locked(DBusMessage *msg, const struct timespec *deadline,
			    DBusMessage **reply);

/* The machinery under that connection, for one-shot connections of their own (doctor.c).
 * Nothing here waits past `deadline`; errors are negative errnos of errors.c's map, with
 * the bus's own words in err (when err is not NULL; left as it is when there are none).
 * Call them with cancellation disabled, as rtshim_conn_lock does for the shared connection. */

/* A private connection to `address` (no exit on disconnect, close-on-exec, SIGPIPE left alone)
 * whose Hello was answered: 0 and *out, or -errno (-ENOTCONN: no usable bus, -ETIMEDOUT). */
int rtshim_bus_open(const char *address, const struct timespec *deadline, DBusConnection **out,
		    char *err, size_t errlen);
/* Send `msg` on `c` and wait for the reply: 0 and a method return in *reply (caller unrefs). */
int rtshim_bus_call(DBusConnection *c, DBusMessage *msg, const struct timespec *deadline,
		    DBusMessage **reply, char *err, size_t errlen);
/* Close and release a connection of rtshim_bus_open (NULL: nothing). */
void rtshim_bus_close(DBusConnection *c);

#endif
