/* procfs.c — see procfs.h. */
#include "procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format.h"

int rtshim_proc_is_own_thread(pid_t tid)
{
	char path[64];
	struct stat st;
	if (tid <= 0)
		return 0;
	rtshim_format(path, sizeof path, "/proc/self/task/%d", (int)tid);
	return stat(path, &st) == 0;
}

static long parse_field(const char *text, const char *key)
{
	const char *p = strstr(text, key);
	if (!p)
		return -1;
	p += strlen(key);
	while (*p == ' ' || *p == '\t')
		p++;
	long v = 0;
	if (*p < '0' || *p > '9')
		return -1;
	while (*p >= '0' && *p <= '9' && v < 100000000)
		v = v * 10 + (*p++ - '0');
	return v;
}

ssize_t rtshim_proc_read(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, buf, size - 1);
	int e = errno;
	close(fd);
	if (n <= 0)
		return n < 0 ? -e : -EIO;
	buf[n] = '\0';
	return n;
}

/* A process id in /proc/PID/status's FIELD ("\nTgid:"), at least MIN: 0 or a negative errno. */
static int status_pid_field(pid_t pid, const char *field, long min, pid_t *out)
{
	char path[64], buf[1024];
	if (pid <= 0)
		return -ESRCH;
	rtshim_format(path, sizeof path, "/proc/%d/status", (int)pid);
	ssize_t n = rtshim_proc_read(path, buf, sizeof buf);
	if (n < 0)
		return (int)n;
	long v = parse_field(buf, field);
	if (v < min)
		return -EIO;
	*out = (pid_t)v;
	return 0;
}

int rtshim_proc_stat_field(pid_t pid, int field, unsigned long long *value)
{
	char path[64], buf[1024];
	if (pid)
		rtshim_format(path, sizeof path, "/proc/%d/stat", (int)pid);
	else
		rtshim_format(path, sizeof path, "/proc/self/stat");
	ssize_t n = rtshim_proc_read(path, buf, sizeof buf);
	if (n < 0)
		return (int)n;
	/* after the name (which may hold anything), field 3 on */
	const char *p = strrchr(buf, ')');
	for (int f = 2; p && f < field; f++)
		p = strchr(p + 1, ' ');
	if (!p || p[1] < '0' || p[1] > '9')
		return -EIO;
	unsigned long long v = 0;
	for (p++; *p >= '0' && *p <= '9'; p++)
		v = v * 10 + (unsigned long long)(*p - '0');
	*value = v;
	return 0;
}

int rtshim_proc_start_time(pid_t pid, unsigned long long *ticks)
{
	return rtshim_proc_stat_field(pid, 22, ticks);
}

int rtshim_proc_tgid(pid_t tid, pid_t *tgid)
{
	return status_pid_field(tid, "\nTgid:", 1, tgid);
}

int rtshim_proc_ppid(pid_t pid, pid_t *ppid)
{
	return status_pid_field(pid, "\nPPid:", 0, ppid); /* 0: a process the kernel started */
}

int rtshim_proc_owner(pid_t pid, uid_t *uid)
{
	char path[64];
	struct stat st;
	if (pid <= 0)
		return -ESRCH;
	rtshim_format(path, sizeof path, "/proc/%d", (int)pid);
	if (stat(path, &st) < 0)
		return -errno;
	*uid = st.st_uid;
	return 0;
}

static uint64_t hex(const char **pp)
{
	uint64_t v = 0;
	const char *p = *pp;
	for (;; p++) {
		char c = *p;
		if (c >= '0' && c <= '9')
			v = v * 16 + (uint64_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v * 16 + (uint64_t)(c - 'a' + 10);
		else
			break;
	}
	*pp = p;
	return v;
}

/* Check one maps line "lo-hi perms off dev inode   /path": 1 (the file's path in out), 0 (not
 * this line), -errno (anonymous memory, or a path too long).  *lo is the line's start and
 * *at_zero whether it maps the file from offset 0. */
static int match_line(const char *line, uintptr_t a, char *out, size_t size, uint64_t *lo,
		      bool *at_zero)
{
	const char *p = line;
	*lo = hex(&p);
	*at_zero = false;
	if (*p++ != '-')
		return 0;
	uint64_t hi = hex(&p);
	while (*p == ' ')
		p++;
	while (*p && *p != ' ')
		p++; /* perms */
	while (*p == ' ')
		p++;
	const char *off = p;
	*at_zero = hex(&p) == 0 && p > off;
	if (a < *lo || a >= hi)
		return 0;
	const char *slash = strchr(p, '/');
	if (!slash)
		return -ENOENT;
	size_t len = strlen(slash);
	if (len >= size)
		return -ENAMETOOLONG;
	memcpy(out, slash, len + 1);
	return 1;
}

int rtshim_proc_mapped_path(const void *addr, char *buf, size_t size, uintptr_t *base)
{
	char chunk[4096 + 1], line[4096 + 512];
	size_t used = 0;
	int r = -ENOENT;
	uint64_t lo, file_start = 0;
	bool at_zero;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof chunk - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (ssize_t i = 0; i < n; i++) {
			if (chunk[i] != '\n') {
				if (used < sizeof line - 1)
					line[used++] = chunk[i];
				continue;
			}
			line[used] = '\0';
			used = 0;
			int m = match_line(line, (uintptr_t)addr, buf, size, &lo, &at_zero);
			/* a file's segments are mapped one after the other, the first from offset 0 */
			if (at_zero)
				file_start = lo;
			if (m) {
				r = m > 0 ? 0 : m;
				if (base)
					*base = (uintptr_t)file_start;
				goto out;
			}
		}
	}
out:
	close(fd);
	return r;
}
