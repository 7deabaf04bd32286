/* asked-line.c — see asked-line.h. */
#include "asked-line.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"

const char *rtshim_asked_dir(const char *runtime_dir, char *buf, size_t size)
{
	size_t n = rtshim_format(buf, size, "%s/rtshim", runtime_dir);
	return runtime_dir[0] == '/' && n + 1 < size ? buf : NULL; /* truncated: n == size - 1 */
}

const char *rtshim_asked_path(const char *runtime_dir, pid_t pid, char *buf, size_t size)
{
	size_t n = rtshim_format(buf, size, "%s/rtshim/%d", runtime_dir, (int)pid);
	return runtime_dir[0] == '/' && n + 1 < size ? buf : NULL;
}

const char *rtshim_kept_path(const char *runtime_dir, pid_t pid, char *buf, size_t size)
{
	size_t n = rtshim_format(buf, size, "%s/rtshim/%d.kept", runtime_dir, (int)pid);
	return runtime_dir[0] == '/' && n + 1 < size ? buf : NULL;
}

size_t rtshim_asked_format(const struct rtshim_asked *a, char *buf, size_t size)
{
	return rtshim_format(buf, size, "%llu %d %s %d\n", a->start, (int)a->tid,
			     rtshim_policy_name(a->policy), a->prio);
}

bool rtshim_asked_parse(const char *line, struct rtshim_asked *a)
{
	static const int policies[] = { SCHED_OTHER, SCHED_FIFO, SCHED_RR, SCHED_BATCH, SCHED_IDLE };
	char *end;
	const char *p = line;

	/* numbers as written: digits only (strto* would take blanks and signs) */
	if (*p < '0' || *p > '9')
		return false;
	a->start = strtoull(p, &end, 10);
	if (*end != ' ')
		return false;
	p = end + 1;
	if (*p < '0' || *p > '9')
		return false;
	long tid = strtol(p, &end, 10);
	if (*end != ' ' || tid <= 0)
		return false;
	a->tid = (pid_t)tid;
	p = end + 1;
	const char *sp = strchr(p, ' ');
	if (!sp)
		return false;
	a->policy = -1;
	for (size_t i = 0; i < sizeof policies / sizeof *policies; i++) {
		const char *name = rtshim_policy_name(policies[i]);
		if (strlen(name) == (size_t)(sp - p) && !memcmp(name, p, (size_t)(sp - p)))
			a->policy = policies[i];
	}
	if (a->policy < 0 || sp[1] < '0' || sp[1] > '9')
		return false;
	long prio = strtol(sp + 1, &end, 10);
	if (*end != '\0' || prio > 99)
		return false;
	a->prio = (int)prio;
	return true;
}
