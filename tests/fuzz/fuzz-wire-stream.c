/* fuzz-wire-stream — libFuzzer target for the request client's reading of the bus socket
 * (daemon-client/wire-bus.c): the authentication lines, then the stream of messages cut at
 * whatever boundaries recv gives, oversized ones drained, replies found by serial.
 *
 * Input: one byte that sets how much each recv returns at most (1..256), then what the bus
 * sends.  It is written into a socketpair whose other end is then closed, so every call ends
 * (the stream runs out: -ENOTCONN) without waiting; rtshim_wire_reply is asked for serials 1, 2,
 * ... until it fails.  Checked besides the sanitizers: a reply read has its strings inside the
 * connection's buffer, its body too (or none when cut), and is a reply to the serial asked. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "raw-time.h"
#include "wire-bus.h"

#define CHECK(cond)                                                                  \
	do {                                                                         \
		if (!(cond)) {                                                       \
			fprintf(stderr, "fuzz-wire-stream: %s:%d: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                     \
		}                                                                    \
	} while (0)

static struct rtshim_wire_conn conn;
static size_t chunk;

/* The client's recv, cut to `chunk` bytes (this program's definition wins over libc's for the
 * client's objects linked into it). */
ssize_t recv(int fd, void *buf, size_t n, int flags);
ssize_t recv(int fd, void *buf, size_t n, int flags)
{
	if (fd == conn.fd && n > chunk)
		n = chunk;
	return syscall(SYS_recvfrom, fd, buf, n, flags, NULL, NULL);
}

static int inside(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	return p >= conn.in && p < conn.in + conn.in_len &&
	       memchr(p, 0, (size_t)(conn.in + conn.in_len - p));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int sv[2];
	if (size < 1 || size > 65536)
		return 0;
	chunk = (size_t)data[0] + 1;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) < 0)
		return 0;
	int64_t deadline = rtshim_raw_now_ns() + 10000000000;
	memset(&conn, 0, sizeof conn);
	conn.fd = sv[0];
	conn.next_serial = 1;
	for (size_t at = 1; at < size;) {
		ssize_t n = write(sv[1], data + at, size - at);
		if (n <= 0)
			break;
		at += (size_t)n;
	}
	close(sv[1]);
	for (uint32_t serial = 1; serial < 1000; serial++) {
		struct rtshim_wire_msg m;
		int r = rtshim_wire_reply(&conn, serial, deadline, &m);
		CHECK(r == 0 || r == -ENOTCONN || r == -EPROTO || r == -ETIMEDOUT);
		CHECK(conn.in_len <= sizeof conn.in && conn.in_start <= conn.in_len);
		if (r < 0)
			break;
		CHECK(conn.authenticated);
		CHECK(m.reply_serial == serial);
		CHECK(m.type == RTSHIM_WIRE_METHOD_RETURN || m.type == RTSHIM_WIRE_ERROR);
		CHECK(m.signature[0] == '\0' || inside(m.signature));
		CHECK(!m.error_name || inside(m.error_name));
		if (m.body_cut)
			CHECK(!m.body && m.body_length == 0 && m.type == RTSHIM_WIRE_ERROR);
		else
			CHECK(m.body >= conn.in && m.body + m.body_length <= conn.in + conn.in_len);
		const char *s = rtshim_wire_error_message(&m);
		CHECK(!s || inside(s));
	}
	rtshim_wire_close(&conn);
	return 0;
}
