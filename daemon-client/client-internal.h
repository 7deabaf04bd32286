/* client-internal.h — what the files of daemon-client/ share; nothing here is exported.
 *
 * Everything is hidden (the client is built with -fvisibility=hidden); unit tests link the
 * objects directly and may call these.  No libdbus here: the client the shim and rtrun link
 * (wire-*.c, rtkit-client.c) is libc only; the doctor's libdbus connection is bus-libdbus.h.
 */
#ifndef RTSHIM_CLIENT_INTERNAL_H
#define RTSHIM_CLIENT_INTERNAL_H

#include <stddef.h>

#define RTSHIM_EXPORT __attribute__((visibility("default")))

/* libdbus's built-in default on Debian (and where /var/run is /run, on every distribution). */
#define SYSTEM_BUS_DEFAULT_ADDRESS "unix:path=/run/dbus/system_bus_socket"

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

/* rtkit-client.c: forget that the daemon did not answer (unit tests: the next call is sent at
 * once). */
void rtshim_conn_forget_silence(void);

#endif
