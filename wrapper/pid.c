/* pid.c — `rtrun --pid ID -p N [-a]`: make a running thread realtime, like `chrt -p`: ID is a
 * process (its main thread) or one thread of it (a TID); with -a every thread of the process,
 * like `chrt -a -p`.  Through rtkit's WithPID call when the direct one is refused (its
 * RLIMIT_RTTIME bounded with prlimit first).  One line per thread on stdout; exit 0 when every
 * thread that still exists is realtime, 1 otherwise. */
#include <dirent.h>
#include <errno.h>
#include <pwd.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "procfs.h"
#include "rtrun.h"

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* The thread ids of `pid`, sorted (the main thread first).  malloc'd array in *out. */
static int list_threads(pid_t pid, pid_t **out, size_t *count)
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

static void comm_of(pid_t pid, pid_t tid, char *buf, size_t size)
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

static bool thread_exists(pid_t pid, pid_t tid)
{
	char path[64];

	snprintf(path, sizeof path, "/proc/%d/task/%d", (int)pid, (int)tid);
	return access(path, F_OK) == 0;
}

static const char *user_name(uid_t uid, char *buf, size_t size)
{
	struct passwd *pw = getpwuid(uid);

	snprintf(buf, size, "%s", pw ? pw->pw_name : "?");
	return buf;
}

/* An error that will be the same for every other thread of the process. */
static bool stops_all(int r)
{
	return r != -ESRCH && r != -EINVAL;
}

int rtrun_pid(const struct rtrun_options *o)
{
	struct rtshim_config cfg;
	struct rtrun_rt_request req = { 0 };
	pid_t pid = o->pid, id = o->pid, *tids = NULL;
	size_t count = 0, ok = 0, gone = 0;
	uid_t owner;
	char comm[64], u1[64], u2[64], pol[64];
	bool stop = false, told_clamp = false;
	int r, exit_status;

	/* a TID names its process and that one thread */
	r = rtshim_proc_tgid(id, &pid);
	if (r == 0)
		r = rtshim_proc_owner(pid, &owner);
	if (r < 0) {
		if (r == -ENOENT)
			rtrun_log(RTRUN_ERROR, "no process or thread with ID %d", (int)id);
		else
			rtrun_log(RTRUN_ERROR, "cannot read /proc/%d: %s", (int)pid, strerror(-r));
		return 1;
	}
	comm_of(pid, pid, comm, sizeof comm);
	if (owner != geteuid() && !rtrun_have_cap_sys_nice()) {
		rtrun_log(RTRUN_ERROR, "process %d (%s) belongs to user %s (uid %u), not to you (%s, "
			  "uid %u): neither the kernel nor rtkit lets a user change another user's "
			  "process", (int)pid, comm, user_name(owner, u1, sizeof u1), (unsigned)owner,
			  user_name(geteuid(), u2, sizeof u2), (unsigned)geteuid());
		return 1;
	}

	if (rtrun_options_config(o, &cfg) < 0)
		return 1;
	rtrun_client_set_timeout_ms(cfg.timeout_ms);

	if (o->all_tasks) {
		r = list_threads(pid, &tids, &count);
	} else {
		tids = malloc(sizeof *tids);
		r = tids ? 0 : -ENOMEM;
		if (tids) {
			tids[0] = id;
			count = 1;
		}
	}
	if (r < 0) {
		rtrun_log(RTRUN_ERROR, "cannot list the threads of process %d: opendir(/proc/%d/task): "
			  "%s", (int)pid, (int)pid, strerror(-r));
		return 1;
	}

	req.pid = pid == getpid() ? 0 : pid;
	req.priority = o->priority;
	req.policy = o->policy >= 0 ? o->policy : SCHED_RR;
	req.cfg = &cfg;

	for (size_t i = 0; i < count; i++) {
		struct rtrun_rt_result res;
		char why[256];
		int policy, prio;

		req.tid = tids[i];
		comm_of(pid, req.tid, comm, sizeof comm);
		printf("pid %d thread %d (%s): ", (int)pid, (int)req.tid, comm);
		if (stop) {
			printf("not tried\n");
			continue;
		}
		r = rtrun_make_realtime(&req, &res);
		if (r == 0 && rtrun_thread_sched(req.tid, &policy, &prio) == 0) {
			printf("%s %d, %s\n", rtrun_policy_text(policy, pol, sizeof pol), prio, res.how);
			ok++;
			if (res.d.prio_changed && req.priority > res.rtkit_max && !told_clamp) {
				told_clamp = true;
				rtrun_log(RTRUN_WARNING, "priority %d is above rtkit's maximum %d: asked "
					  "for %d", req.priority, res.rtkit_max, res.priority);
			}
		} else if (r == 0 || r == -ESRCH || (r == -ENOENT && !thread_exists(pid, req.tid))) {
			/* The thread ended meanwhile. */
			printf("exited\n");
			gone++;
		} else {
			printf("unchanged: %s\n", rtrun_rt_error_text(&res, why, sizeof why));
			stop = stops_all(r);
		}
	}
	fflush(stdout);
	exit_status = ok + gone == count && ok > 0 ? 0 : 1;
	if (o->all_tasks || exit_status)
		rtrun_log(exit_status ? RTRUN_ERROR : RTRUN_INFO, "%zu of %zu thread%s of process %d "
			  "%s realtime%s", ok, count - gone, count - gone == 1 ? "" : "s", (int)pid,
			  ok == 1 ? "is" : "are", exit_status ? "" : " now");
	free(tids);
	return exit_status;
}
