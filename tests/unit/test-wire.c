/* test-wire.c — the request client's D-Bus wire format and transport (daemon-client/wire-*.c),
 * checked against libdbus: libdbus reads what the client writes, the client reads what libdbus
 * writes (method returns, errors, signals), malformed and truncated messages are -EPROTO, and
 * one connection's exchange runs over a socketpair with a fake bus (signals skipped, an oversized
 * message dropped, a refused authentication, a bus that closes or stays silent). */
#include <dbus/dbus.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
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

/* ---- messages written by hand, in either byte order ---- */

struct hand {
	unsigned char b[1024];
	size_t n;
	bool be;
};

static void h_pad(struct hand *h, size_t a)
{
	while (h->n % a)
		h->b[h->n++] = 0;
}

static void h_u8(struct hand *h, uint8_t v)
{
	h->b[h->n++] = v;
}

static void h_u32(struct hand *h, uint32_t v)
{
	h_pad(h, 4);
	for (int i = 0; i < 4; i++)
		h->b[h->n++] = (unsigned char)(v >> (h->be ? 24 - 8 * i : 8 * i));
}

static void h_u64(struct hand *h, uint64_t v)
{
	h_pad(h, 8);
	for (int i = 0; i < 8; i++)
		h->b[h->n++] = (unsigned char)(v >> (h->be ? 56 - 8 * i : 8 * i));
}

static void h_str(struct hand *h, const char *s)
{
	h_u32(h, (uint32_t)strlen(s));
	memcpy(h->b + h->n, s, strlen(s) + 1);
	h->n += strlen(s) + 1;
}

static void h_sig(struct hand *h, const char *s)
{
	h_u8(h, (uint8_t)strlen(s));
	memcpy(h->b + h->n, s, strlen(s) + 1);
	h->n += strlen(s) + 1;
}

/* A header field: its code and variant signature (the caller writes the value). */
static void h_field(struct hand *h, uint8_t code, const char *sig)
{
	h_pad(h, 8);
	h_u8(h, code);
	h_sig(h, sig);
}

/* The fixed header of a method return (serial 9): the lengths are filled in by h_end. */
static void h_begin(struct hand *h, bool be)
{
	memset(h, 0, sizeof *h);
	h->be = be;
	h_u8(h, be ? 'B' : 'l');
	h_u8(h, RTSHIM_WIRE_METHOD_RETURN);
	h_u8(h, 0);
	h_u8(h, 1);
	h_u32(h, 0);
	h_u32(h, 9);
	h_u32(h, 0);
}

static size_t fields_end;

/* The header fields end here; the body follows. */
static void h_body(struct hand *h)
{
	fields_end = h->n;
	h_pad(h, 8);
}

static size_t h_end(struct hand *h)
{
	struct hand len = { .be = h->be };
	h_u32(&len, (uint32_t)(h->n - (fields_end + 7) / 8 * 8));
	h_u32(&len, 0);
	h_u32(&len, (uint32_t)(fields_end - RTSHIM_WIRE_FIXED_HEADER));
	memcpy(h->b + 4, len.b, 4);
	memcpy(h->b + 12, len.b + 8, 4);
	return h->n;
}

/* Unknown fields of container types, then REPLY_SERIAL 5 and SIGNATURE sig. */
static void h_unknown_fields(struct hand *h, const char *sig)
{
	h_field(h, 200, "as"); /* ["ab", "c"]: 4 + 3, a pad, 4 + 2 bytes */
	h_u32(h, 14);
	h_str(h, "ab");
	h_str(h, "c");
	h_field(h, 201, "(ix)"); /* (7, 8): the struct and the x aligned to 8 */
	h_pad(h, 8);
	h_u32(h, 7);
	h_u64(h, 8);
	h_field(h, 202, "a{sv}"); /* {"k": <<"ay": [1, 2]>>} : a nested variant */
	h_u32(h, 0);
	size_t at = h->n - 4;
	h_pad(h, 8);
	size_t start = h->n;
	h_str(h, "k");
	h_sig(h, "ay");
	h_u32(h, 2);
	h_u8(h, 1);
	h_u8(h, 2);
	uint32_t n = (uint32_t)(h->n - start);
	struct hand len = { .be = h->be };
	h_u32(&len, n);
	memcpy(h->b + at, len.b, 4);
	h_field(h, 203, "at"); /* empty: padded to 8 all the same */
	h_u32(h, 0);
	h_pad(h, 8);
	h_field(h, 205, "v"); /* <<"s": "x">>: a variant in a variant */
	h_sig(h, "s");
	h_str(h, "x");
	h_field(h, 204, "t");
	h_u64(h, 0x0102030405060708u);
	h_field(h, 5, "u");
	h_u32(h, 5);
	h_field(h, 8, "g");
	h_sig(h, sig);
}

static void test_unknown_header_fields_skipped(void **state)
{
	(void)state;
	struct hand h;
	struct rtshim_wire_msg m;
	const char *s;
	int64_t v;
	uint32_t u;
	for (int be = 0; be < 2; be++) {
		h_begin(&h, be);
		h_unknown_fields(&h, "s");
		h_body(&h);
		h_str(&h, ":1.42");
		size_t n = h_end(&h);
		assert_int_equal(rtshim_wire_message_length(h.b), (long)n);
		assert_int_equal(rtshim_wire_read(h.b, n, &m), 0);
		assert_int_equal(m.big_endian, be);
		assert_int_equal(m.reply_serial, 5);
		assert_int_equal(rtshim_wire_body_string(&m, &s), 0);
		assert_string_equal(s, ":1.42");
		/* libdbus reads it too: the test writes what the specification says */
		DBusError err;
		dbus_error_init(&err);
		DBusMessage *d = dbus_message_demarshal((const char *)h.b, (int)n, &err);
		assert_non_null(d);
		dbus_message_unref(d);

		/* a 64-bit value in a variant body, and a u32 */
		h_begin(&h, be);
		h_unknown_fields(&h, "v");
		h_body(&h);
		h_sig(&h, "x");
		h_u64(&h, (uint64_t)-200000);
		n = h_end(&h);
		assert_int_equal(rtshim_wire_read(h.b, n, &m), 0);
		assert_int_equal(rtshim_wire_body_variant_int(&m, &v), 0);
		assert_int_equal(v, -200000);
		h_begin(&h, be);
		h_field(&h, 5, "u");
		h_u32(&h, 5);
		h_field(&h, 8, "g");
		h_sig(&h, "u");
		h_body(&h);
		h_u32(&h, 0x01020304);
		n = h_end(&h);
		assert_int_equal(rtshim_wire_read(h.b, n, &m), 0);
		assert_int_equal(rtshim_wire_body_u32(&m, &u), 0);
		assert_int_equal(u, 0x01020304);
	}
}

/* A method return whose one unknown field (code 200) has signature sig and value bytes val (at
 * the next multiple of 4). */
static size_t with_field(struct hand *h, const char *sig, const void *val, size_t len)
{
	h_begin(h, false);
	h_field(h, 5, "u");
	h_u32(h, 5);
	h_field(h, 200, sig);
	h_pad(h, 4);
	memcpy(h->b + h->n, val, len);
	h->n += len;
	h_body(h);
	return h_end(h);
}

static void test_malformed_header_fields_refused(void **state)
{
	(void)state;
	struct hand h;
	struct rtshim_wire_msg m;
	static const unsigned char two[8] = { 2, 0, 0, 0, 1, 2 };      /* ay: [1, 2] */
	static const unsigned char past[8] = { 9, 0, 0, 0, 1, 2 };     /* ay: 9 bytes, 2 there */
	static const unsigned char split[12] = { 3, 0, 0, 0, 1, 0, 0, 0, 2 }; /* au: 3 bytes */
	static const unsigned char two_ints[8] = { 1, 0, 0, 0, 2 };
	size_t n = with_field(&h, "ay", two, 6);
	assert_int_equal(rtshim_wire_read(h.b, n, &m), 0);
	n = with_field(&h, "ay", past, 6);
	assert_int_equal(rtshim_wire_read(h.b, n, &m), -EPROTO);
	n = with_field(&h, "au", split, 12);
	assert_int_equal(rtshim_wire_read(h.b, n, &m), -EPROTO);
	/* not one complete type, or not a type */
	static const char *const bad[] = { "ii", "()", "{sv}", "a{vs}", "a{s}", "a", "(i", "z",
					   "a{sii}", "" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		n = with_field(&h, bad[i], two_ints, 8);
		assert_int_equal(rtshim_wire_read(h.b, n, &m), -EPROTO);
	}
	/* nested deeper than the specification allows (65 arrays), and as deep as it allows (32) */
	char deep[67];
	memset(deep, 'a', 65);
	deep[65] = 'y';
	deep[66] = '\0';
	static const unsigned char empty[4];
	n = with_field(&h, deep, empty, 4);
	assert_int_equal(rtshim_wire_read(h.b, n, &m), -EPROTO);
	deep[32] = 'y';
	deep[33] = '\0';
	n = with_field(&h, deep, empty, 4);
	assert_int_equal(rtshim_wire_read(h.b, n, &m), 0);
	/* a known field of another type than the specification's */
	h_begin(&h, false);
	h_field(&h, 5, "u");
	h_u32(&h, 5);
	h_field(&h, 8, "s");
	h_str(&h, "u");
	h_body(&h);
	n = h_end(&h);
	assert_int_equal(rtshim_wire_read(h.b, n, &m), -EPROTO);
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
	/* EXTERNAL with an empty identity: the bus takes the UID from the socket */
	static const char want[] = "\0AUTH EXTERNAL\r\nDATA\r\nBEGIN\r\n";
	assert_int_equal(rtshim_wire_auth(buf, sizeof buf), sizeof want - 1);
	assert_memory_equal(buf, want, sizeof want - 1);
	assert_int_equal(rtshim_wire_auth(buf, 8), -ENOSPC);
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

/* A message libdbus marshalled, written by the fake bus (any length). */
static void bus_sends(DBusMessage *m)
{
	char *bytes = NULL;
	int len = 0;
	dbus_message_set_serial(m, 99);
	assert_true(dbus_message_marshal(m, &bytes, &len));
	bus_writes(bytes, (size_t)len);
	dbus_free(bytes);
	dbus_message_unref(m);
}

/* A text of n 'a's (freed by the caller). */
static char *text_of(size_t n)
{
	char *t = malloc(n + 1);
	memset(t, 'a', n);
	t[n] = '\0';
	return t;
}

static DBusMessage *error_to(dbus_uint32_t serial, const char *name, const char *text)
{
	DBusMessage *m = dbus_message_new(DBUS_MESSAGE_TYPE_ERROR);
	dbus_message_set_reply_serial(m, serial);
	dbus_message_set_error_name(m, name);
	dbus_message_append_args(m, DBUS_TYPE_STRING, &text, DBUS_TYPE_INVALID);
	return m;
}

static void authenticated_fake(void)
{
	fake_connect();
	conn.authenticated = true;
}

static void test_reply_longer_than_the_buffer(void **state)
{
	(void)state;
	struct rtshim_wire_msg m;
	uint32_t u;
	char *text = text_of(4000);
	authenticated_fake();
	/* an error of 4000 bytes: its name at once, the rest drained, the next reply read */
	bus_sends(error_to(2, DBUS_ERROR_ACCESS_DENIED, text));
	bus_replies(3, 333);
	int64_t t0 = rtshim_raw_now_ns();
	assert_int_equal(rtshim_wire_reply(&conn, 2, in_ms(5000), &m), 0);
	assert_true(rtshim_raw_now_ns() - t0 < 2000000000);
	assert_int_equal(m.type, RTSHIM_WIRE_ERROR);
	assert_string_equal(m.error_name, DBUS_ERROR_ACCESS_DENIED);
	assert_true(m.body_cut);
	assert_null(rtshim_wire_error_message(&m));
	assert_int_equal(rtshim_wire_reply(&conn, 3, in_ms(1000), &m), 0);
	assert_int_equal(rtshim_wire_body_u32(&m, &u), 0);
	assert_int_equal(u, 333);
	/* a method return of 4000 bytes: -EPROTO at once, and the stream stays in step */
	DBusMessage *r = reply_to(4);
	dbus_message_append_args(r, DBUS_TYPE_STRING, &text, DBUS_TYPE_INVALID);
	bus_sends(r);
	bus_replies(5, 555);
	assert_int_equal(rtshim_wire_reply(&conn, 4, in_ms(5000), &m), -EPROTO);
	assert_int_equal(rtshim_wire_reply(&conn, 5, in_ms(1000), &m), 0);
	assert_int_equal(rtshim_wire_body_u32(&m, &u), 0);
	assert_int_equal(u, 555);
	/* an unrelated signal of 5000 bytes before the reply: skipped */
	free(text);
	text = text_of(5000);
	DBusMessage *sig = dbus_message_new_signal("/a", "a.b", "Big");
	dbus_message_append_args(sig, DBUS_TYPE_STRING, &text, DBUS_TYPE_INVALID);
	bus_sends(sig);
	bus_replies(6, 666);
	assert_int_equal(rtshim_wire_reply(&conn, 6, in_ms(1000), &m), 0);
	assert_int_equal(rtshim_wire_body_u32(&m, &u), 0);
	assert_int_equal(u, 666);
	free(text);
	rtshim_wire_close(&conn);
	close(bus_end);
}

static void test_header_longer_than_the_buffer(void **state)
{
	(void)state;
	struct rtshim_wire_msg m;
	char path[1200] = "/";
	memset(path + 1, 'p', sizeof path - 2);
	path[sizeof path - 1] = '\0';
	authenticated_fake();
	bus_sends(dbus_message_new_signal(path, "a.b", "Long"));
	int64_t t0 = rtshim_raw_now_ns();
	assert_int_equal(rtshim_wire_reply(&conn, 2, in_ms(5000), &m), -EPROTO);
	assert_true(rtshim_raw_now_ns() - t0 < 2000000000);
	rtshim_wire_close(&conn);
	close(bus_end);
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

#define GUID "0123456789abcdef0123456789abcdef"

/* The bus's answers to the authentication, one case each: what rtshim_wire_reply returns. */
static int answered(const char *lines)
{
	struct rtshim_wire_msg m;
	fake_connect();
	bus_writes(lines, strlen(lines));
	bus_replies(2, 222);
	int r = rtshim_wire_reply(&conn, 2, in_ms(1000), &m);
	rtshim_wire_close(&conn);
	close(bus_end);
	return r;
}

static void test_authentication_lines(void **state)
{
	(void)state;
	assert_int_equal(answered("OK " GUID "\r\n"), 0);
	/* the empty challenge, which the DATA sent with the AUTH answers */
	assert_int_equal(answered("DATA\r\nOK " GUID "\r\n"), 0);
	assert_int_equal(answered("REJECTED EXTERNAL\r\n"), -ENOTCONN);
	assert_int_equal(answered("DATA\r\nREJECTED EXTERNAL\r\n"), -ENOTCONN);
	assert_int_equal(answered("ERROR \"Not currently in an auth conversation\"\r\n"),
			 -ENOTCONN);
	assert_int_equal(answered("ERROR\r\n"), -ENOTCONN);
	assert_int_equal(answered("OKAY\r\n"), -ENOTCONN);
	/* a line longer than the buffer */
	char *line = text_of(RTSHIM_WIRE_IN_SIZE + 10);
	assert_int_equal(answered(line), -EPROTO);
	free(line);
}

static void test_ok_line_split_across_reads(void **state)
{
	(void)state;
	struct rtshim_wire_msg m;
	uint32_t u;
	fake_connect();
	bus_writes("DATA\r\nOK 0123", 14);
	assert_int_equal(rtshim_wire_reply(&conn, 2, in_ms(50), &m), -ETIMEDOUT);
	assert_false(conn.authenticated);
	bus_writes("456789abcdef0123456789abcdef\r", 29);
	assert_int_equal(rtshim_wire_reply(&conn, 2, in_ms(50), &m), -ETIMEDOUT);
	bus_writes("\n", 1);
	bus_replies(2, 222);
	assert_int_equal(rtshim_wire_reply(&conn, 2, in_ms(1000), &m), 0);
	assert_true(conn.authenticated);
	assert_int_equal(rtshim_wire_body_u32(&m, &u), 0);
	assert_int_equal(u, 222);
	rtshim_wire_close(&conn);
	close(bus_end);
}

/* ---- a bus that reads a few bytes at a time and answers a byte at a time ---- */

struct slow_bus {
	size_t expect;               /* bytes the client writes */
	unsigned char got[1 << 20];
	size_t got_len;
	const unsigned char *answer;
	size_t answer_len;
};

static void *slow_bus_run(void *arg)
{
	struct slow_bus *b = arg;
	while (b->got_len < b->expect) {
		struct pollfd p = { .fd = bus_end, .events = POLLIN };
		poll(&p, 1, 1000);
		size_t want = b->expect - b->got_len < 7 ? b->expect - b->got_len : 7;
		ssize_t n = read(bus_end, b->got + b->got_len, want);
		if (n == 0)
			return NULL;
		if (n > 0)
			b->got_len += (size_t)n;
	}
	for (size_t i = 0; i < b->answer_len;) {
		struct pollfd p = { .fd = bus_end, .events = POLLOUT };
		poll(&p, 1, 1000);
		if (write(bus_end, b->answer + i, 1) == 1)
			i++;
	}
	return NULL;
}

/* The client's send and recv (below) as a slow, interrupted kernel does them, while `trickle`
 * is set: every other call fails with EINTR, the others move at most 3 bytes.  (This program's
 * own definitions win over libc's for the client's objects linked into it.) */
static int trickle, trickle_calls;

ssize_t send(int fd, const void *buf, size_t n, int flags)
{
	if (trickle && fd == conn.fd) {
		if (trickle_calls++ % 2 == 0) {
			errno = EINTR;
			return -1;
		}
		n = n < 3 ? n : 3;
	}
	return syscall(SYS_sendto, fd, buf, n, flags, NULL, 0);
}

static void on_alarm(int sig)
{
	(void)sig;
}

static void test_slow_bus_and_interrupted_waits(void **state)
{
	(void)state;
	static struct slow_bus b;
	static unsigned char sent[RTSHIM_WIRE_OUT_SIZE];
	unsigned char answer[512];
	struct rtshim_wire_msg m;
	uint32_t u;

	fake_connect();
	/* the client's socket full of bytes the bus has not read yet: its writes are partial */
	int small = 4096;
	setsockopt(conn.fd, SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
	unsigned char junk[512] = { 0 };
	size_t queued = 0;
	for (ssize_t n; (n = send(conn.fd, junk, sizeof junk, MSG_DONTWAIT)) > 0;)
		queued += (size_t)n;
	conn.out_len = (size_t)rtshim_wire_auth((char *)conn.out, sizeof conn.out);
	struct rtshim_wire_arg arg = { .type = 's', .s = "org.freedesktop.RealtimeKit1" };
	struct rtshim_wire_call c = { .destination = "org.freedesktop.DBus",
				      .path = "/org/freedesktop/DBus",
				      .interface = "org.freedesktop.DBus",
				      .member = "GetNameOwner", .signature = "s", .args = &arg };
	long serial = rtshim_wire_queue(&conn, &c);
	assert_true(serial > 0);
	memcpy(sent, conn.out, conn.out_len);
	size_t sent_len = conn.out_len;

	/* the answer: DATA, OK and the reply, written one byte at a time */
	size_t n = 0;
	memcpy(answer, "DATA\r\nOK " GUID "\r\n", 6 + 3 + 32 + 2);
	n += 43;
	DBusMessage *r = reply_to((dbus_uint32_t)serial);
	dbus_uint32_t value = 4711;
	dbus_message_append_args(r, DBUS_TYPE_UINT32, &value, DBUS_TYPE_INVALID);
	n += (size_t)marshal(r, answer + n, sizeof answer - n);
	b = (struct slow_bus){ .expect = queued + sent_len, .answer = answer, .answer_len = n };

	/* and a signal every millisecond, which interrupts the waits (EINTR), and a send and a
	 * recv that are partial and interrupted (trickle) */
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	sigaction(SIGALRM, &sa, &old);
	struct itimerval every_ms = { { 0, 1000 }, { 0, 1000 } }, off = { { 0, 0 }, { 0, 0 } };
	pthread_t bus;
	assert_int_equal(pthread_create(&bus, NULL, slow_bus_run, &b), 0);
	setitimer(ITIMER_REAL, &every_ms, NULL);
	trickle = 1;
	int rc = rtshim_wire_reply(&conn, (uint32_t)serial, in_ms(20000), &m);
	trickle = 0;
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	pthread_join(bus, NULL);

	assert_int_equal(rc, 0);
	assert_int_equal(b.got_len, queued + sent_len);
	assert_memory_equal(b.got + queued, sent, sent_len);
	assert_int_equal(rtshim_wire_body_u32(&m, &u), 0);
	assert_int_equal(u, 4711);
	rtshim_wire_close(&conn);
	close(bus_end);
}

/* ---- a bus that never stops sending: the deadline holds all the same ---- */

/* While flood_len is set, the client's recv always finds more of an endless run of copies of
 * flood (never EAGAIN: the socket is never empty).  This program's own definition wins over
 * libc's for the client's objects linked into it. */
static unsigned char flood[256];
static size_t flood_len, flood_at;

ssize_t recv(int fd, void *buf, size_t n, int flags)
{
	if (flood_len && fd == conn.fd) {
		unsigned char *p = buf;
		for (size_t i = 0; i < n; i++) {
			p[i] = flood[flood_at];
			flood_at = (flood_at + 1) % flood_len;
		}
		return (ssize_t)n;
	}
	if (trickle && fd == conn.fd) {
		if (trickle_calls++ % 2 == 0) {
			errno = EINTR;
			return -1;
		}
		n = n < 3 ? n : 3;
	}
	return syscall(SYS_recvfrom, fd, buf, n, flags, NULL, NULL);
}

static void test_deadline_holds_while_messages_keep_arriving(void **state)
{
	(void)state;
	struct rtshim_wire_msg m;
	const char *name = ":1.9";
	DBusMessage *sig = dbus_message_new_signal("/a", "a.b", "Flood");
	dbus_message_append_args(sig, DBUS_TYPE_STRING, &name, DBUS_TYPE_INVALID);
	size_t n = (size_t)marshal(sig, flood, sizeof flood);
	authenticated_fake();
	alarm(60); /* a client that never returns dies here: a failure, not a hung suite */
	int64_t t0 = rtshim_raw_now_ns();
	flood_at = 0;
	flood_len = n;
	int rc = rtshim_wire_reply(&conn, 2, in_ms(200), &m);
	flood_len = 0;
	int64_t took = rtshim_raw_now_ns() - t0;
	alarm(0);
	assert_int_equal(rc, -ETIMEDOUT);
	assert_true(took >= 200000000 && took < 5000000000);
	rtshim_wire_close(&conn);
	close(bus_end);
}

/* Several messages marshalled by libdbus (and freed), one after the other in buf: their total
 * length. */
static size_t marshal_all(unsigned char *buf, size_t size, DBusMessage **ms, size_t n)
{
	size_t len = 0;
	for (size_t i = 0; i < n; i++)
		len += (size_t)marshal(ms[i], buf + len, size - len);
	return len;
}

static DBusMessage *u32_reply_to(dbus_uint32_t serial, dbus_uint32_t value)
{
	DBusMessage *m = reply_to(serial);
	dbus_message_append_args(m, DBUS_TYPE_UINT32, &value, DBUS_TYPE_INVALID);
	return m;
}

/* Replies to calls queued together, arriving in one read and out of their serials' order (the
 * bus's own answer overtakes rtkit's): each is returned in arrival order, a signal between them
 * skipped, and what follows a returned reply is kept for the next read. */
static void test_replies_among_serials_in_arrival_order(void **state)
{
	(void)state;
	struct rtshim_wire_msg m;
	uint32_t u;
	unsigned char buf[1024];
	authenticated_fake();
	DBusMessage *ms[] = { u32_reply_to(4, 444),
			      dbus_message_new_signal("/a", "a.b", "Between"),
			      u32_reply_to(2, 222), u32_reply_to(3, 333), u32_reply_to(9, 999) };
	bus_writes(buf, marshal_all(buf, sizeof buf, ms, sizeof ms / sizeof ms[0]));
	const uint32_t order[] = { 4, 2, 3 };
	for (int i = 0; i < 3; i++) {
		assert_int_equal(rtshim_wire_reply_among(&conn, 2, 4, in_ms(1000), &m), 0);
		assert_int_equal(m.reply_serial, order[i]);
		assert_int_equal(rtshim_wire_body_u32(&m, &u), 0);
		assert_int_equal(u, order[i] * 111);
	}
	/* the reply after them was in the same read: kept, no more bytes needed */
	assert_int_equal(rtshim_wire_reply(&conn, 9, in_ms(1000), &m), 0);
	assert_int_equal(rtshim_wire_body_u32(&m, &u), 0);
	assert_int_equal(u, 999);
	rtshim_wire_close(&conn);
	close(bus_end);
}

/* ---- the pipelined exchange: a fake bus on a listening socket ---- */

static char pipe_dir[] = "/tmp/rtshim-test-wire.XXXXXX";
static char pipe_path[sizeof pipe_dir + 8], pipe_address[sizeof pipe_path + 16];
static int pipe_listener;

struct first_read {
	unsigned char bytes[2048];
	size_t len;
};

/* The fake bus: accepts one connection, reads once (what the client wrote before it had any
 * answer), then answers the authentication, Hello and the call in one write, in order. */
static void *pipelined_bus_run(void *arg)
{
	struct first_read *got = arg;
	int fd = accept(pipe_listener, NULL, NULL);
	if (fd < 0)
		return NULL;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n = poll(&p, 1, 5000) == 1 ? read(fd, got->bytes, sizeof got->bytes) : -1;
	got->len = n > 0 ? (size_t)n : 0;
	unsigned char buf[1024];
	static const char ok[] = "DATA\r\nOK 0123456789abcdef0123456789abcdef\r\n";
	const char *name = ":1.42";
	DBusMessage *hello = reply_to(RTSHIM_WIRE_HELLO_SERIAL);
	dbus_message_append_args(hello, DBUS_TYPE_STRING, &name, DBUS_TYPE_INVALID);
	DBusMessage *acquired = dbus_message_new_signal("/org/freedesktop/DBus",
							"org.freedesktop.DBus", "NameAcquired");
	dbus_message_append_args(acquired, DBUS_TYPE_STRING, &name, DBUS_TYPE_INVALID);
	DBusMessage *ms[] = { hello, acquired, u32_reply_to(RTSHIM_WIRE_HELLO_SERIAL + 1, 77) };
	memcpy(buf, ok, sizeof ok - 1);
	size_t len = sizeof ok - 1;
	len += marshal_all(buf + len, sizeof buf - len, ms, sizeof ms / sizeof ms[0]);
	if (write(fd, buf, len) != (ssize_t)len)
		got->len = 0;
	/* until the client closes */
	while (read(fd, buf, sizeof buf) > 0)
		;
	close(fd);
	return NULL;
}

/* The message at *at of the bytes the bus read (demarshalled by libdbus), *at moved past it. */
static DBusMessage *next_message(const struct first_read *got, size_t *at)
{
	DBusError err;
	dbus_error_init(&err);
	int need = dbus_message_demarshal_bytes_needed((const char *)got->bytes + *at,
						       (int)(got->len - *at));
	if (need <= 0 || (size_t)need > got->len - *at)
		return NULL;
	DBusMessage *m = dbus_message_demarshal((const char *)got->bytes + *at, need, &err);
	*at += (size_t)need;
	return m;
}

/* The authentication, BEGIN, Hello and the call reach the bus in one write, before the bus has
 * answered anything; the answers, arriving together, are read in order. */
static void test_auth_hello_and_call_in_one_write(void **state)
{
	(void)state;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct first_read got = { .len = 0 };
	pthread_t bus;
	assert_non_null(mkdtemp(pipe_dir));
	snprintf(pipe_path, sizeof pipe_path, "%s/bus", pipe_dir);
	snprintf(pipe_address, sizeof pipe_address, "unix:path=%s", pipe_path);
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", pipe_path);
	pipe_listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_int_equal(bind(pipe_listener, (struct sockaddr *)&sa, sizeof sa), 0);
	assert_int_equal(listen(pipe_listener, 1), 0);
	assert_int_equal(pthread_create(&bus, NULL, pipelined_bus_run, &got), 0);

	struct rtshim_wire_conn c;
	struct rtshim_wire_msg m;
	uint32_t u;
	assert_int_equal(rtshim_wire_open(&c, pipe_address, in_ms(5000)), 0);
	struct rtshim_wire_arg args[2] = { { .type = 't', .t = 4242 }, { .type = 'u', .u = 10 } };
	struct rtshim_wire_call call = { .destination = "org.freedesktop.RealtimeKit1",
					 .path = "/org/freedesktop/RealtimeKit1",
					 .interface = "org.freedesktop.RealtimeKit1",
					 .member = "MakeThreadRealtime", .signature = "tu",
					 .args = args };
	long serial = rtshim_wire_queue(&c, &call);
	assert_int_equal(serial, RTSHIM_WIRE_HELLO_SERIAL + 1);
	assert_int_equal(rtshim_wire_reply(&c, (uint32_t)serial, in_ms(5000), &m), 0);
	assert_int_equal(rtshim_wire_body_u32(&m, &u), 0);
	assert_int_equal(u, 77);
	rtshim_wire_close(&c);
	pthread_join(bus, NULL);

	/* what the bus's one read held: the whole authentication, then Hello, then the call */
	char auth[64];
	int n = rtshim_wire_auth(auth, sizeof auth);
	assert_true(got.len > (size_t)n);
	assert_memory_equal(got.bytes, auth, (size_t)n);
	size_t at = (size_t)n;
	DBusMessage *hello = next_message(&got, &at);
	assert_non_null(hello);
	assert_string_equal(dbus_message_get_member(hello), "Hello");
	assert_int_equal(dbus_message_get_serial(hello), RTSHIM_WIRE_HELLO_SERIAL);
	DBusMessage *sent = next_message(&got, &at);
	assert_non_null(sent);
	assert_string_equal(dbus_message_get_member(sent), "MakeThreadRealtime");
	assert_int_equal(dbus_message_get_serial(sent), serial);
	assert_int_equal(at, got.len);
	dbus_message_unref(hello);
	dbus_message_unref(sent);
	close(pipe_listener);
	unlink(pipe_path);
	rmdir(pipe_dir);
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
		cmocka_unit_test(test_unknown_header_fields_skipped),
		cmocka_unit_test(test_malformed_header_fields_refused),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_address),
		cmocka_unit_test(test_auth),
		cmocka_unit_test(test_exchange),
		cmocka_unit_test(test_reply_longer_than_the_buffer),
		cmocka_unit_test(test_header_longer_than_the_buffer),
		cmocka_unit_test(test_refused_authentication),
		cmocka_unit_test(test_authentication_lines),
		cmocka_unit_test(test_ok_line_split_across_reads),
		cmocka_unit_test(test_slow_bus_and_interrupted_waits),
		cmocka_unit_test(test_deadline_holds_while_messages_keep_arriving),
		cmocka_unit_test(test_nobody_listening),
		cmocka_unit_test(test_replies_among_serials_in_arrival_order),
		cmocka_unit_test(test_auth_hello_and_call_in_one_write),
	};
	return cmocka_run_group_tests_name("wire", tests, NULL, NULL);
}
