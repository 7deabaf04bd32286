/* wire-address.c — see wire-address.h. */
#include "wire-address.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The value [v, end) unescaped into dst (at most size bytes): its length, or -EINVAL. */
static int unescape(const char *v, const char *end, char *dst, size_t size)
{
	size_t n = 0;
	while (v < end) {
		int c = (unsigned char)*v++;
		if (c == '%') {
			int hi = end - v >= 2 ? hex_digit(v[0]) : -1;
			int lo = hi >= 0 ? hex_digit(v[1]) : -1;
			if (lo < 0)
				return -EINVAL;
			c = hi * 16 + lo;
			v += 2;
		}
		if (n >= size)
			return -EINVAL;
		dst[n++] = (char)c;
	}
	return (int)n;
}

/* One alternative [a, end): "unix:" and a path or an abstract name. */
static int parse_one(const char *a, const char *end, struct rtshim_wire_sockaddr *out)
{
	static const char unix_prefix[] = "unix:";
	size_t plen = sizeof unix_prefix - 1;
	bool found = false;

	if ((size_t)(end - a) < plen || memcmp(a, unix_prefix, plen) != 0)
		return -EINVAL;
	memset(out, 0, sizeof *out);
	out->un.sun_family = AF_UNIX;
	for (const char *k = a + plen; k < end;) {
		const char *comma = memchr(k, ',', (size_t)(end - k));
		const char *kv_end = comma ? comma : end;
		const char *eq = memchr(k, '=', (size_t)(kv_end - k));
		if (!eq)
			return -EINVAL;
		size_t klen = (size_t)(eq - k);
		bool path = klen == 4 && memcmp(k, "path", 4) == 0;
		bool abstract = klen == 8 && memcmp(k, "abstract", 8) == 0;
		if (path || abstract) {
			/* path: NUL-terminated; abstract: a NUL first, then the name */
			char *dst = out->un.sun_path + (abstract ? 1 : 0);
			size_t room = sizeof out->un.sun_path - 1;
			int n = found ? -EINVAL : unescape(eq + 1, kv_end, dst, room);
			if (n <= 0 || memchr(dst, '\0', (size_t)n))
				return -EINVAL;
			out->length = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + (size_t)n +
						  1);
			found = true;
		}
		k = comma ? comma + 1 : end;
	}
	return found ? 0 : -EINVAL;
}

int rtshim_wire_address(const char *address, int index, struct rtshim_wire_sockaddr *out)
{
	const char *a = address;
	for (int i = 0;; i++) {
		const char *semi = strchr(a, ';');
		const char *end = semi ? semi : a + strlen(a);
		if (i == index)
			return a == end && !semi ? -ENOENT : parse_one(a, end, out);
		if (!semi)
			return -ENOENT;
		a = semi + 1;
	}
}
