/* format.c — see format.h. */
#include "format.h"

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <sys/types.h>

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif

struct out {
	char *buf;
	size_t size, len;
};

static void put(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len++] = c;
}

static void put_str(struct out *o, const char *s, size_t max)
{
	if (!s)
		s = "(null)";
	for (size_t i = 0; i < max && s[i]; i++)
		put(o, s[i]);
}

static void put_unsigned(struct out *o, unsigned long long v, unsigned base)
{
	char tmp[24];
	int n = 0;
	do {
		tmp[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	while (n)
		put(o, tmp[--n]);
}

static void put_signed(struct out *o, long long v)
{
	if (v < 0) {
		put(o, '-');
		put_unsigned(o, (unsigned long long)0 - (unsigned long long)v, 10);
	} else {
		put_unsigned(o, (unsigned long long)v, 10);
	}
}

size_t rtshim_vformat(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = { buf, size, 0 };

	for (const char *p = fmt; *p; p++) {
		if (*p != '%') {
			put(&o, *p);
			continue;
		}
		p++;
		size_t prec = SIZE_MAX;
		if (p[0] == '.' && p[1] == '*') {
			int n = va_arg(ap, int);
			prec = n < 0 ? SIZE_MAX : (size_t)n;
			p += 2;
		}
		int lng = 0, sz = 0;
		while (*p == 'l') {
			lng++;
			p++;
		}
		if (*p == 'z') {
			sz = 1;
			p++;
		}
		switch (*p) {
		case 's':
			put_str(&o, va_arg(ap, const char *), prec);
			break;
		case 'c':
			put(&o, (char)va_arg(ap, int));
			break;
		case 'd':
		case 'i':
			if (sz)
				put_signed(&o, va_arg(ap, ssize_t));
			else if (lng >= 2)
				put_signed(&o, va_arg(ap, long long));
			else if (lng == 1)
				put_signed(&o, va_arg(ap, long));
			else
				put_signed(&o, va_arg(ap, int));
			break;
		case 'u':
		case 'x':
			if (sz)
				put_unsigned(&o, va_arg(ap, size_t), *p == 'x' ? 16 : 10);
			else if (lng >= 2)
				put_unsigned(&o, va_arg(ap, unsigned long long), *p == 'x' ? 16 : 10);
			else if (lng == 1)
				put_unsigned(&o, va_arg(ap, unsigned long), *p == 'x' ? 16 : 10);
			else
				put_unsigned(&o, va_arg(ap, unsigned), *p == 'x' ? 16 : 10);
			break;
		case 'p':
			put_str(&o, "0x", 2);
			put_unsigned(&o, (uintptr_t)va_arg(ap, void *), 16);
			break;
		case '%':
			put(&o, '%');
			break;
		case '\0':
			p--;
			break;
		default:
			put(&o, '%');
			put(&o, *p);
			break;
		}
	}
	if (o.size)
		o.buf[o.len] = '\0';
	return o.len;
}

size_t rtshim_format(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	size_t n = rtshim_vformat(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

const char *rtshim_policy_name(int policy)
{
	switch (policy & ~SCHED_RESET_ON_FORK) {
	case SCHED_OTHER:
		return "OTHER";
	case SCHED_FIFO:
		return "FIFO";
	case SCHED_RR:
		return "RR";
	case SCHED_BATCH:
		return "BATCH";
	case SCHED_IDLE:
		return "IDLE";
	case 6:
		return "DEADLINE";
	default:
		return "?";
	}
}

const char *rtshim_errno_name(int err)
{
	if (err < 0)
		err = -err;
	switch (err) {
	case 0: return "OK";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case ESRCH: return "ESRCH";
	case EINTR: return "EINTR";
	case EAGAIN: return "EAGAIN";
	case ENOMEM: return "ENOMEM";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case EINVAL: return "EINVAL";
	case ENOSYS: return "ENOSYS";
	case ENOTSUP: return "ENOTSUP";
	case ENOTCONN: return "ENOTCONN";
	case ETIMEDOUT: return "ETIMEDOUT";
	case EPROTO: return "EPROTO";
	case EDEADLK: return "EDEADLK";
	default: return NULL;
	}
}
