/* rtkit-usage.c — see rtkit-usage.h. */
#include "rtkit-usage.h"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "format.h"
#include "procfs.h"
#include "raw-syscall.h"

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif

/* A decimal name ("1234"), else 0. */
static pid_t pid_of_name(const char *s)
{
	long v = 0;
	if (!*s)
		return 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > 99999999)
			return 0;
		v = v * 10 + (*s - '0');
	}
	return (pid_t)v;
}

/* Call fn for each numeric entry of the directory at path; stops when fn returns false. */
static void each_pid(const char *path, bool (*fn)(void *ctx, pid_t pid), void *ctx)
{
	char buf[2048];
	int fd = (int)rtshim_raw_syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long n;
	if (fd < 0)
		return;
	while ((n = rtshim_raw_syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
		for (long off = 0; off < n;) {
			struct dirent64 *d = (struct dirent64 *)(buf + off);
			pid_t pid = pid_of_name(d->d_name);
			off += d->d_reclen;
			if (pid > 0 && !fn(ctx, pid)) {
				rtshim_raw_syscall(SYS_close, fd);
				return;
			}
		}
	}
	rtshim_raw_syscall(SYS_close, fd);
}

/* A thread that holds one of rtkit's slots: realtime or nice < 0, with SCHED_RESET_ON_FORK
 * (what rtkit's grants leave; rtkit forgets a thread once it is neither). */
static bool holds_slot(pid_t tid)
{
	long pol = rtshim_raw_syscall(SYS_sched_getscheduler, tid);
	if (pol < 0 || !(pol & SCHED_RESET_ON_FORK))
		return false;
	pol &= ~SCHED_RESET_ON_FORK;
	if (pol == SCHED_FIFO || pol == SCHED_RR)
		return true;
	/* the raw getpriority returns 20 - nice */
	long k = rtshim_raw_syscall(SYS_getpriority, PRIO_PROCESS, tid);
	return k > 20;
}

struct scan {
	struct rtkit_usage *u;
	uid_t uid;
	pid_t self;
	int threads; /* of the process being read */
};

static bool count_thread(void *ctx, pid_t tid)
{
	struct scan *s = ctx;
	if (holds_slot(tid))
		s->threads++;
	return true;
}

static bool count_process(void *ctx, pid_t pid)
{
	struct scan *s = ctx;
	char path[64];
	struct stat st;
	rtshim_format(path, sizeof path, "/proc/%d", (int)pid);
	if (stat(path, &st) < 0 || st.st_uid != s->uid)
		return true;
	rtshim_format(path, sizeof path, "/proc/%d/task", (int)pid);
	s->threads = 0;
	each_pid(path, count_thread, s);
	if (!s->threads)
		return true;
	struct rtkit_usage *u = s->u;
	u->processes++;
	u->threads += s->threads;
	if (pid == s->self)
		u->self_holds = true;
	if (u->nholders < RTKIT_USAGE_HOLDERS) {
		char comm[64];
		rtshim_format(path, sizeof path, "/proc/%d/comm", (int)pid);
		if (rtshim_proc_read(path, comm, sizeof comm) < 0)
			memcpy(comm, "?", 2);
		comm[strcspn(comm, "\n")] = '\0';
		u->holders[u->nholders].pid = pid;
		rtshim_format(u->holders[u->nholders].comm, sizeof u->holders[0].comm, "%s", comm);
		u->nholders++;
	}
	return true;
}

/* "--NAME=N" or "--NAME N" in the daemon's NUL-separated command line. */
static void option(const char *args, size_t len, const char *name, int *out, bool *seen)
{
	size_t nlen = strlen(name);
	for (const char *a = args; a < args + len; a += strlen(a) + 1) {
		const char *v = NULL;
		if (!strncmp(a, name, nlen) && a[nlen] == '=')
			v = a + nlen + 1;
		else if (!strcmp(a, name) && a + strlen(a) + 1 < args + len)
			v = a + strlen(a) + 1;
		pid_t n = v ? pid_of_name(v) : 0;
		if (n > 0) {
			*out = (int)n;
			*seen = true;
		}
	}
}

static void read_options(pid_t daemon, struct rtkit_usage *u)
{
	char path[64], args[2048];
	rtshim_format(path, sizeof path, "/proc/%d/cmdline", (int)daemon);
	ssize_t n = rtshim_proc_read(path, args, sizeof args);
	if (n <= 0)
		return;
	u->options_read = true;
	option(args, (size_t)n, "--processes-per-user-max", &u->max_processes, &u->options_read);
	option(args, (size_t)n, "--threads-per-user-max", &u->max_threads, &u->options_read);
	option(args, (size_t)n, "--actions-burst-sec", &u->burst_sec, &u->options_read);
	option(args, (size_t)n, "--actions-per-burst-max", &u->burst_max, &u->options_read);
}

void rtshim_rtkit_usage(uid_t uid, pid_t daemon, struct rtkit_usage *u)
{
	struct scan s = { .u = u, .uid = uid, .self = getpid() };
	*u = (struct rtkit_usage){
		.max_processes = RTKIT_DEFAULT_PROCESSES_PER_USER,
		.max_threads = RTKIT_DEFAULT_THREADS_PER_USER,
		.burst_sec = RTKIT_DEFAULT_BURST_SEC,
		.burst_max = RTKIT_DEFAULT_ACTIONS_PER_BURST,
	};
	if (daemon > 0)
		read_options(daemon, u);
	each_pid("/proc", count_process, &s);
}

enum rtkit_limit rtshim_rtkit_limit(const struct rtkit_usage *u)
{
	if (!u->self_holds && u->processes >= u->max_processes)
		return RTKIT_LIMIT_PROCESSES;
	if (u->threads >= u->max_threads)
		return RTKIT_LIMIT_THREADS;
	return RTKIT_LIMIT_BURST;
}

/* ", held by 1234 jackd, 1240 qsynth" and " and N more" */
static size_t holders_text(const struct rtkit_usage *u, char *buf, size_t size)
{
	size_t len = 0;
	for (int i = 0; i < u->nholders && len < size; i++)
		len += rtshim_format(buf + len, size - len, "%s%d %s", i ? ", " : ": held by ",
				     (int)u->holders[i].pid, u->holders[i].comm);
	if (u->processes > u->nholders && len < size)
		len += rtshim_format(buf + len, size - len, " and %d more", u->processes - u->nholders);
	return len;
}

size_t rtshim_rtkit_limit_text(const struct rtkit_usage *u, char *buf, size_t size)
{
	char who[RTKIT_USAGE_HOLDERS * 32 + 32];
	holders_text(u, who, sizeof who);
	switch (rtshim_rtkit_limit(u)) {
	case RTKIT_LIMIT_PROCESSES:
		return rtshim_format(buf, size, "rtkit's limit of %d processes per user with realtime "
				     "threads is reached%s; rtkit-daemon --processes-per-user-max=N raises it",
				     u->max_processes, who);
	case RTKIT_LIMIT_THREADS:
		return rtshim_format(buf, size, "rtkit's limit of %d realtime threads per user is "
				     "reached (%d processes%s); rtkit-daemon --threads-per-user-max=N raises it",
				     u->max_threads, u->processes, who);
	case RTKIT_LIMIT_BURST:
		break;
	}
	return rtshim_format(buf, size, "rtkit's limit of %d requests per user in %d s is probably "
			     "reached (its other limits are not: %d of %d processes, %d of %d threads); "
			     "rtkit-daemon --actions-per-burst-max=N and --actions-burst-sec=S raise it",
			     u->burst_max, u->burst_sec, u->processes, u->max_processes, u->threads,
			     u->max_threads);
}
