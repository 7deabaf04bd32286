/* connection.c — private bus connections with a deadline on every wait, and the client's one
 * shared connection (connect, timeout, fork, cancellation).  rtshim_bus_open/_call/_close also
 * serve the doctor's one-shot connection (doctor.c).
 *
 * - Private (dbus_connection_open_private): never shared with libdbus users in the host
 *   program, never exit-on-disconnect, SIGPIPE disposition left alone.
 * - Every wait is bounded by our deadline: the bus Hello is done here (dbus_bus_register
 *   would wait up to libdbus's 25 s default), and replies are awaited with our own poll loop
 *   (see send_and_wait: libdbus's blocking send can hang forever on a hung bus).
 * - One mutex guards the connection; every API call runs under it with one deadline
 *   (waiting for the mutex, connecting and the call itself all count).
 * - Cancellation: a thread is never cancelled while it holds the mutex (libdbus's poll() is a
 *   cancellation point; a thread cancelled there would leave the mutex, and libdbus's own locks,
 *   held forever: every later call would time out and the next fork would hang in
 *   atfork_prepare).  Cancellation is disabled from rtshim_conn_lock to rtshim_conn_unlock and
 *   the caller's state restored after; a pending cancel then acts at the caller's next
 *   cancellation point.
 * - Fork: pthread_atfork takes the mutex around fork, so no thread is inside libdbus when the
 *   child is created; the child forgets the parent's connection (never closes or unrefs the
 *   object, whose state belongs to the parent) and closes its copy of the socket. A child made
 *   without the atfork handlers is caught by comparing getpid() with the connecting PID.
 * - Reconnect: a connection that is no longer connected (bus restarted) is dropped and a new
 *   one is opened by the next call.
 * - A silent daemon: once a call timed out, later calls fail at once (-ETIMEDOUT) instead of
 *   each waiting the whole timeout again, until the daemon answers the call that timed out (its
 *   late reply is looked for, without waiting, at every call), or the connection it was sent on
 *   is gone, or SILENT_REASK_MS passed: then the next call is sent (and bounded) as usual.
 * - Clock: deadlines are read and waited for with the system calls themselves
 *   (kernel/raw-time.h), libdbus never waits on its own (it only reads and writes what is ready):
 *   another preload that fakes the clock (libfaketime) cannot stop or stretch a bound.
 * No constructors: rtrun links this statically and the shim loads it late with dlopen.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client-internal.h"
#include "raw-time.h"
#include "rtkit-client.h"

/* ThreadSanitizer (GCC 12) does not intercept pthread_mutex_clocklock: the TSan build
 * (tests/bats/checkers.bats) tells it about the lock taken; nothing in other builds. */
#ifdef __SANITIZE_THREAD__
#include <sanitizer/tsan_interface.h>
#define TSAN_LOCKED(m) (__tsan_mutex_pre_lock((m), 0), __tsan_mutex_post_lock((m), 0, 0))
#else
#define TSAN_LOCKED(m) ((void)0)
#endif

static pthread_mutex_t conn_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;

/* Guarded by conn_mutex. */
static DBusConnection *conn;
static pid_t conn_pid;
/* The bus names this process by another PID than getpid(): it (and rtkit, which asks it)
 * reads PIDs and TIDs in another PID namespace than ours. */
static int conn_foreign_pid_ns;
static int conn_fd = -1;
/* The socket's identity: a program that closes every descriptor (a daemon) may reuse the
 * number for a file of its own, which must then never be read, written or closed by us. */
static dev_t conn_dev;
static ino_t conn_ino;
/* The parent's connection in a forked child: never used again, only kept reachable. */
static DBusConnection *abandoned;

/* Thread holding conn_mutex (0: none); lets a fork from a signal handler that interrupted
 * our own critical section proceed instead of deadlocking in atfork_prepare. */
static pid_t lock_owner;
/* Set by atfork_prepare when it took the mutex; read by the handlers of the same fork. */
static int fork_took_lock;
/* The lock holder's cancellation state before rtshim_conn_lock, restored by rtshim_conn_unlock. */
static int holder_cancel_state;

static int timeout_ms = RTSHIM_CLIENT_DEFAULT_TIMEOUT_MS;

/* How long a silent daemon is left alone before a call is sent to it again, when it has not
 * answered the call that timed out. */
#define SILENT_REASK_MS 10000
/* Guarded by conn_mutex: when the last call timed out (0: the daemon answers), and the serial
 * of that call on conn (0: none to watch for). */
static int64_t silent_since_ns;
static dbus_uint32_t unanswered_serial;

void rtkit_set_timeout_ms(int ms)
{
	__atomic_store_n(&timeout_ms, ms > 0 ? ms : RTSHIM_CLIENT_DEFAULT_TIMEOUT_MS,
			 __ATOMIC_RELAXED);
}

void rtshim_deadline_start(struct timespec *deadline)
{
	rtshim_deadline_after(deadline, __atomic_load_n(&timeout_ms, __ATOMIC_RELAXED));
}

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

/* The parent's connection is not ours: drop the pointer, keep the object reachable. */
static void forget_parent_connection(void)
{
	if (conn)
		abandoned = conn;
	conn = NULL;
	conn_fd = -1;
	unanswered_serial = 0;
}

static void drop_connection_locked(void)
{
	if (!conn)
		return;
	dbus_connection_close(conn);
	dbus_connection_unref(conn);
	conn = NULL;
	conn_fd = -1;
	unanswered_serial = 0;
}

/* Is conn_fd still the socket we connected (not closed, not another file under that number)?
 * fstat only: async-signal-safe, usable in the atfork child handler. */
static int conn_fd_is_ours(void)
{
	struct stat st;

	if (conn_fd < 0)
		return 1; /* libdbus gave no descriptor: nothing to check */
	return fstat(conn_fd, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_dev == conn_dev &&
	       st.st_ino == conn_ino;
}

static void atfork_prepare(void)
{
	if (__atomic_load_n(&lock_owner, __ATOMIC_RELAXED) == gettid()) {
		fork_took_lock = 0;
		return;
	}
	pthread_mutex_lock(&conn_mutex);
	fork_took_lock = 1;
}

static void atfork_parent(void)
{
	if (fork_took_lock) {
		fork_took_lock = 0;
		pthread_mutex_unlock(&conn_mutex);
	}
}

static void atfork_child(void)
{
	/* No other thread exists here, and none was inside libdbus at the fork (we held the
	 * mutex). Closing our copy of the socket lets the bus see the parent alone. */
	if (conn && conn_fd >= 0 && conn_fd_is_ours())
		close(conn_fd);
	forget_parent_connection();
	if (fork_took_lock) {
		fork_took_lock = 0;
		pthread_mutex_unlock(&conn_mutex);
	}
}

static void init_once_fn(void)
{
	dbus_threads_init_default();
	/* On failure (ENOMEM) the getpid() check in rtshim_conn_lock still protects the child. */
	(void)pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

/* Call with cancellation disabled: a thread cancelled inside pthread_once would leave it to be
 * run again (pthread_atfork twice). */
static void client_init(void)
{
	pthread_once(&init_once, init_once_fn);
}

int rtshim_conn_lock(const struct timespec *deadline)
{
	int r, old;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	client_init();
	r = pthread_mutex_clocklock(&conn_mutex, CLOCK_MONOTONIC, deadline);
	if (r != 0) {
		pthread_setcancelstate(old, NULL);
		return r == ETIMEDOUT ? -ETIMEDOUT : -r;
	}
	TSAN_LOCKED(&conn_mutex);
	__atomic_store_n(&lock_owner, gettid(), __ATOMIC_RELAXED);
	holder_cancel_state = old;

	/* A child created without our atfork handlers (raw clone): same rule. */
	if (conn && conn_pid != getpid())
		forget_parent_connection();
	return 0;
}

void rtshim_conn_unlock(void)
{
	int old = holder_cancel_state;

	__atomic_store_n(&lock_owner, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&conn_mutex);
	pthread_setcancelstate(old, NULL);
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
	client_init();

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

/* The bus's PID for our connection (GetConnectionUnixProcessID on our unique name): 0 and
 * *out, or a negative errno. */
static int bus_pid_of_us(DBusConnection *c, const struct timespec *deadline, pid_t *out)
{
	const char *name = dbus_bus_get_unique_name(c);
	DBusMessage *m, *reply = NULL;
	dbus_uint32_t pid = 0;
	int r;

	if (!name)
		return -EPROTO;
	m = dbus_message_new_method_call(DBUS_SERVICE_DBUS, DBUS_PATH_DBUS, DBUS_INTERFACE_DBUS,
					 "GetConnectionUnixProcessID");
	if (!m || !dbus_message_append_args(m, DBUS_TYPE_STRING, &name, DBUS_TYPE_INVALID)) {
		if (m)
			dbus_message_unref(m);
		return -ENOMEM;
	}
	r = rtshim_bus_call(c, m, deadline, &reply, NULL, 0);
	dbus_message_unref(m);
	if (r < 0)
		return r;
	if (!dbus_message_get_args(reply, NULL, DBUS_TYPE_UINT32, &pid, DBUS_TYPE_INVALID))
		r = -EPROTO;
	dbus_message_unref(reply);
	*out = (pid_t)pid;
	return r;
}

static int connect_locked(const struct timespec *deadline)
{
	DBusConnection *c;
	char address[1024];
	struct stat st;
	int fd = -1, r;

	/* the system bus (rtkit), or in a sandbox the session bus (the Realtime portal) */
	if (rtshim_backend_address(rtshim_backend(), address, sizeof address) < 0)
		return -ENOTCONN;

	r = rtshim_bus_open(address, deadline, &c, NULL, 0);
	if (r < 0)
		return r;

	/* Which PID namespace the bus reads ours in: the bus tells rtkit who calls, and rtkit
	 * reads the TIDs we send in that namespace.  Exact, and asked once per connection (a
	 * bus that cannot say keeps the old assumption, the same namespace; a timeout is one). */
	pid_t seen = 0;
	r = bus_pid_of_us(c, deadline, &seen);
	if (r == -ETIMEDOUT || r == -ENOMEM) {
		rtshim_bus_close(c);
		return r;
	}
	conn_foreign_pid_ns = r == 0 && seen != getpid();

	/* remember the socket's identity (see conn_fd_is_ours) */
	if (dbus_connection_get_socket(c, &fd) && fstat(fd, &st) == 0) {
		conn_dev = st.st_dev;
		conn_ino = st.st_ino;
	} else {
		fd = -1;
	}

	conn = c;
	conn_fd = fd;
	conn_pid = getpid();
	return 0;
}

/* Has the silent daemon answered the call that timed out?  Reads what is there without waiting
 * (nothing dispatches this connection: every other message is dropped, as send_and_wait does). */
static void look_for_late_answer_locked(void)
{
	DBusMessage *m;

	if (!conn || !unanswered_serial)
		return;
	(void)dbus_connection_read_write(conn, 0);
	while ((m = dbus_connection_pop_message(conn))) {
		if (dbus_message_get_reply_serial(m) == unanswered_serial)
			silent_since_ns = 0;
		dbus_message_unref(m);
	}
}

/* A silent daemon is not asked again (see the top of this file): true when this call must fail
 * at once. */
static bool still_silent_locked(void)
{
	if (!silent_since_ns)
		return false;
	look_for_late_answer_locked();
	if (!silent_since_ns)
		return false;
	if (rtshim_raw_now_ns() - silent_since_ns < (int64_t)SILENT_REASK_MS * 1000000)
		return true;
	silent_since_ns = 0; /* long enough: this call asks again, with the usual bound */
	unanswered_serial = 0;
	return false;
}

void rtshim_conn_forget_silence(void)
{
	pthread_mutex_lock(&conn_mutex);
	silent_since_ns = 0;
	unanswered_serial = 0;
	pthread_mutex_unlock(&conn_mutex);
}

/* A usable connection for the next call (connecting if needed, a silent daemon left alone):
 * 0, or a negative errno. */
static int connected_locked(const struct timespec *deadline)
{
	int r;

	/* Our socket closed behind our back (and its number perhaps reused by the program): leave
	 * that descriptor alone, forget the connection as after a fork, and connect anew. */
	if (conn && !conn_fd_is_ours())
		forget_parent_connection();
	/* Notice a bus that went away since the last call: read a pending EOF without waiting. */
	if (conn) {
		(void)dbus_connection_read_write(conn, 0);
		if (!dbus_connection_get_is_connected(conn))
			drop_connection_locked();
	}
	if (still_silent_locked())
		return -ETIMEDOUT;
	if (!conn) {
		r = connect_locked(deadline);
		if (r == -ETIMEDOUT)
			silent_since_ns = rtshim_raw_now_ns();
		if (r < 0)
			return r;
	}
	return 0;
}

int rtshim_conn_ready_locked(const struct timespec *deadline)
{
	int r = connected_locked(deadline);
	return r < 0 ? r : conn_foreign_pid_ns ? -EXDEV : 0;
}

int rtshim_conn_call_locked(DBusMessage *msg, const struct timespec *deadline,
			    DBusMessage **reply)
{
	dbus_uint32_t serial = 0;
	int r;

	*reply = NULL;
	r = connected_locked(deadline);
	if (r < 0)
		return r;

	r = send_and_wait(conn, msg, deadline, rtshim_errno_from_dbus_error, reply, NULL, 0, &serial);
	if (r == -ETIMEDOUT) {
		silent_since_ns = rtshim_raw_now_ns();
		unanswered_serial = serial;
	}
	/* Lost the bus, or it hangs so badly that our request is not even written: start over
	 * with a new connection next time instead of queueing behind a dead one. */
	if (r < 0 && (!dbus_connection_get_is_connected(conn) ||
		      dbus_connection_has_messages_to_send(conn)))
		drop_connection_locked();
	return r;
}
