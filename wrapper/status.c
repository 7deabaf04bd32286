/* status.c — `rtrun --status [PID]`: is it working?  Which processes run with the shim (the
 * user's own; root sees everyone's), which of their threads are realtime at what priority,
 * what RLIMIT_RTTIME bounds them, and which threads rtkit's grant left (dropped, or demoted by
 * the runaway guard) or gave a nice level instead.  What threads have is read from the kernel
 * (/proc, sched_getscheduler); what they asked, from the shim's record.  A table for people,
 * like chrt -p and gamemodelist; with --pairs one `key=value` line per process and per thread,
 * for scripts.  Listing also removes the shim's records of processes that ended (sweep_records). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "asked-line.h"
#include "format.h"
#include "procfs.h"
#include "rtkit-client.h"
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

/* What one process shows: its threads as the kernel has them, and what the shim recorded they
 * asked for (policy -1: nothing recorded). */
struct thread_row {
	pid_t tid;
	char comm[64], policy[64];
	int prio, nice;
	long long cpu_ms;
	const char *state;
	struct rtshim_asked asked;
};

/* The record's next line of the process that started at `start`: true and *a, or false at its
 * end (lines of another process with that PID, or malformed ones, are passed over). */
static bool next_line_of(FILE *f, unsigned long long start, struct rtshim_asked *a)
{
	char line[128];

	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		if (rtshim_asked_parse(line, a) && a->start == start)
			return true;
	}
	return false;
}

/* What the threads of process `pid` asked for, from the shim's record (shim/asked.h) in the
 * runtime directory of the process's user: the last line of each thread of this process. */
static void read_asked(pid_t pid, struct thread_row *rows, size_t n)
{
	char dir[64], path[PATH_MAX];
	const char *runtime = getenv("XDG_RUNTIME_DIR");
	unsigned long long start;
	struct rtshim_asked a;
	uid_t owner;
	FILE *f;

	if (rtshim_proc_owner(pid, &owner) < 0 || rtshim_proc_start_time(pid, &start) < 0)
		return;
	if (owner != getuid() || !runtime) { /* root looking at another user's: theirs */
		snprintf(dir, sizeof dir, "/run/user/%u", (unsigned)owner);
		runtime = dir;
	}
	if (!rtshim_asked_path(runtime, pid, path, sizeof path) || !(f = fopen(path, "re")))
		return;
	while (next_line_of(f, start, &a))
		for (size_t i = 0; i < n; i++)
			if (rows[i].tid == a.tid)
				rows[i].asked = a;
	fclose(f);
}

/* Does the record `name` in directory `dfd` hold a line of the process that started at `start`? */
static bool record_has_start(int dfd, const char *name, unsigned long long start)
{
	struct rtshim_asked a;
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "re");

	if (!f) {
		if (fd >= 0)
			close(fd);
		return true; /* unreadable: not ours to judge */
	}
	bool found = next_line_of(f, start, &a);
	fclose(f);
	return found;
}

/* The shim never removes its record (it cannot know its last request): the user's listing
 * removes the records of processes that ended, or whose PID a later process has (no line of
 * its start time).  A line that later process writes while this runs may go with it: the
 * record is for people, and its next request writes again. */
static void sweep_records(void)
{
	const char *runtime = getenv("XDG_RUNTIME_DIR");
	char path[PATH_MAX];
	struct dirent *e;
	int dfd;
	DIR *d;

	if (!runtime || !rtshim_asked_dir(runtime, path, sizeof path))
		return;
	dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (dfd < 0 || !(d = fdopendir(dfd))) {
		if (dfd >= 0)
			close(dfd);
		return;
	}
	while ((e = readdir(d))) {
		unsigned long long start;
		long long pid;
		int r;

		if (rtrun_parse_int(e->d_name, 1, INT_MAX, &pid) < 0)
			continue;
		r = rtshim_proc_start_time((pid_t)pid, &start);
		if (r == -ENOENT || r == -ESRCH || (r == 0 && !record_has_start(dfd, e->d_name, start)))
			unlinkat(dfd, e->d_name, 0);
	}
	closedir(d);
}

/* "FIFO 70" (the table) or "SCHED_FIFO/70" (--pairs), or "-": nothing recorded. */
static const char *asked_text(const struct rtshim_asked *a, bool pairs, char *buf, size_t size)
{
	if (a->policy < 0)
		return "-";
	snprintf(buf, size, pairs ? "SCHED_%s/%d" : "%s %d", rtshim_policy_name(a->policy), a->prio);
	return buf;
}

static bool read_thread(pid_t pid, pid_t tid, struct thread_row *t)
{
	int policy;

	if (rtrun_thread_sched(tid, &policy, &t->prio) < 0)
		return false; /* ended meanwhile */
	errno = 0;
	t->tid = tid;
	t->nice = getpriority(PRIO_PROCESS, (id_t)tid);
	if (t->nice == -1 && errno)
		t->nice = 0;
	comm_word(pid, tid, t->comm, sizeof t->comm);
	rtrun_policy_text(policy, t->policy, sizeof t->policy);
	t->cpu_ms = cpu_ms(pid, tid);
	t->state = state_of(policy, t->nice);
	t->asked.policy = -1;
	return true;
}

/* The highest priority a realtime thread shown has (0: none is realtime). */
static int shown_top_prio;

static void print_process(pid_t pid, int shim, bool pairs, const struct thread_row *rows,
			  size_t n, size_t rt)
{
	char comm[64], b1[32], b2[32], user[64];
	struct rlimit rl;
	bool rl_ok = prlimit(pid, RLIMIT_RTTIME, NULL, &rl) == 0;
	uid_t owner = 0;

	comm_word(pid, pid, comm, sizeof comm);
	rtshim_proc_owner(pid, &owner);
	if (pairs) {
		printf("process pid=%d comm=%s user=%s shim=%s", (int)pid, comm,
		       rtrun_user_name(owner, user, sizeof user),
		       shim > 0 ? "yes" : shim == 0 ? "no" : "unknown");
		if (rl_ok)
			printf(" rttime_soft=%s rttime_hard=%s",
			       rtrun_rlim_text(rl.rlim_cur, b1, sizeof b1),
			       rtrun_rlim_text(rl.rlim_max, b2, sizeof b2));
		printf(" threads=%zu realtime=%zu\n", n, rt);
		for (size_t i = 0; i < n; i++)
			printf("  thread tid=%d comm=%s policy=%s prio=%d nice=%d cpu_ms=%lld state=%s asked=%s\n",
			       (int)rows[i].tid, rows[i].comm, rows[i].policy, rows[i].prio,
			       rows[i].nice, rows[i].cpu_ms, rows[i].state,
			       asked_text(&rows[i].asked, true, b1, sizeof b1));
		return;
	}
	printf("process %d (%s) of user %s, %s the shim: %zu of %zu thread%s realtime", (int)pid,
	       comm, rtrun_user_name(owner, user, sizeof user),
	       shim > 0 ? "with" : shim == 0 ? "without" : "perhaps with (its maps are not yours to read)", rt,
	       n, n == 1 ? "" : "s");
	if (rl_ok)
		printf(", RLIMIT_RTTIME %s/%s us (soft/hard)",
		       rtrun_rlim_text(rl.rlim_cur, b1, sizeof b1),
		       rtrun_rlim_text(rl.rlim_max, b2, sizeof b2));
	printf("\n  %-8s %-16s %-28s %4s %4s %8s  %-14s %s\n", "TID", "THREAD", "POLICY", "PRIO",
	       "NICE", "CPU-MS", "STATE", "ASKED");
	for (size_t i = 0; i < n; i++)
		printf("  %-8d %-16s %-28s %4d %4d %8lld  %-14s %s\n", (int)rows[i].tid, rows[i].comm,
		       rows[i].policy, rows[i].prio, rows[i].nice, rows[i].cpu_ms, rows[i].state,
		       asked_text(&rows[i].asked, false, b1, sizeof b1));
}

/* What rtshim-keeper (keeper.c) saw happen to the process's threads: $XDG_RUNTIME_DIR/rtshim/
 * PID.kept, "START TID EVENT EPOCH TEXT" (taken, back, refused), one line each, in order. */
static void print_kept(pid_t pid, bool pairs)
{
	const char *runtime = getenv("XDG_RUNTIME_DIR");
	char path[PATH_MAX], line[768], event[16], when[32];
	unsigned long long start, lstart;
	long long epoch;
	int tid, off;
	FILE *f;

	if (!runtime || rtshim_proc_start_time(pid, &start) < 0 ||
	    !rtshim_kept_path(runtime, pid, path, sizeof path))
		return;
	if (!(f = fopen(path, "re")))
		return;
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%llu %d %15s %lld %n", &lstart, &tid, event, &epoch, &off) < 4 ||
		    lstart != start)
			continue;
		time_t t = (time_t)epoch;
		struct tm tm;
		strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", localtime_r(&t, &tm));
		if (!strcmp(event, "watched"))
			continue; /* the keeper's start of watching: for tests, not people */
		if (pairs)
			printf("  kept tid=%d event=%s time=%lld\n", tid, event, epoch);
		else if (!strcmp(event, "taken"))
			printf("  %s: rtkit took realtime away from thread %d (%s)\n", when, tid, line + off);
		else if (!strcmp(event, "back"))
			printf("  %s: thread %d is realtime again, back (%s)\n", when, tid, line + off);
		else if (!strcmp(event, "left"))
			printf("  %s: thread %d left realtime itself, not asked for again (%s)\n", when,
			       tid, line + off);
		else
			printf("  %s: thread %d not back: rtkit refused (%s)\n", when, tid, line + off);
	}
	fclose(f);
}

static void show(pid_t pid, int shim, bool pairs)
{
	struct thread_row *rows;
	pid_t *tids = NULL;
	size_t count = 0, n = 0, rt = 0;

	if (rtrun_list_threads(pid, &tids, &count) < 0)
		return; /* ended meanwhile */
	rows = calloc(count ? count : 1, sizeof *rows);
	for (size_t i = 0; rows && i < count; i++)
		if (read_thread(pid, tids[i], &rows[n])) {
			if (!strcmp(rows[n].state, "realtime")) {
				rt++;
				if (rows[n].prio > shown_top_prio)
					shown_top_prio = rows[n].prio;
			}
			n++;
		}
	if (rows) {
		read_asked(pid, rows, n);
		print_process(pid, shim, pairs, rows, n, rt);
		print_kept(pid, pairs);
	}
	free(rows);
	free(tids);
}

/* A thread at rtkit's maximum may have asked for more: the kernel keeps no record of the
 * request, so say what the number means rather than let 20 pass for what jackd -P 70 asked. */
static void explain_top(void)
{
	const struct rtshim_client_v1 *c;
	struct rtkit_limits lim;

	if (!shown_top_prio || !(c = rtrun_client()) || c->get_limits(&lim) < 0 ||
	    shown_top_prio != lim.max_realtime_priority)
		return;
	printf("\nPriority %d is rtkit's maximum: a thread that asked for more (jackd -P 70, say) "
	       "was lowered to it (ASKED: what the shim recorded it asked for; "
	       "--map scale or --map offset keep the order of priorities).\n", shown_top_prio);
}

/* May this process see process `pid` under --status?  Its own user's; root: everyone's. */
static bool listed(pid_t pid)
{
	uid_t owner;

	if (pid == getpid() || rtshim_proc_owner(pid, &owner) < 0)
		return false;
	return (owner == getuid() || geteuid() == 0) && has_shim(pid) == 1;
}

int rtrun_status(const struct rtrun_options *o)
{
	struct dirent *e;
	size_t shown = 0;
	DIR *d;

	rtrun_client_set_timeout_ms(o->timeout_ms ? o->timeout_ms : 500);
	if (o->status_pid) {
		int shim = has_shim(o->status_pid);

		/* another user's process: its maps are closed to us, its threads are not (chrt -p) */
		if (shim == -EACCES)
			shim = -1;
		if (shim < -1) {
			rtrun_log(RTRUN_ERROR, "no process %d that you may read: %s", (int)o->status_pid,
				  strerror(-shim));
			return 1;
		}
		show(o->status_pid, shim, o->status_pairs);
		if (!o->status_pairs)
			explain_top();
		return 0;
	}
	d = opendir("/proc");
	if (!d) {
		rtrun_log(RTRUN_ERROR, "cannot read /proc: %s", strerror(errno));
		return 1;
	}
	while ((e = readdir(d))) {
		long long pid;

		if (rtrun_parse_int(e->d_name, 1, INT_MAX, &pid) < 0 || !listed((pid_t)pid))
			continue;
		if (shown++ && !o->status_pairs)
			putchar('\n');
		show((pid_t)pid, 1, o->status_pairs);
	}
	closedir(d);
	sweep_records();
	if (!shown && !o->status_pairs) /* --pairs: no line for no process */
		printf("no process %sruns with %s\n", geteuid() == 0 ? "" : "of yours ",
		       RTRUN_SHIM_FILE);
	else if (!o->status_pairs)
		explain_top();
	return 0;
}
