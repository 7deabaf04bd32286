/* status.c — `rtrun --status [PID]`: is it working?  Which of my processes run with the shim,
 * which of their threads are realtime at what priority, what RLIMIT_RTTIME bounds them, and
 * which threads rtkit's grant left (dropped, or demoted by the runaway guard) or gave a nice
 * level instead.  Everything is read from the kernel (/proc, sched_getscheduler), nothing from
 * the shim.  One line per process and one per thread, `key=value` words after a first word
 * that says which: readable by a person, and by a script with `awk` or `grep`. */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "procfs.h"
#include "rtrun.h"

/* Does process `pid` have librtshim.so mapped (1), not (0), or is it unreadable (-errno)? */
static int has_shim(pid_t pid)
{
	char path[64], line[4096];
	int found = 0;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (!found && fgets(line, sizeof line, f))
		found = strstr(line, "/" RTRUN_SHIM_FILE "\n") != NULL;
	fclose(f);
	return found;
}

/* The thread's CPU time (ms) from /proc/PID/task/TID/sched, or -1. */
static long long cpu_ms(pid_t pid, pid_t tid)
{
	char path[96], line[256];
	double ms = -1;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/task/%d/sched", (int)pid, (int)tid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "se.sum_exec_runtime : %lf", &ms) == 1)
			break;
	fclose(f);
	return ms < 0 ? -1 : (long long)ms;
}

/* What the kernel's view says happened to a thread.  rtkit sets SCHED_RESET_ON_FORK on every
 * thread it changes (realtime or nice): a SCHED_OTHER thread that carries it had rtkit's
 * attention and no longer has realtime. */
static const char *state_of(int policy, int nice)
{
	bool flag = policy & SCHED_RESET_ON_FORK;

	if (rtshim_is_rt(policy))
		return "realtime";
	if (flag && nice < 0)
		return "nice-instead";   /* no realtime: rtkit's nice level (the nice fallback) */
	if (flag)
		return "realtime-ended"; /* dropped by the program, or demoted by the runaway guard */
	return "normal";
}

/* A thread's name as one word (key=value stays parseable). */
static void comm_word(pid_t pid, pid_t tid, char *buf, size_t size)
{
	rtrun_comm_of(pid, tid, buf, size);
	for (char *c = buf; *c; c++)
		if (*c == ' ' || *c == '\t' || *c == '=')
			*c = '_';
}

static void show(pid_t pid, int shim)
{
	char comm[64], b1[32], b2[32], pol[64];
	struct rlimit rl;
	pid_t *tids = NULL;
	size_t count = 0, rt = 0;

	comm_word(pid, pid, comm, sizeof comm);
	if (rtrun_list_threads(pid, &tids, &count) < 0)
		return; /* ended meanwhile */
	for (size_t i = 0; i < count; i++) {
		long p = syscall(SYS_sched_getscheduler, tids[i]);

		if (p >= 0 && rtshim_is_rt((int)p))
			rt++;
	}
	if (prlimit(pid, RLIMIT_RTTIME, NULL, &rl) == 0)
		printf("process pid=%d comm=%s shim=%s rttime_soft=%s rttime_hard=%s threads=%zu "
		       "realtime=%zu\n", (int)pid, comm, shim > 0 ? "yes" : "no",
		       rtrun_rlim_text(rl.rlim_cur, b1, sizeof b1),
		       rtrun_rlim_text(rl.rlim_max, b2, sizeof b2), count, rt);
	else
		printf("process pid=%d comm=%s shim=%s threads=%zu realtime=%zu\n", (int)pid, comm,
		       shim > 0 ? "yes" : "no", count, rt);
	for (size_t i = 0; i < count; i++) {
		int policy, prio, nice;

		if (rtrun_thread_sched(tids[i], &policy, &prio) < 0)
			continue; /* ended meanwhile */
		errno = 0;
		nice = getpriority(PRIO_PROCESS, (id_t)tids[i]);
		if (nice == -1 && errno)
			nice = 0;
		comm_word(pid, tids[i], comm, sizeof comm);
		printf("  thread tid=%d comm=%s policy=%s prio=%d nice=%d cpu_ms=%lld state=%s\n",
		       (int)tids[i], comm, rtrun_policy_text(policy, pol, sizeof pol), prio, nice,
		       cpu_ms(pid, tids[i]), state_of(policy, nice));
	}
	free(tids);
}

int rtrun_status(const struct rtrun_options *o)
{
	struct dirent *e;
	size_t shown = 0;
	DIR *d;

	if (o->status_pid) {
		int shim = has_shim(o->status_pid);

		if (shim < 0) {
			rtrun_log(RTRUN_ERROR, "no process %d that you may read: %s", (int)o->status_pid,
				  strerror(-shim));
			return 1;
		}
		show(o->status_pid, shim);
		return 0;
	}
	/* every process of this user that has the shim loaded */
	d = opendir("/proc");
	if (!d) {
		rtrun_log(RTRUN_ERROR, "cannot read /proc: %s", strerror(errno));
		return 1;
	}
	while ((e = readdir(d))) {
		long long pid;
		uid_t owner;

		if (rtrun_parse_int(e->d_name, 1, INT_MAX, &pid) < 0 ||
		    rtshim_proc_owner((pid_t)pid, &owner) < 0 || owner != getuid() ||
		    (pid_t)pid == getpid() || has_shim((pid_t)pid) != 1)
			continue;
		show((pid_t)pid, 1);
		shown++;
	}
	closedir(d);
	if (!shown)
		printf("no process of yours runs with %s\n", RTRUN_SHIM_FILE);
	return 0;
}
