/* test-wire.c — the request client's D-Bus wire format and transport (daemon-client/wire-*.c),
 * checked against libdbus: libdbus reads what the client writes, the client reads what libdbus
 * writes (method returns, errors, signals), malformed and truncated messages are -EPROTO, and
 * one connection's exchange runs over a socketpair with a fake bus (signals skipped, an oversized
 * message dropped, a refused authentication, a bus that closes or stays silent). */
#include <dbus/dbus.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "raw-time.h"
#include "wire-address.h"
#include "wire-bus.h"
#include "wire-message.h"

static void test_call_read_by_libdbus(void **state)
{
	(void)state;
	unsigned char buf[512];
	struct rtshim_wire_arg args[3] = { { .type = 't', .t = 4242 }, { .type = 't', .t = 4243 },
					   { .type = 'u', .u = 17 } };
	struct rtshim_wire_call c = { .serial = 7, .destination = "org.freedesktop.RealtimeKit1",
				      .path = "/org/freedesktop/RealtimeKit1",
				      .interface = "org.freedesktop.RealtimeKit1",
				      .member = "MakeThreadRealtimeWithPID", .signature = "ttu",
				      .args = args };
	int n = rtshim_wire_write_call(buf, sizeof buf, &c);
	assert_true(n > 0);
	DBusError err;
	dbus_error_init(&err);
	DBusMessage *m = dbus_message_demarshal((const char *)buf, n, &err);
	assert_non_null(m);
	assert_int_equal(dbus_message_get_type(m), DBUS_MESSAGE_TYPE_METHOD_CALL);
	assert_int_equal(dbus_message_get_serial(m), 7);
	assert_string_equal(dbus_message_get_path(m), c.path);
	assert_string_equal(dbus_message_get_interface(m), c.interface);
	assert_string_equal(dbus_message_get_member(m), c.member);
	assert_string_equal(dbus_message_get_destination(m), c.destination);
	assert_string_equal(dbus_message_get_signature(m), "ttu");
	dbus_uint64_t p = 0, t = 0;
	dbus_uint32_t prio = 0;
	assert_true(dbus_message_get_args(m, &err, DBUS_TYPE_UINT64, &p, DBUS_TYPE_UINT64, &t,
					  DBUS_TYPE_UINT32, &prio, DBUS_TYPE_INVALID));
	assert_int_equal(p, 4242);
	assert_int_equal(t, 4243);
	assert_int_equal(prio, 17);
	dbus_message_unref(m);

	/* strings and a negative int32, no interface */
	struct rtshim_wire_arg sargs[2] = { { .type = 's', .s = "org.freedesktop.RealtimeKit1" },
					    { .type = 'i', .i = -15 } };
	struct rtshim_wire_call g = { .serial = 2, .destination = "a.b", .path = "/",
				      .member = "Get", .signature = "si", .args = sargs };
	n = rtshim_wire_write_call(buf, sizeof buf, &g);
	m = dbus_message_demarshal((const char *)buf, n, &err);
	assert_non_null(m);
	const char *s = NULL;
	dbus_int32_t i = 0;
	assert_null(dbus_message_get_interface(m));
	assert_true(dbus_message_get_args(m, &err, DBUS_TYPE_STRING, &s, DBUS_TYPE_INT32, &i,
					  DBUS_TYPE_INVALID));
	assert_string_equal(s, "org.freedesktop.RealtimeKit1");
	assert_int_equal(i, -15);
	dbus_message_unref(m);
}

static void test_call_that_does_not_fit(void **state)
{
	(void)state;
	unsigned char buf[64];
	struct rtshim_wire_call c = { .serial = 1, .destination = "org.freedesktop.DBus",
				      .path = "/org/freedesktop/DBus",
				      .interface = "org.freedesktop.DBus", .member = "Hello" };
	assert_int_equal(rtshim_wire_write_call(buf, sizeof buf, &c), -ENOSPC);
	struct rtshim_wire_arg bad = { .type = 'a' };
	unsigned char big[256];
	struct rtshim_wire_call d = { .serial = 1, .path = "/", .member = "M", .signature = "a",
				      .args = &bad };
	assert_int_equal(rtshim_wire_write_call(big, sizeof big, &d), -EINVAL);
}

/* A message libdbus marshalled, copied into buf: its length. */
static int marshal(DBusMessage *m, unsigned char *buf, size_t size)
{
	char *bytes = NULL;
	int len = 0;
	dbus_message_set_serial(m, 99);
	assert_true(dbus_message_marshal(m, &bytes, &len));
	assert_true((size_t)len <= size);
	memcpy(buf, bytes, (size_t)len);
	dbus_free(bytes);
	dbus_message_unref(m);
	return len;
}

static DBusMessage *reply_to(dbus_uint32_t serial)
{
	DBusMessage *m = dbus_message_new(DBUS_MESSAGE_TYPE_METHOD_RETURN);
	dbus_message_set_reply_serial(m, serial);
	dbus_message_set_sender(m, ":1.7");
	dbus_message_set_destination(m, ":1.8");
	return m;
}

static void test_replies_written_by_libdbus(void **state)
{
	(void)state;
	unsigned char buf[512];
	struct rtshim_wire_msg msg;
	const char *s;
	uint32_t u;
	int64_t v;

	DBusMessage *m = reply_to(1);
	const char *name = ":1.42";
	dbus_message_append_args(m, DBUS_TYPE_STRING, &name, DBUS_TYPE_INVALID);
	int n = marshal(m, buf, sizeof buf);
	assert_int_equal(rtshim_wire_message_length(buf), n);
	assert_int_equal(rtshim_wire_read(buf, (size_t)n, &msg), 0);
	assert_int_equal(msg.type, RTSHIM_WIRE_METHOD_RETURN);
	assert_int_equal(msg.reply_serial, 1);
	assert_int_equal(rtshim_wire_body_string(&msg, &s), 0);
	assert_string_equal(s, ":1.42");
	assert_int_equal(rtshim_wire_body_u32(&msg, &u), -EPROTO);

	m = reply_to(3);
	dbus_uint32_t pid = 4711;
	dbus_message_append_args(m, DBUS_TYPE_UINT32, &pid, DBUS_TYPE_INVALID);
	n = marshal(m, buf, sizeof buf);
	assert_int_equal(rtshim_wire_read(buf, (size_t)n, &msg), 0);
	assert_int_equal(rtshim_wire_body_u32(&msg, &u), 0);
	assert_int_equal(u, 4711);

	/* Properties.Get: a variant holding int32, then int64 */
	DBusMessageIter it, var;
	m = reply_to(4);
	dbus_int32_t i32 = -15;
	dbus_message_iter_init_append(m, &it);
	dbus_message_iter_open_container(&it, DBUS_TYPE_VARIANT, "i", &var);
	dbus_message_iter_append_basic(&var, DBUS_TYPE_INT32, &i32);
	dbus_message_iter_close_container(&it, &var);
	n = marshal(m, buf, sizeof buf);
	assert_int_equal(rtshim_wire_read(buf, (size_t)n, &msg), 0);
	assert_int_equal(rtshim_wire_body_variant_int(&msg, &v), 0);
	assert_int_equal(v, -15);
	m = reply_to(5);
	dbus_int64_t i64 = 200000;
	dbus_message_iter_init_append(m, &it);
	dbus_message_iter_open_container(&it, DBUS_TYPE_VARIANT, "x", &var);
	dbus_message_iter_append_basic(&var, DBUS_TYPE_INT64, &i64);
	dbus_message_iter_close_container(&it, &var);
	n = marshal(m, buf, sizeof buf);
	assert_int_equal(rtshim_wire_read(buf, (size_t)n, &msg), 0);
	assert_int_equal(rtshim_wire_body_variant_int(&msg, &v), 0);
	assert_int_equal(v, 200000);
	/* a variant of another type is not rtkit's */
	m = reply_to(6);
	const char *str = "x";
	dbus_message_iter_init_append(m, &it);
	dbus_message_iter_open_container(&it, DBUS_TYPE_VARIANT, "s", &var);
	dbus_message_iter_append_basic(&var, DBUS_TYPE_STRING, &str);
	dbus_message_iter_close_container(&it, &var);
	n = marshal(m, buf, sizeof buf);
	assert_int_equal(rtshim_wire_read(buf, (size_t)n, &msg), 0);
	assert_int_equal(rtshim_wire_body_variant_int(&msg, &v), -EPROTO);

	/* an error with its message */
	m = dbus_message_new(DBUS_MESSAGE_TYPE_ERROR);
	dbus_message_set_reply_serial(m, 2);
	dbus_message_set_error_name(m, DBUS_ERROR_ACCESS_DENIED);
	const char *why = "Operation not permitted";
	dbus_message_append_args(m, DBUS_TYPE_STRING, &why, DBUS_TYPE_INVALID);
	n = marshal(m, buf, sizeof buf);
	assert_int_equal(rtshim_wire_read(buf, (size_t)n, &msg), 0);
	assert_int_equal(msg.type, RTSHIM_WIRE_ERROR);
	assert_string_equal(msg.error_name, DBUS_ERROR_ACCESS_DENIED);
	assert_string_equal(rtshim_wire_error_message(&msg), why);

	/* a signal (NameAcquired) */
	m = dbus_message_new_signal("/org/freedesktop/DBus", "org.freedesktop.DBus", "NameAcquired");
	dbus_message_append_args(m, DBUS_TYPE_STRING, &name, DBUS_TYPE_INVALID);
	n = marshal(m, buf, sizeof buf);
	assert_int_equal(rtshim_wire_read(buf, (size_t)n, &msg), 0);
	assert_int_equal(msg.type, RTSHIM_WIRE_SIGNAL);
	assert_int_equal(msg.reply_serial, 0);
}

static void test_big_endian_reply(void **state)
{
	(void)state;
	/* method return, serial 9, reply serial 5, body "u" 0x01020304, written by hand in
	 * big-endian: the fields array 16..31 (15 bytes and a pad), the body at 32 */
	static const unsigned char buf[] = {
		'B', 2, 0, 1, 0, 0, 0, 4, 0, 0, 0, 9, 0, 0, 0, 15,
		5, 1, 'u', 0, 0, 0, 0, 5,             /* REPLY_SERIAL 5 */
		8, 1, 'g', 0, 1, 'u', 0, 0,           /* SIGNATURE "u", a pad */
		1, 2, 3, 4,
	};
	struct rtshim_wire_msg msg;
	assert_int_equal(rtshim_wire_message_length(buf), 36);
	assert_int_equal(rtshim_wire_read(buf, 36, &msg), 0);
	assert_true(msg.big_endian);
	assert_int_equal(msg.reply_serial, 5);
	uint32_t u;
	assert_int_equal(rtshim_wire_body_u32(&msg, &u), 0);
	assert_int_equal(u, 0x01020304);
}

static void test_malformed(void **state)
{
	(void)state;
	unsigned char buf[512], copy[512];
	struct rtshim_wire_msg msg;
	DBusMessage *m = reply_to(1);
	const char *name = ":1.42";
	dbus_message_append_args(m, DBUS_TYPE_STRING, &name, DBUS_TYPE_INVALID);
	int n = marshal(m, buf, sizeof buf);

	/* every shorter length is refused, never read past */
	for (int len = 0; len < n; len++) {
		memcpy(copy, buf, (size_t)len);
		assert_int_equal(rtshim_wire_read(copy, (size_t)len, &msg), -EPROTO);
	}
	/* not a D-Bus message, another version, a length beyond the protocol's */
	memcpy(copy, buf, (size_t)n);
	copy[0] = 'x';
	assert_int_equal(rtshim_wire_message_length(copy), -EPROTO);
	memcpy(copy, buf, (size_t)n);
	copy[3] = 2;
	assert_int_equal(rtshim_wire_message_length(copy), -EPROTO);
	memcpy(copy, buf, (size_t)n);
	copy[7] = 0x7f;
	assert_int_equal(rtshim_wire_message_length(copy), -EPROTO);
	/* a string whose length runs past the body */
	memcpy(copy, buf, (size_t)n);
	copy[n - 10] = 0xff;
	assert_int_equal(rtshim_wire_read(copy, (size_t)n, &msg), 0);
	const char *s;
	assert_int_equal(rtshim_wire_body_string(&msg, &s), -EPROTO);
	/* every single byte flipped: read or refused, never out of bounds (ASan build) */
	for (int at = 0; at < n; at++) {
		memcpy(copy, buf, (size_t)n);
		copy[at] ^= 0xff;
		if (rtshim_wire_read(copy, (size_t)n, &msg) == 0)
			(void)rtshim_wire_body_string(&msg, &s);
	}
}

static void test_address(void **state)
{
	(void)state;
	struct rtshim_wire_sockaddr sa;
	assert_int_equal(rtshim_wire_address("unix:path=/run/dbus/system_bus_socket", 0, &sa), 0);
	assert_string_equal(sa.un.sun_path, "/run/dbus/system_bus_socket");
	assert_int_equal(sa.length, offsetof(struct sockaddr_un, sun_path) + 28);
	assert_int_equal(rtshim_wire_address("unix:path=/run/dbus/system_bus_socket", 1, &sa),
			 -ENOENT);
	/* escapes, other keys, alternatives */
	assert_int_equal(rtshim_wire_address("unix:guid=0123,path=/tmp/a%20b%2c", 0, &sa), 0);
	assert_string_equal(sa.un.sun_path, "/tmp/a b,");
	const char *list = "tcp:host=x,port=1;unix:abstract=/tmp/dbus-X;;unix:path=/p";
	assert_int_equal(rtshim_wire_address(list, 0, &sa), -EINVAL);
	assert_int_equal(rtshim_wire_address(list, 1, &sa), 0);
	assert_int_equal(sa.un.sun_path[0], '\0');
	assert_memory_equal(sa.un.sun_path + 1, "/tmp/dbus-X", 11);
	assert_int_equal(sa.length, offsetof(struct sockaddr_un, sun_path) + 12);
	assert_int_equal(rtshim_wire_address(list, 2, &sa), -EINVAL);
	assert_int_equal(rtshim_wire_address(list, 3, &sa), 0);
	assert_string_equal(sa.un.sun_path, "/p");
	assert_int_equal(rtshim_wire_address(list, 4, &sa), -ENOENT);
	assert_int_equal(rtshim_wire_address("", 0, &sa), -ENOENT);
	/* malformed: bad escape, empty path, both keys, NUL by escape, too long */
	assert_int_equal(rtshim_wire_address("unix:path=/a%2", 0, &sa), -EINVAL);
	assert_int_equal(rtshim_wire_address("unix:path=", 0, &sa), -EINVAL);
	assert_int_equal(rtshim_wire_address("unix:path=/a,abstract=b", 0, &sa), -EINVAL);
	assert_int_equal(rtshim_wire_address("unix:path=/a%00b", 0, &sa), -EINVAL);
	assert_int_equal(rtshim_wire_address("unix:runtime=yes", 0, &sa), -EINVAL);
	char longer[200] = "unix:path=/";
	memset(longer + 11, 'a', 150);
	assert_int_equal(rtshim_wire_address(longer, 0, &sa), -EINVAL);
}

static void test_auth(void **state)
{
	(void)state;
	char buf[64];
	static const char want[] = "\0AUTH EXTERNAL 31303030\r\nBEGIN\r\n";
	assert_int_equal(rtshim_wire_auth(buf, sizeof buf, 1000), sizeof want - 1);
	assert_memory_equal(buf, want, sizeof want - 1);
	assert_int_equal(rtshim_wire_auth(buf, 8, 1000), -ENOSPC);
	assert_int_equal(rtshim_wire_auth(buf, sizeof buf, 0), 1 + 14 + 2 + 9);
}

/* ---- one connection against a fake bus on a socketpair ---- */

static struct rtshim_wire_conn conn;
static int bus_end;

static void fake_connect(void)
{
	int sv[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
	memset(&conn, 0, sizeof conn);
	conn.fd = sv[0];
	conn.next_serial = 2;
	bus_end = sv[1];
}

static void bus_writes(const void *p, size_t n)
{
	assert_int_equal(write(bus_end, p, n), (ssize_t)n);
}

static void bus_replies(dbus_uint32_t serial, dbus_uint32_t value)
{
	unsigned char buf[256];
	DBusMessage *m = reply_to(serial);
	dbus_message_append_args(m, DBUS_TYPE_UINT32, &value, DBUS_TYPE_INVALID);
	bus_writes(buf, (size_t)marshal(m, buf, sizeof buf));
}

static int64_t in_ms(int ms)
{
	return rtshim_raw_now_ns() + (int64_t)ms * 1000000;
}

static void test_exchange(void **state)
{
	(void)state;
	struct rtshim_wire_msg m;
	uint32_t u;
	unsigned char buf[256];
	fake_connect();
	bus_writes("OK 0123456789abcdef0123456789abcdef\r\n", 37);
	/* NameAcquired, a reply to someone else's serial, then ours */
	const char *name = ":1.9";
	DBusMessage *sig = dbus_message_new_signal("/org/freedesktop/DBus", "org.freedesktop.DBus",
						   "NameAcquired");
	dbus_message_append_args(sig, DBUS_TYPE_STRING, &name, DBUS_TYPE_INVALID);
	bus_writes(buf, (size_t)marshal(sig, buf, sizeof buf));
	bus_replies(1, 111);
	bus_replies(2, 222);
	assert_int_equal(rtshim_wire_reply(&conn, 2, in_ms(1000), &m), 0);
	assert_int_equal(rtshim_wire_body_u32(&m, &u), 0);
	assert_int_equal(u, 222);
	/* silent: the deadline ends the wait */
	int64_t t0 = rtshim_raw_now_ns();
	assert_int_equal(rtshim_wire_reply(&conn, 3, in_ms(50), &m), -ETIMEDOUT);
	assert_true(rtshim_raw_now_ns() - t0 < 1000000000);
	/* a message longer than the client reads is dropped, the next one read */
	unsigned char *big = calloc(1, 5000);
	DBusMessage *b = reply_to(3);
	char *text = malloc(4000);
	memset(text, 'a', 3999);
	text[3999] = '\0';
	dbus_message_append_args(b, DBUS_TYPE_STRING, &text, DBUS_TYPE_INVALID);
	bus_writes(big, (size_t)marshal(b, big, 5000));
	bus_replies(4, 444);
	assert_int_equal(rtshim_wire_reply(&conn, 4, in_ms(1000), &m), 0);
	assert_int_equal(rtshim_wire_body_u32(&m, &u), 0);
	assert_int_equal(u, 444);
	free(text);
	free(big);
	/* the bus closes: -ENOTCONN */
	close(bus_end);
	assert_int_equal(rtshim_wire_reply(&conn, 5, in_ms(1000), &m), -ENOTCONN);
	rtshim_wire_close(&conn);
	assert_int_equal(conn.fd, -1);
}

static void test_refused_authentication(void **state)
{
	(void)state;
	struct rtshim_wire_msg m;
	fake_connect();
	bus_writes("REJECTED EXTERNAL\r\n", 19);
	assert_int_equal(rtshim_wire_reply(&conn, 1, in_ms(1000), &m), -ENOTCONN);
	rtshim_wire_close(&conn);
	close(bus_end);
	/* garbage instead of a message after OK */
	fake_connect();
	bus_writes("OK 0123\r\nthis is not a D-Bus message", 36);
	assert_int_equal(rtshim_wire_reply(&conn, 1, in_ms(1000), &m), -EPROTO);
	rtshim_wire_close(&conn);
	close(bus_end);
}

static void test_nobody_listening(void **state)
{
	(void)state;
	struct rtshim_wire_conn c;
	assert_int_equal(rtshim_wire_open(&c, "unix:path=/nonexistent/bus", in_ms(100)), -ENOTCONN);
	assert_int_equal(c.fd, -1);
	assert_int_equal(rtshim_wire_open(&c, "tcp:host=localhost,port=1", in_ms(100)), -ENOTCONN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_call_read_by_libdbus),
		cmocka_unit_test(test_call_that_does_not_fit),
		cmocka_unit_test(test_replies_written_by_libdbus),
		cmocka_unit_test(test_big_endian_reply),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_address),
		cmocka_unit_test(test_auth),
		cmocka_unit_test(test_exchange),
		cmocka_unit_test(test_refused_authentication),
		cmocka_unit_test(test_nobody_listening),
	};
	return cmocka_run_group_tests_name("wire", tests, NULL, NULL);
}
