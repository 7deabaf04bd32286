/* util.c — small pure helpers: number and policy parsing, texts. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>

#include "rtrun.h"

int rtrun_parse_int(const char *s, long long min, long long max, long long *out)
{
	unsigned long long v = 0, limit;
	bool negative = false;

	if (!s || !*s)
		return -EINVAL;
	if (*s == '-' && min < 0) {
		negative = true;
		s++;
		if (!*s)
			return -EINVAL;
	}
	/* The magnitude may reach |LLONG_MIN| for a negative number. */
	limit = negative ? (unsigned long long)LLONG_MAX + 1ULL : (unsigned long long)LLONG_MAX;
	for (; *s; s++) {
		unsigned d;

		if (*s < '0' || *s > '9')
			return -EINVAL;
		d = (unsigned)(*s - '0');
		if (v > (limit - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	if (negative) {
		long long n = v == (unsigned long long)LLONG_MAX + 1ULL ? LLONG_MIN : -(long long)v;

		if (n < min || n > max)
			return -ERANGE;
		*out = n;
	} else {
		if (v > (unsigned long long)max || (long long)v < min)
			return -ERANGE;
		*out = (long long)v;
	}
	return 0;
}

int rtrun_parse_policy(const char *s)
{
	if (!s)
		return -EINVAL;
	if (!strcasecmp(s, "rr"))
		return SCHED_RR;
	if (!strcasecmp(s, "fifo"))
		return SCHED_FIFO;
	return -EINVAL;
}

const char *rtrun_policy_text(int policy, char *buf, size_t size)
{
	const char *name;
	int base = policy & ~SCHED_RESET_ON_FORK;

	switch (base) {
	case SCHED_OTHER: name = "SCHED_OTHER"; break;
	case SCHED_FIFO: name = "SCHED_FIFO"; break;
	case SCHED_RR: name = "SCHED_RR"; break;
	case SCHED_BATCH: name = "SCHED_BATCH"; break;
	case SCHED_IDLE: name = "SCHED_IDLE"; break;
	case 6: name = "SCHED_DEADLINE"; break;
	default: name = NULL; break;
	}
	if (name)
		snprintf(buf, size, "%s%s", name,
			 policy & SCHED_RESET_ON_FORK ? "|SCHED_RESET_ON_FORK" : "");
	else
		snprintf(buf, size, "policy %#x", (unsigned)policy);
	return buf;
}

const char *rtrun_rlim_text(unsigned long long v, char *buf, size_t size)
{
	if (v == (unsigned long long)RLIM_INFINITY)
		snprintf(buf, size, "unlimited");
	else
		snprintf(buf, size, "%llu", v);
	return buf;
}
