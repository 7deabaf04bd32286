/* fuzz-wire — libFuzzer target for the request client's reply parser
 * (daemon-client/wire-message.c), which reads what arrives on the bus socket in every program
 * the shim is preloaded into.
 *
 * Input: a byte stream as the bus would send it after the authentication; it is cut into
 * messages the way wire-bus.c does (rtshim_wire_message_length on the first 16 bytes), each
 * copied into a buffer of exactly its length (so ASan sees any read past it) and read, then
 * every body reader is tried on it; its header is read alone too, as for a message too long to
 * read.  Checked besides the sanitizers: a message that reads has its body inside the buffer,
 * its strings NUL-terminated inside it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire-message.h"

#define CHECK(cond)                                                                  \
	do {                                                                         \
		if (!(cond)) {                                                       \
			fprintf(stderr, "fuzz-wire: %s:%d: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                     \
		}                                                                    \
	} while (0)

static int inside(const unsigned char *buf, size_t len, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	return p >= buf && p < buf + len && memchr(p, 0, (size_t)(buf + len - p));
}

static void read_one(const unsigned char *msg, size_t len)
{
	struct rtshim_wire_msg m;
	const char *s;
	uint32_t u;
	int64_t v;

	if (rtshim_wire_read_header(msg, len, &m) == 0) { /* as for a message longer than c->in */
		CHECK(m.body_cut && !m.body && m.body_length == 0);
		CHECK(m.signature[0] == '\0' || inside(msg, len, m.signature));
		CHECK(!m.error_name || inside(msg, len, m.error_name));
		CHECK(!rtshim_wire_error_message(&m));
	}
	if (rtshim_wire_read(msg, len, &m) < 0)
		return;
	CHECK(m.body >= msg && m.body + m.body_length == msg + len);
	CHECK(m.signature[0] == '\0' || inside(msg, len, m.signature));
	CHECK(!m.error_name || inside(msg, len, m.error_name));
	if (rtshim_wire_body_string(&m, &s) == 0)
		CHECK(inside(msg, len, s));
	(void)rtshim_wire_body_u32(&m, &u);
	(void)rtshim_wire_body_variant_int(&m, &v);
	s = rtshim_wire_error_message(&m);
	CHECK(!s || inside(msg, len, s));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	while (size >= RTSHIM_WIRE_FIXED_HEADER) {
		long total = rtshim_wire_message_length(data);
		if (total < 0 || (size_t)total > size) {
			/* what the parser refuses or a truncated stream: read the whole rest anyway */
			unsigned char *copy = malloc(size);
			memcpy(copy, data, size);
			read_one(copy, size);
			free(copy);
			return 0;
		}
		unsigned char *msg = malloc((size_t)total);
		memcpy(msg, data, (size_t)total);
		read_one(msg, (size_t)total);
		free(msg);
		data += total;
		size -= (size_t)total;
	}
	return 0;
}
