/* wire-message.c — see wire-message.h.  The D-Bus specification's marshalling: every value
 * aligned to its size from the start of the message (strings and object paths: a uint32
 * length, the bytes, a NUL; signatures: a byte length, the bytes, a NUL), the header's fields an
 * array of (byte code, variant) structs, the body starting at the next multiple of 8. */
#include "wire-message.h"

#include <errno.h>
#include <string.h>

/* The protocol's limit on a message (2^27 bytes), and on its header fields array (2^26). */
#define MAX_MESSAGE (1L << 27)
#define MAX_ARRAY (1L << 26)

enum field_code {
	FIELD_PATH = 1,
	FIELD_INTERFACE = 2,
	FIELD_MEMBER = 3,
	FIELD_ERROR_NAME = 4,
	FIELD_REPLY_SERIAL = 5,
	FIELD_DESTINATION = 6,
	FIELD_SENDER = 7,
	FIELD_SIGNATURE = 8,
	FIELD_UNIX_FDS = 9,
};

/* ---- writing ---------------------------------------------------------------------------- */

struct out {
	unsigned char *buf;
	size_t size, len;
	bool over;
};

static void put(struct out *o, const void *p, size_t n)
{
	if (o->over || n > o->size - o->len) {
		o->over = true;
		return;
	}
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

static void pad_to(struct out *o, size_t a)
{
	static const unsigned char zeros[8];
	put(o, zeros, (a - o->len % a) % a);
}

static void le32(unsigned char *b, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b[i] = (unsigned char)(v >> (8 * i));
}

static void put_u8(struct out *o, uint8_t v)
{
	put(o, &v, 1);
}

static void put_u32(struct out *o, uint32_t v)
{
	unsigned char b[4];
	pad_to(o, 4);
	le32(b, v);
	put(o, b, 4);
}

static void put_u64(struct out *o, uint64_t v)
{
	unsigned char b[8];
	pad_to(o, 8);
	le32(b, (uint32_t)v);
	le32(b + 4, (uint32_t)(v >> 32));
	put(o, b, 8);
}

static void put_string(struct out *o, const char *s)
{
	size_t n = strlen(s);
	put_u32(o, (uint32_t)n);
	put(o, s, n + 1);
}

static void put_signature(struct out *o, const char *s)
{
	size_t n = strlen(s);
	if (n > 255) {
		o->over = true;
		return;
	}
	put_u8(o, (uint8_t)n);
	put(o, s, n + 1);
}

static void put_field(struct out *o, uint8_t code, char type, const char *value)
{
	const char sig[2] = { type, '\0' };
	pad_to(o, 8);
	put_u8(o, code);
	put_signature(o, sig);
	if (type == 'g')
		put_signature(o, value);
	else
		put_string(o, value);
}

static int put_arg(struct out *o, const struct rtshim_wire_arg *a)
{
	switch (a->type) {
	case 's':
	case 'o':
		put_string(o, a->s);
		return 0;
	case 'u':
		put_u32(o, a->u);
		return 0;
	case 'i':
		put_u32(o, (uint32_t)a->i);
		return 0;
	case 't':
		put_u64(o, a->t);
		return 0;
	case 'x':
		put_u64(o, (uint64_t)a->x);
		return 0;
	default:
		return -EINVAL;
	}
}

int rtshim_wire_write_call(unsigned char *buf, size_t size, const struct rtshim_wire_call *c)
{
	struct out o = { .buf = buf, .size = size };
	const char *sig = c->signature ? c->signature : "";
	const unsigned char fixed[4] = { 'l', RTSHIM_WIRE_METHOD_CALL, 0, 1 };

	put(&o, fixed, 4);
	put_u32(&o, 0); /* body length, written below */
	put_u32(&o, c->serial);
	put_u32(&o, 0); /* header fields' length, written below */
	put_field(&o, FIELD_PATH, 'o', c->path);
	if (c->interface)
		put_field(&o, FIELD_INTERFACE, 's', c->interface);
	put_field(&o, FIELD_MEMBER, 's', c->member);
	if (c->destination)
		put_field(&o, FIELD_DESTINATION, 's', c->destination);
	if (*sig)
		put_field(&o, FIELD_SIGNATURE, 'g', sig);
	size_t fields_end = o.len;
	pad_to(&o, 8);
	size_t body = o.len;
	for (size_t i = 0; sig[i]; i++)
		if (put_arg(&o, &c->args[i]) < 0)
			return -EINVAL;
	if (o.over || o.len > (size_t)MAX_MESSAGE)
		return -ENOSPC;
	le32(buf + 4, (uint32_t)(o.len - body));
	le32(buf + 12, (uint32_t)(fields_end - RTSHIM_WIRE_FIXED_HEADER));
	return (int)o.len;
}

/* ---- reading ---------------------------------------------------------------------------- */

/* A cursor over [buf, buf + len), positions aligned from buf (the message's start, or its
 * body's, which is a multiple of 8 from it). */
struct in {
	const unsigned char *buf;
	size_t len, pos;
	bool be;
};

static uint32_t load32(const unsigned char *b, bool be)
{
	return be ? (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3]
		  : (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
}

static int skip_to(struct in *r, size_t a)
{
	size_t n = (a - r->pos % a) % a;
	if (n > r->len - r->pos)
		return -EPROTO;
	r->pos += n;
	return 0;
}

static int get_u8(struct in *r, uint8_t *v)
{
	if (r->pos >= r->len)
		return -EPROTO;
	*v = r->buf[r->pos++];
	return 0;
}

static int get_u32(struct in *r, uint32_t *v)
{
	if (skip_to(r, 4) < 0 || r->len - r->pos < 4)
		return -EPROTO;
	*v = load32(r->buf + r->pos, r->be);
	r->pos += 4;
	return 0;
}

static int get_u64(struct in *r, uint64_t *v)
{
	if (skip_to(r, 8) < 0 || r->len - r->pos < 8)
		return -EPROTO;
	uint32_t a = load32(r->buf + r->pos, r->be), b = load32(r->buf + r->pos + 4, r->be);
	*v = r->be ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
	r->pos += 8;
	return 0;
}

/* n bytes and a NUL at the cursor, no NUL among them */
static int get_chars(struct in *r, size_t n, const char **s)
{
	if (n >= r->len - r->pos || r->buf[r->pos + n] != '\0' || memchr(r->buf + r->pos, 0, n))
		return -EPROTO;
	*s = (const char *)r->buf + r->pos;
	r->pos += n + 1;
	return 0;
}

static int get_string(struct in *r, const char **s)
{
	uint32_t n;
	if (get_u32(r, &n) < 0 || r->pos >= r->len)
		return -EPROTO;
	return get_chars(r, n, s);
}

static int get_signature(struct in *r, const char **s)
{
	uint8_t n;
	return get_u8(r, &n) < 0 ? -EPROTO : get_chars(r, n, s);
}

/* A value of basic type `type` that this reader does not use: skipped. */
static int skip_basic(struct in *r, char type)
{
	uint8_t b;
	uint32_t u;
	uint64_t t;
	const char *s;

	switch (type) {
	case 'y':
		return get_u8(r, &b);
	case 'n':
	case 'q':
		if (skip_to(r, 2) < 0 || r->len - r->pos < 2)
			return -EPROTO;
		r->pos += 2;
		return 0;
	case 'b':
	case 'i':
	case 'u':
	case 'h':
		return get_u32(r, &u);
	case 'x':
	case 't':
	case 'd':
		return get_u64(r, &t);
	case 's':
	case 'o':
		return get_string(r, &s);
	case 'g':
		return get_signature(r, &s);
	default:
		return -EPROTO;
	}
}

static bool is_basic(char type)
{
	return type && strchr("ynqbiuhxtdsog", type);
}

/* The alignment of a value of the type that starts with `type` (a valid signature). */
static size_t alignment(char type)
{
	switch (type) {
	case 'y':
	case 'g':
	case 'v':
		return 1;
	case 'n':
	case 'q':
		return 2;
	case 'x':
	case 't':
	case 'd':
	case '(':
	case '{':
		return 8;
	default:
		return 4;
	}
}

/* The specification's limit on container nesting (32 arrays and 32 structs; variants count
 * toward it too: here one limit for all three). */
#define MAX_DEPTH 64

/* The end of the single complete type at sig (in_array: a dict entry may start here), or NULL
 * when sig does not start with one. */
static const char *type_end(const char *sig, bool in_array, int depth)
{
	if (depth > MAX_DEPTH)
		return NULL;
	if (is_basic(*sig) || *sig == 'v')
		return sig + 1;
	if (*sig == 'a')
		return type_end(sig + 1, true, depth + 1);
	if (*sig == '(') {
		const char *p = sig + 1;
		if (*p == ')')
			return NULL; /* an empty struct */
		while (p && *p != ')')
			p = *p ? type_end(p, false, depth + 1) : NULL;
		return p ? p + 1 : NULL;
	}
	if (*sig == '{' && in_array && is_basic(sig[1])) {
		const char *p = type_end(sig + 2, false, depth + 1);
		return p && *p == '}' ? p + 1 : NULL;
	}
	return NULL;
}

static int skip_value(struct in *r, const char *sig, int depth);

/* A variant: its signature (one complete type) and its value. */
static int skip_variant(struct in *r, int depth)
{
	const char *sig;
	if (depth > MAX_DEPTH || get_signature(r, &sig) < 0)
		return -EPROTO;
	const char *end = type_end(sig, false, depth);
	if (!end || *end)
		return -EPROTO;
	return skip_value(r, sig, depth);
}

/* An array of elements of type elem: its length, the padding to its elements' alignment (there
 * even when it has none), then the elements, which must fill that length exactly. */
static int skip_array(struct in *r, const char *elem, int depth)
{
	uint32_t n;
	if (get_u32(r, &n) < 0 || n > (uint32_t)MAX_ARRAY || skip_to(r, alignment(*elem)) < 0 ||
	    n > r->len - r->pos)
		return -EPROTO;
	struct in items = *r;
	items.len = r->pos + n;
	while (items.pos < items.len)
		if (skip_value(&items, elem, depth) < 0)
			return -EPROTO;
	r->pos = items.len;
	return 0;
}

/* A value of the single complete type at sig (already checked by type_end), skipped. */
static int skip_value(struct in *r, const char *sig, int depth)
{
	if (depth > MAX_DEPTH)
		return -EPROTO;
	switch (*sig) {
	case 'v':
		return skip_variant(r, depth + 1);
	case 'a':
		return skip_array(r, sig + 1, depth + 1);
	case '(':
	case '{':
		if (skip_to(r, 8) < 0)
			return -EPROTO;
		for (const char *p = sig + 1; *p != ')' && *p != '}';) {
			if (skip_value(r, p, depth + 1) < 0 || !(p = type_end(p, false, depth + 1)))
				return -EPROTO;
		}
		return 0;
	default:
		return skip_basic(r, *sig);
	}
}

/* The value of header field `code`, whose variant has signature `type`: read when the reader
 * uses it, checked against the specification's type when the code is known, skipped otherwise
 * (the specification: unknown fields are ignored, whatever their type). */
static int read_field(struct in *r, uint8_t code, const char *type, struct rtshim_wire_msg *m)
{
	static const char types[] = { [FIELD_PATH] = 'o', [FIELD_INTERFACE] = 's',
		[FIELD_MEMBER] = 's', [FIELD_ERROR_NAME] = 's', [FIELD_REPLY_SERIAL] = 'u',
		[FIELD_DESTINATION] = 's', [FIELD_SENDER] = 's', [FIELD_SIGNATURE] = 'g',
		[FIELD_UNIX_FDS] = 'u' };

	if (code == 0)
		return -EPROTO;
	const char *end = type_end(type, false, 0);
	if (!end || *end)
		return -EPROTO;
	if (code >= sizeof types)
		return skip_value(r, type, 0);
	if (type[0] != types[code] || type[1])
		return -EPROTO;
	switch (code) {
	case FIELD_ERROR_NAME:
		return get_string(r, &m->error_name);
	case FIELD_REPLY_SERIAL:
		return get_u32(r, &m->reply_serial);
	case FIELD_SIGNATURE:
		return get_signature(r, &m->signature);
	default:
		return skip_basic(r, type[0]);
	}
}

long rtshim_wire_message_length(const unsigned char *fixed)
{
	bool be = fixed[0] == 'B';
	if ((fixed[0] != 'l' && !be) || fixed[3] != 1)
		return -EPROTO;
	uint32_t body = load32(fixed + 4, be), fields = load32(fixed + 12, be);
	if (fields > (uint32_t)MAX_ARRAY || body > (uint32_t)MAX_MESSAGE)
		return -EPROTO;
	long header = (RTSHIM_WIRE_FIXED_HEADER + (long)fields + 7) / 8 * 8;
	if (header + (long)body > MAX_MESSAGE)
		return -EPROTO;
	return header + (long)body;
}

long rtshim_wire_header_length(const unsigned char *fixed)
{
	if (rtshim_wire_message_length(fixed) < 0)
		return -EPROTO;
	return RTSHIM_WIRE_FIXED_HEADER + (long)load32(fixed + 12, fixed[0] == 'B');
}

int rtshim_wire_read_header(const unsigned char *buf, size_t avail, struct rtshim_wire_msg *m)
{
	if (avail < RTSHIM_WIRE_FIXED_HEADER)
		return -EPROTO;
	long header = rtshim_wire_header_length(buf);
	if (header < 0 || (size_t)header > avail || buf[1] == 0)
		return -EPROTO;
	*m = (struct rtshim_wire_msg){ .type = buf[1], .big_endian = buf[0] == 'B', .signature = "",
				       .body_cut = true };
	m->serial = load32(buf + 8, m->big_endian);
	if (m->serial == 0)
		return -EPROTO;

	struct in r = { .buf = buf, .len = (size_t)header, .pos = RTSHIM_WIRE_FIXED_HEADER,
			.be = m->big_endian };
	while (r.pos < r.len) {
		uint8_t code;
		const char *type;
		if (skip_to(&r, 8) < 0 || get_u8(&r, &code) < 0 || get_signature(&r, &type) < 0 ||
		    read_field(&r, code, type, m) < 0)
			return -EPROTO;
	}
	if ((m->type == RTSHIM_WIRE_METHOD_RETURN || m->type == RTSHIM_WIRE_ERROR) &&
	    m->reply_serial == 0)
		return -EPROTO;
	if (m->type == RTSHIM_WIRE_ERROR && !m->error_name)
		return -EPROTO;
	return 0;
}

int rtshim_wire_read(const unsigned char *buf, size_t length, struct rtshim_wire_msg *m)
{
	if (length < RTSHIM_WIRE_FIXED_HEADER)
		return -EPROTO;
	long total = rtshim_wire_message_length(buf);
	if (total < 0 || (size_t)total != length || rtshim_wire_read_header(buf, length, m) < 0)
		return -EPROTO;
	size_t body = (size_t)(total - (long)load32(buf + 4, m->big_endian));
	m->body = buf + body;
	m->body_length = (uint32_t)(length - body);
	m->body_cut = false;
	return 0;
}

static struct in body_of(const struct rtshim_wire_msg *m)
{
	return (struct in){ .buf = m->body, .len = m->body_length, .be = m->big_endian };
}

int rtshim_wire_body_string(const struct rtshim_wire_msg *m, const char **out)
{
	struct in r = body_of(m);
	if (strcmp(m->signature, "s") != 0 && strcmp(m->signature, "o") != 0)
		return -EPROTO;
	return get_string(&r, out);
}

int rtshim_wire_body_u32(const struct rtshim_wire_msg *m, uint32_t *out)
{
	struct in r = body_of(m);
	if (strcmp(m->signature, "u") != 0)
		return -EPROTO;
	return get_u32(&r, out);
}

int rtshim_wire_body_variant_int(const struct rtshim_wire_msg *m, int64_t *out)
{
	struct in r = body_of(m);
	const char *type;
	uint32_t i;
	uint64_t x;

	if (strcmp(m->signature, "v") != 0 || get_signature(&r, &type) < 0)
		return -EPROTO;
	if (strcmp(type, "i") == 0 && get_u32(&r, &i) == 0) {
		*out = (int32_t)i;
		return 0;
	}
	if (strcmp(type, "x") == 0 && get_u64(&r, &x) == 0) {
		*out = (int64_t)x;
		return 0;
	}
	return -EPROTO;
}

const char *rtshim_wire_error_message(const struct rtshim_wire_msg *m)
{
	struct in r = body_of(m);
	const char *s;
	return m->signature[0] == 's' && get_string(&r, &s) == 0 ? s : NULL;
}
