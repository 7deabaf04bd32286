/* proc.c — what rtrun reads of other processes in /proc (--pid, --status). */
#include <dirent.h>
#include <pwd.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtrun.h"

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

int rtrun_list_threads(pid_t pid, pid_t **out, size_t *count)
{
	char path[64];
	DIR *d;
	struct dirent *e;
	pid_t *v = NULL;
	size_t n = 0, cap = 0;

	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		long long tid;

		if (rtrun_parse_int(e->d_name, 1, INT_MAX, &tid) < 0)
			continue;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			pid_t *nv = realloc(v, ncap * sizeof *nv);

			if (!nv) {
				free(v);
				closedir(d);
				return -ENOMEM;
			}
			v = nv;
			cap = ncap;
		}
		v[n++] = (pid_t)tid;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof *v, cmp_pid);
	*out = v;
	*count = n;
	return 0;
}

void rtrun_comm_of(pid_t pid, pid_t tid, char *buf, size_t size)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	buf[0] = '\0';
	f = fopen(path, "re");
	if (f) {
		if (fgets(buf, (int)size, f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
	if (!buf[0])
		snprintf(buf, size, "?");
}

bool rtrun_thread_exists(pid_t pid, pid_t tid)
{
	char path[64];

	snprintf(path, sizeof path, "/proc/%d/task/%d", (int)pid, (int)tid);
	return access(path, F_OK) == 0;
}

const char *rtrun_user_name(uid_t uid, char *buf, size_t size)
{
	struct passwd *pw = getpwuid(uid);

	snprintf(buf, size, "%s", pw ? pw->pw_name : "?");
	return buf;
}
