/* wire-bus.c — see wire-bus.h.
 *
 * The socket is made close-on-exec and non-blocking at creation; one that landed on 0, 1 or 2
 * (a daemon that closed them) is moved above 2 for the call, so that the program's writes to
 * its standard descriptors from another thread never reach the bus (where no descriptor above
 * 2 is left, as under an exact RLIMIT_NOFILE, it stays where it is).  It is closed before the
 * call returns either way: the program's next open gets the number it would get without us. */
#include "wire-bus.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "raw-time.h"
#include "wire-address.h"

int rtshim_wire_auth(char *buf, size_t size)
{
	static const char auth[] = "\0AUTH EXTERNAL\r\nDATA\r\nBEGIN\r\n";
	if (size < sizeof auth - 1)
		return -ENOSPC;
	memcpy(buf, auth, sizeof auth - 1);
	return (int)(sizeof auth - 1);
}

/* 0 once `events` are ready on c->fd, -ETIMEDOUT at the deadline */
static int wait_for(const struct rtshim_wire_conn *c, short events, int64_t deadline)
{
	for (;;) {
		int64_t left = deadline - rtshim_raw_now_ns();
		if (left <= 0)
			return -ETIMEDOUT;
		if (rtshim_raw_poll_fd(c->fd, events, left) > 0)
			return 0;
	}
}

/* A 1 ms pause (a word nobody wakes: the wait is a sleep), bounded by the deadline. */
static void pause_briefly(int64_t deadline)
{
	int asleep = 0;
	int64_t left = deadline - rtshim_raw_now_ns();
	if (left > 0)
		rtshim_raw_futex_wait(&asleep, 0, left < 1000000 ? left : 1000000);
}

/* The connections this process has open now, as descriptor + 1 (0: a free slot).  A child
 * forked meanwhile (a pre-forking server's worker: no exec to close them) closes its copies: the
 * thread that was using one is not in the child, and each copy would hold a connection the bus
 * counts against the user.  A socket is made and tracked, and untracked and closed, behind a
 * door that fork's prepare handler closes: no fork falls between the two (a few system calls,
 * never a wait on the bus, no other lock).  The handlers are this file's own, registered before
 * the door is first used (the shim registers them from its constructor: pthread_atfork
 * allocates), so that every program linking the client forks safely: a child of a fork made
 * while another thread held the door would find it locked for ever. */
#define OPEN_SLOTS 64
static int open_fds[OPEN_SLOTS];
static pthread_mutex_t door = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t door_handlers_once = PTHREAD_ONCE_INIT;

static void track(int fd)
{
	for (int i = 0; i < OPEN_SLOTS; i++)
		if (!open_fds[i]) {
			open_fds[i] = fd + 1;
			return;
		}
}

static void untrack(int fd)
{
	for (int i = 0; i < OPEN_SLOTS; i++)
		if (open_fds[i] == fd + 1) {
			open_fds[i] = 0;
			return;
		}
}

static void fork_prepare(void)
{
	pthread_mutex_lock(&door);
}

static void fork_parent(void)
{
	pthread_mutex_unlock(&door);
}

static void fork_child(void)
{
	for (int i = 0; i < OPEN_SLOTS; i++)
		if (open_fds[i]) {
			close(open_fds[i] - 1);
			open_fds[i] = 0;
		}
	pthread_mutex_unlock(&door);
}

static void register_fork_handlers(void)
{
	pthread_atfork(fork_prepare, fork_parent, fork_child);
}

void rtshim_wire_fork_handlers(void)
{
	pthread_once(&door_handlers_once, register_fork_handlers);
}

static void lock_door(void)
{
	rtshim_wire_fork_handlers();
	pthread_mutex_lock(&door);
}

static int socket_above_stdio(void)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd >= 0 && fd <= 2) {
		int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		if (moved >= 0) {
			close(fd);
			fd = moved;
		}
	}
	return fd;
}

/* Connect c->fd to `sa`: 0, -ETIMEDOUT, or -ENOTCONN. */
static int connect_by(struct rtshim_wire_conn *c, const struct rtshim_wire_sockaddr *sa,
		      int64_t deadline)
{
	for (;;) {
		if (connect(c->fd, (const struct sockaddr *)&sa->un, sa->length) == 0)
			return 0;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN) { /* the listener's backlog is full: try again */
			if (rtshim_raw_now_ns() >= deadline)
				return -ETIMEDOUT;
			pause_briefly(deadline);
			continue;
		}
		if (errno != EINPROGRESS)
			return -ENOTCONN;
		int err = 0;
		socklen_t len = sizeof err;
		int r = wait_for(c, POLLOUT, deadline);
		if (r < 0)
			return r;
		if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 || err)
			return -ENOTCONN;
		return 0;
	}
}

static void queue_bytes(struct rtshim_wire_conn *c, const void *p, size_t n)
{
	memcpy(c->out + c->out_len, p, n);
	c->out_len += n;
}

static int open_conn(struct rtshim_wire_conn *c, const char *address, int64_t deadline,
		     bool untracked)
{
	struct rtshim_wire_sockaddr sa;
	int r = -ENOTCONN, saved = errno;

	c->fd = -1;
	c->untracked = untracked;
	c->authenticated = false;
	c->next_serial = RTSHIM_WIRE_HELLO_SERIAL;
	c->in_start = c->in_len = c->out_len = c->skip = 0;
	for (int i = 0; r < 0 && r != -ETIMEDOUT; i++) {
		int a = rtshim_wire_address(address, i, &sa);
		if (a == -ENOENT)
			break;
		if (a < 0)
			continue;
		if (untracked) {
			c->fd = socket_above_stdio();
		} else {
			lock_door();
			c->fd = socket_above_stdio();
			if (c->fd >= 0)
				track(c->fd);
			pthread_mutex_unlock(&door);
		}
		if (c->fd < 0) {
			r = errno == ENOMEM || errno == ENOBUFS ? -ENOMEM : -ENOTCONN;
			break;
		}
		r = connect_by(c, &sa, deadline);
		if (r < 0)
			rtshim_wire_close(c);
	}
	if (r == 0) {
		char auth[64];
		int n = rtshim_wire_auth(auth, sizeof auth);
		struct rtshim_wire_call hello = {
			.destination = "org.freedesktop.DBus", .path = "/org/freedesktop/DBus",
			.interface = "org.freedesktop.DBus", .member = "Hello",
		};
		queue_bytes(c, auth, (size_t)n);
		if (rtshim_wire_queue(c, &hello) < 0)
			r = -ENOMEM;
	}
	if (r < 0)
		rtshim_wire_close(c);
	errno = saved;
	return r;
}

int rtshim_wire_open(struct rtshim_wire_conn *c, const char *address, int64_t deadline)
{
	return open_conn(c, address, deadline, false);
}

int rtshim_wire_open_untracked(struct rtshim_wire_conn *c, const char *address, int64_t deadline)
{
	return open_conn(c, address, deadline, true);
}

long rtshim_wire_queue(struct rtshim_wire_conn *c, struct rtshim_wire_call *call)
{
	call->serial = c->next_serial;
	int n = rtshim_wire_write_call(c->out + c->out_len, sizeof c->out - c->out_len, call);
	if (n < 0)
		return n;
	c->out_len += (size_t)n;
	c->next_serial++;
	return call->serial;
}

static int flush(struct rtshim_wire_conn *c, int64_t deadline)
{
	size_t sent = 0;
	while (sent < c->out_len) {
		if (rtshim_raw_now_ns() >= deadline)
			return -ETIMEDOUT;
		ssize_t n = send(c->fd, c->out + sent, c->out_len - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			sent += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN)
			return -ENOTCONN;
		int r = wait_for(c, POLLOUT, deadline);
		if (r < 0)
			return r;
	}
	c->out_len = 0;
	return 0;
}

/* More bytes into c->in (after dropping what an oversized message still has): 0, or -errno. */
static int receive(struct rtshim_wire_conn *c, int64_t deadline)
{
	for (;;) {
		if (rtshim_raw_now_ns() >= deadline)
			return -ETIMEDOUT;
		size_t room = sizeof c->in - c->in_len;
		ssize_t n = recv(c->fd, c->in + c->in_len, room, MSG_DONTWAIT);
		if (n > 0) {
			c->in_len += (size_t)n;
			size_t drop = c->skip < c->in_len ? c->skip : c->in_len;
			memmove(c->in, c->in + drop, c->in_len - drop);
			c->in_len -= drop;
			c->skip -= drop;
			if (c->in_len)
				return 0;
			continue;
		}
		if (n == 0)
			return -ENOTCONN;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return -ENOTCONN;
		int r = wait_for(c, POLLIN, deadline);
		if (r < 0)
			return r;
	}
}

static void consume(struct rtshim_wire_conn *c, size_t n)
{
	memmove(c->in, c->in + n, c->in_len - n);
	c->in_len -= n;
}

static bool line_is(const unsigned char *line, size_t len, const char *command)
{
	size_t n = strlen(command);
	return len >= n && memcmp(line, command, n) == 0 && (len == n || line[n] == ' ');
}

/* The bus's answers to the authentication, line by line: DATA (its empty challenge, which the
 * DATA we sent answers) is passed over, "OK <guid>" ends it; REJECTED, ERROR or anything else
 * refuses (-ENOTCONN), a line longer than c->in is -EPROTO. */
static int authentication(struct rtshim_wire_conn *c, int64_t deadline)
{
	for (;;) {
		const unsigned char *end = memmem(c->in, c->in_len, "\r\n", 2);
		if (end) {
			size_t len = (size_t)(end - c->in);
			bool data = line_is(c->in, len, "DATA"), ok = line_is(c->in, len, "OK");
			if (!data && !ok)
				return -ENOTCONN;
			consume(c, len + 2);
			if (ok) {
				c->authenticated = true;
				return 0;
			}
			continue;
		}
		if (c->in_len == sizeof c->in)
			return -EPROTO;
		int r = receive(c, deadline);
		if (r < 0)
			return r;
	}
}

static bool is_reply_among(const struct rtshim_wire_msg *m, uint32_t first, uint32_t last)
{
	return (m->type == RTSHIM_WIRE_METHOD_RETURN || m->type == RTSHIM_WIRE_ERROR) &&
	       m->reply_serial >= first && m->reply_serial <= last;
}

/* Drops what c->in holds of a message of `total` bytes that does not fit it: the rest of it is
 * skipped as it arrives (receive). */
static void drop_oversized(struct rtshim_wire_conn *c, size_t total)
{
	c->skip = total - c->in_len;
	consume(c, c->in_len);
}

/* A message longer than c->in, whose header c->in holds: 1 when it is not a reply to one of
 * first..last (dropped), else what rtshim_wire_reply_among returns: an error's name is all
 * callers need, a method return's body is its answer (-EPROTO: one that long is not what the
 * client asked for). */
static int oversized(struct rtshim_wire_conn *c, size_t total, uint32_t first, uint32_t last,
		     struct rtshim_wire_msg *m)
{
	if (rtshim_wire_read_header(c->in, c->in_len, m) < 0)
		return -EPROTO;
	if (!is_reply_among(m, first, last)) {
		drop_oversized(c, total);
		return 1;
	}
	if (m->type == RTSHIM_WIRE_METHOD_RETURN) {
		drop_oversized(c, total);
		return -EPROTO;
	}
	/* m points into c->in until the next call, which drops it (in_start), then the rest */
	c->in_start = c->in_len;
	c->skip = total - c->in_len;
	return 0;
}

int rtshim_wire_reply(struct rtshim_wire_conn *c, uint32_t serial, int64_t deadline,
		      struct rtshim_wire_msg *m)
{
	return rtshim_wire_reply_among(c, serial, serial, deadline, m);
}

int rtshim_wire_reply_among(struct rtshim_wire_conn *c, uint32_t first, uint32_t last,
			    int64_t deadline, struct rtshim_wire_msg *m)
{
	int r = flush(c, deadline);
	if (r < 0)
		return r;
	consume(c, c->in_start); /* the message the last reply pointed into */
	c->in_start = 0;
	if (!c->authenticated && (r = authentication(c, deadline)) < 0)
		return r;
	for (;;) {
		if (rtshim_raw_now_ns() >= deadline)
			return -ETIMEDOUT;
		if (c->in_len >= RTSHIM_WIRE_FIXED_HEADER) {
			long total = rtshim_wire_message_length(c->in);
			long header = rtshim_wire_header_length(c->in);
			if (total < 0 || header < 0 || (size_t)header > sizeof c->in)
				return -EPROTO;
			if ((size_t)total > sizeof c->in) {
				if ((size_t)header <= c->in_len &&
				    (r = oversized(c, (size_t)total, first, last, m)) <= 0)
					return r;
			} else if ((size_t)total <= c->in_len) {
				if (rtshim_wire_read(c->in, (size_t)total, m) < 0)
					return -EPROTO;
				if (is_reply_among(m, first, last)) {
					c->in_start = (size_t)total;
					return 0;
				}
				consume(c, (size_t)total);
				continue;
			}
		}
		if ((r = receive(c, deadline)) < 0)
			return r;
	}
}

void rtshim_wire_close(struct rtshim_wire_conn *c)
{
	if (c->fd >= 0 && c->untracked) {
		close(c->fd);
	} else if (c->fd >= 0) {
		lock_door();
		untrack(c->fd);
		close(c->fd);
		pthread_mutex_unlock(&door);
	}
	c->fd = -1;
}
