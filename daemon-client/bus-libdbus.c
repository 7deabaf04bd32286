/* bus-libdbus.c — the doctor's one-shot connections (doctor.c: rtrun --check) through libdbus,
 * with a deadline on every wait.  The client that makes requests (wire-bus.c) needs no libdbus.
 *
 * - Private (dbus_connection_open_private): never shared with libdbus users in the host
 *   program, never exit-on-disconnect, SIGPIPE disposition left alone.
 * - Every wait is bounded by our deadline: the bus Hello is done here (dbus_bus_register
 *   would wait up to libdbus's 25 s default), and replies are awaited with our own poll loop
 *   (see send_and_wait: libdbus's blocking send can hang forever on a hung bus).
 * - Clock: deadlines are read and waited for with the system calls themselves
 *   (kernel/raw-time.h), libdbus never waits on its own (it only reads and writes what is ready).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bus-libdbus.h"
#include "client-internal.h"
#include "raw-time.h"

void rtshim_deadline_after(struct timespec *deadline, int ms)
{
	if (ms < 0)
		ms = 0;
	int64_t at = rtshim_raw_now_ns() + (int64_t)ms * 1000000;
	deadline->tv_sec = (time_t)(at / 1000000000);
	deadline->tv_nsec = (long)(at % 1000000000);
}

/* Nanoseconds left until the deadline; 0 when it has passed. */
static int64_t remaining_ns(const struct timespec *deadline)
{
	int64_t ns = (int64_t)deadline->tv_sec * 1000000000 + deadline->tv_nsec - rtshim_raw_now_ns();
	return ns > 0 ? ns : 0;
}

static void set_error(char *err, size_t errlen, const char *text)
{
	if (err && errlen)
		snprintf(err, errlen, "%s", text);
}

/* Send `msg` on `c` and wait for its reply until `deadline`, never blocking past it.
 *
 * libdbus's own blocking calls cannot be used here: dbus_connection_send_with_reply_and_block
 * first flushes the outgoing queue with no timeout at all, so a bus that accepts the
 * connection and then hangs (during authentication, or with a full socket buffer) would block
 * the caller forever. Instead: queue the message (a non-blocking write attempt), then poll the
 * socket ourselves with the time left, taking incoming messages off the queue and keeping only
 * the reply to our serial. Everything else (NameAcquired, late replies to calls that timed
 * out) is dropped: nothing dispatches these connections.
 *
 * 0 and a method return in *reply; or a negative errno (error replies mapped by `map`, their
 * message copied to err when given). */
/* Wait until `c`'s socket is readable (or writable, with output queued), at most `ns`, then let
 * libdbus read and write what is ready without waiting itself. */
static void wait_and_read_write(DBusConnection *c, int64_t ns)
{
	int fd = -1;
	if (dbus_connection_get_socket(c, &fd) && fd >= 0)
		(void)rtshim_raw_poll_fd(fd, POLLIN | (dbus_connection_has_messages_to_send(c) ? POLLOUT : 0), ns);
	(void)dbus_connection_read_write(c, 0);
}

static int send_and_wait(DBusConnection *c, DBusMessage *msg, const struct timespec *deadline,
			 int (*map)(const char *, const char *), DBusMessage **reply, char *err,
			 size_t errlen, dbus_uint32_t *sent)
{
	dbus_uint32_t serial = 0;
	DBusMessage *m;
	DBusError error;
	int64_t ns;
	int r;

	*reply = NULL;
	if (!dbus_connection_send(c, msg, &serial))
		return -ENOMEM;
	if (sent)
		*sent = serial;

	for (;;) {
		while ((m = dbus_connection_pop_message(c))) {
			int type = dbus_message_get_type(m);

			if (dbus_message_get_reply_serial(m) == serial &&
			    type == DBUS_MESSAGE_TYPE_METHOD_RETURN) {
				*reply = m;
				return 0;
			}
			if (dbus_message_get_reply_serial(m) == serial &&
			    type == DBUS_MESSAGE_TYPE_ERROR) {
				dbus_error_init(&error);
				dbus_set_error_from_message(&error, m);
				r = map(error.name, error.message);
				set_error(err, errlen, error.message ? error.message
						       : error.name ? error.name : "error reply");
				dbus_error_free(&error);
				dbus_message_unref(m);
				return r;
			}
			dbus_message_unref(m);
		}
		if (!dbus_connection_get_is_connected(c))
			return -ENOTCONN;
		ns = remaining_ns(deadline);
		if (ns <= 0)
			return -ETIMEDOUT;
		wait_and_read_write(c, ns);
	}
}

int rtshim_bus_call(DBusConnection *c, DBusMessage *msg, const struct timespec *deadline,
		    DBusMessage **reply, char *err, size_t errlen)
{
	return send_and_wait(c, msg, deadline, rtshim_errno_from_dbus_error, reply, err, errlen, NULL);
}

/* Hello with our timeout; sets the unique name the way dbus_bus_register would. */
static int say_hello(DBusConnection *c, const struct timespec *deadline, char *err, size_t errlen)
{
	DBusMessage *m, *reply;
	DBusError error;
	const char *name = NULL;
	int r;

	m = dbus_message_new_method_call(DBUS_SERVICE_DBUS, DBUS_PATH_DBUS, DBUS_INTERFACE_DBUS,
					 "Hello");
	if (!m)
		return -ENOMEM;
	r = send_and_wait(c, m, deadline, rtshim_errno_from_connect_error, &reply, err, errlen, NULL);
	dbus_message_unref(m);
	if (r < 0)
		return r == -ETIMEDOUT || r == -ENOMEM ? r : -ENOTCONN;

	dbus_error_init(&error);
	if (!dbus_message_get_args(reply, &error, DBUS_TYPE_STRING, &name, DBUS_TYPE_INVALID)) {
		dbus_error_free(&error);
		set_error(err, errlen, "unexpected reply to Hello");
		r = -EPROTO;
	} else if (!dbus_bus_set_unique_name(c, name)) {
		r = -ENOMEM;
	}
	dbus_message_unref(reply);
	return r;
}

int rtshim_bus_open(const char *address, const struct timespec *deadline, DBusConnection **out,
		    char *err, size_t errlen)
{
	DBusConnection *c;
	DBusError error;
	int fd = -1, flags, r;

	*out = NULL;
	dbus_threads_init_default();

	/* Must precede the connection's creation: a libdbus built without MSG_NOSIGNAL sets
	 * SIGPIPE to SIG_IGN in the host program then (Linux builds use MSG_NOSIGNAL and leave
	 * it alone either way; the flag is process-wide, so we never set it back to TRUE). */
	dbus_connection_set_change_sigpipe(FALSE);

	dbus_error_init(&error);
	c = dbus_connection_open_private(address, &error);
	if (!c) {
		r = rtshim_errno_from_connect_error(error.name, error.message);
		set_error(err, errlen, error.message ? error.message
				       : error.name ? error.name : "cannot connect");
		dbus_error_free(&error);
		return r;
	}
	dbus_connection_set_exit_on_disconnect(c, FALSE);

	/* libdbus creates the socket with SOCK_CLOEXEC; make sure, an exec must not inherit it. */
	if (dbus_connection_get_socket(c, &fd)) {
		flags = fcntl(fd, F_GETFD);
		if (flags >= 0 && !(flags & FD_CLOEXEC))
			(void)fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
	}

	r = say_hello(c, deadline, err, errlen);
	if (r < 0) {
		rtshim_bus_close(c);
		return r;
	}
	*out = c;
	return 0;
}

void rtshim_bus_close(DBusConnection *c)
{
	if (!c)
		return;
	dbus_connection_close(c);
	dbus_connection_unref(c);
}
