/* wire-bus.h — one connection to a D-Bus bus for one call of the client: opened, used and closed
 * inside that call, so no descriptor of the client outlives it and nothing is shared between
 * threads or across fork.  No allocation: the connection is a struct on the caller's stack.
 *
 * The exchange is pipelined, as dbus-broker's own client does: the authentication (EXTERNAL
 * with an empty identity, so that the bus takes our UID from the socket's credentials, as it
 * sees it from its user namespace), BEGIN, Hello and the calls are written without waiting for
 * the bus's answers; the answers are then read in order, and only the replies asked for are kept
 * (NameAcquired and every other message are skipped).  Every loop ends at `deadline`
 * (CLOCK_MONOTONIC nanoseconds, read and waited for with the system calls themselves:
 * kernel/raw-time.h), whatever keeps arriving. */
#ifndef RTSHIM_WIRE_BUS_H
#define RTSHIM_WIRE_BUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire-message.h"

/* What one connection reads and writes at most at a time (the client's replies are under 300
 * bytes; what it writes at once at most: the authentication, Hello and the three Properties.Get
 * of the limits, under 900 bytes through the portal).  A longer message is skipped unread once its header is read: when it is the reply
 * asked for, an error's name is returned (without its message), a method return is -EPROTO. */
#define RTSHIM_WIRE_IN_SIZE 1024
#define RTSHIM_WIRE_OUT_SIZE 1024

/* The serial of Hello, the first message on every connection. */
#define RTSHIM_WIRE_HELLO_SERIAL 1u

struct rtshim_wire_conn {
	int fd;
	bool authenticated;
	bool untracked; /* rtshim_wire_open_untracked's */
	uint32_t next_serial;
	size_t in_start, in_len, out_len;
	size_t skip;                           /* bytes of an oversized message still to drop */
	unsigned char in[RTSHIM_WIRE_IN_SIZE];
	unsigned char out[RTSHIM_WIRE_OUT_SIZE];
};

/* Connect to the first alternative of `address` that accepts, and queue the authentication
 * and Hello.  0, or -ENOTCONN (no usable address, nobody listening), -ETIMEDOUT, -ENOMEM; then
 * nothing is open. */
int rtshim_wire_open(struct rtshim_wire_conn *c, const char *address, int64_t deadline);

/* The same, for a process that shares the program's memory and not its descriptors, and may
 * die at any system call (the seccomp probe's child): the fork door and the table of open
 * connections are not its to touch. */
int rtshim_wire_open_untracked(struct rtshim_wire_conn *c, const char *address, int64_t deadline);

/* Queue `call` (its serial is assigned here): the serial, or -ENOSPC. */
long rtshim_wire_queue(struct rtshim_wire_conn *c, struct rtshim_wire_call *call);

/* Write what is queued, then read until the reply to `serial` (a method return or an error):
 * 0 and *m (its strings point into c, valid until the next call on c), or -ETIMEDOUT,
 * -ENOTCONN (the bus closed the connection or refused the authentication), -EPROTO (a
 * malformed message, a header longer than c->in, our method return longer than c->in).  An
 * error longer than c->in comes with its name only (body_cut). */
int rtshim_wire_reply(struct rtshim_wire_conn *c, uint32_t serial, int64_t deadline,
		      struct rtshim_wire_msg *m);

/* The same for the next reply to any of the serials first..last, in the order the bus sends
 * them (m->reply_serial says which): the replies to calls queued together, when they went to
 * different peers (the bus's own answers can overtake another peer's).  What follows the reply
 * in c->in is kept for the next call. */
int rtshim_wire_reply_among(struct rtshim_wire_conn *c, uint32_t first, uint32_t last,
			    int64_t deadline, struct rtshim_wire_msg *m);

void rtshim_wire_close(struct rtshim_wire_conn *c);

/* Registers the fork handlers that keep a child from inheriting an open connection (once; also
 * done by the first connection): no connection is opened or closed across a fork, and the child
 * closes its copies of those its parent had open. */
void rtshim_wire_fork_handlers(void);

/* The authentication and BEGIN, as the bus reads them, written into buf: the length, or
 * -ENOSPC.  The empty-identity exchange of EXTERNAL: AUTH EXTERNAL (the bus answers DATA), DATA
 * (the bus answers OK), BEGIN; dbus-daemon and dbus-broker both read these lines in order from
 * one write. */
int rtshim_wire_auth(char *buf, size_t size);

#endif
