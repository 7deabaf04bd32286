/* wire-message.h — D-Bus messages in fixed buffers: a method call written into a caller's buffer,
 * a received message read in place.  Pure code (no I/O, no allocation), bounds-checked: a
 * message that does not follow the D-Bus wire format is -EPROTO, never a read past its end.
 * Only what the client sends and reads: method calls with arguments of types s, o, u, i, t, x;
 * replies whose bodies are empty, s, u, or a variant holding i or x; error replies.  Header
 * fields it does not use are skipped whatever their type (containers included). */
#ifndef RTSHIM_WIRE_MESSAGE_H
#define RTSHIM_WIRE_MESSAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum rtshim_wire_type {
	RTSHIM_WIRE_METHOD_CALL = 1,
	RTSHIM_WIRE_METHOD_RETURN = 2,
	RTSHIM_WIRE_ERROR = 3,
	RTSHIM_WIRE_SIGNAL = 4,
};

/* One argument of a call: `type` is its signature character. */
struct rtshim_wire_arg {
	char type;
	union {
		uint32_t u;
		int32_t i;
		uint64_t t;
		int64_t x;
		const char *s;
	};
};

struct rtshim_wire_call {
	uint32_t serial;
	const char *destination, *path, *interface, *member;
	const char *signature;              /* one character per argument ("" or NULL: none) */
	const struct rtshim_wire_arg *args;
};

/* The call written into buf (little-endian): its length, or -ENOSPC when it does not fit,
 * -EINVAL for an argument type this writer does not know. */
int rtshim_wire_write_call(unsigned char *buf, size_t size, const struct rtshim_wire_call *c);

/* The fixed part of every message. */
#define RTSHIM_WIRE_FIXED_HEADER 16

/* The whole length of the message that starts with these RTSHIM_WIRE_FIXED_HEADER bytes (>0),
 * or -EPROTO (not a D-Bus message, or longer than the protocol's limit). */
long rtshim_wire_message_length(const unsigned char *fixed);

/* How many bytes the fixed header and the header fields take (what rtshim_wire_read_header
 * reads), from the first RTSHIM_WIRE_FIXED_HEADER bytes, or -EPROTO as above. */
long rtshim_wire_header_length(const unsigned char *fixed);

/* A received message, read in place: its strings point into the buffer it was read from. */
struct rtshim_wire_msg {
	uint8_t type;
	bool big_endian;
	uint32_t serial;
	uint32_t reply_serial;      /* 0: none */
	const char *error_name;     /* NULL: none */
	const char *signature;      /* "" when the message has none */
	const unsigned char *body;
	uint32_t body_length;
	bool body_cut;              /* only the header was read: no body (NULL, length 0) */
};

/* The message of exactly `length` bytes at buf (length from rtshim_wire_message_length): 0 and
 * *m, or -EPROTO. */
int rtshim_wire_read(const unsigned char *buf, size_t length, struct rtshim_wire_msg *m);

/* The header of the message that starts at buf, of which `avail` bytes (at least its
 * rtshim_wire_header_length) are there: 0 and *m with body_cut set (the body's readers then
 * find nothing, the error message is NULL), or -EPROTO. */
int rtshim_wire_read_header(const unsigned char *buf, size_t avail, struct rtshim_wire_msg *m);

/* Readers of a reply's body: 0 or -EPROTO (another signature, or a malformed body). */
int rtshim_wire_body_string(const struct rtshim_wire_msg *m, const char **out); /* s (or o) */
int rtshim_wire_body_u32(const struct rtshim_wire_msg *m, uint32_t *out);       /* u */
int rtshim_wire_body_variant_int(const struct rtshim_wire_msg *m, int64_t *out); /* v: i or x */
/* An error's message (its first argument, when a string), else NULL. */
const char *rtshim_wire_error_message(const struct rtshim_wire_msg *m);

#endif
