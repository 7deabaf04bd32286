/* pid.c — `rtrun --pid ID -p N [-a]`: make a running thread realtime, like `chrt -p`: ID is a
 * process (its main thread) or one thread of it (a TID); with -a every thread of the process,
 * like `chrt -a -p`.  Through rtkit's WithPID call when the direct one is refused (its
 * RLIMIT_RTTIME bounded with prlimit first).  One line per thread on stdout; exit 0 when every
 * thread that still exists is realtime, 1 otherwise. */
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

/* An error that will be the same for every other thread of the process. */
static bool stops_all(int r)
{
	return r != -ESRCH && r != -EINVAL;
}

/* The process ID names (a TID names its process), if it is one the caller may change: 0, or 1
 * after saying why not. */
static int target_process(pid_t id, pid_t *pid)
{
	char comm[64], u1[64], u2[64];
	uid_t owner;
	int r = rtshim_proc_tgid(id, pid);
	if (r == 0)
		r = rtshim_proc_owner(*pid, &owner);
	if (r < 0) {
		if (r == -ENOENT)
			rtrun_log(RTRUN_ERROR, "no process or thread with ID %d", (int)id);
		else
			rtrun_log(RTRUN_ERROR, "cannot read /proc/%d: %s", (int)*pid, strerror(-r));
		return 1;
	}
	rtrun_comm_of(*pid, *pid, comm, sizeof comm);
	if (owner != geteuid() && !rtrun_have_cap_sys_nice()) {
		rtrun_log(RTRUN_ERROR, "process %d (%s) belongs to user %s (uid %u), not to you (%s, "
			  "uid %u): neither the kernel nor rtkit lets a user change another user's "
			  "process", (int)*pid, comm, rtrun_user_name(owner, u1, sizeof u1), (unsigned)owner,
			  rtrun_user_name(geteuid(), u2, sizeof u2), (unsigned)geteuid());
		return 1;
	}
	return 0;
}

/* The threads to change: every thread of the process with -a, else the one ID names. */
static int threads_to_change(const struct rtrun_options *o, pid_t pid, pid_t **tids, size_t *count)
{
	int r;
	if (o->all_tasks) {
		r = rtrun_list_threads(pid, tids, count);
	} else {
		*tids = malloc(sizeof **tids);
		r = *tids ? 0 : -ENOMEM;
		if (*tids) {
			(*tids)[0] = o->pid;
			*count = 1;
		}
	}
	if (r < 0) {
		rtrun_log(RTRUN_ERROR, "cannot list the threads of process %d: opendir(/proc/%d/task): "
			  "%s", (int)pid, (int)pid, strerror(-r));
		return 1;
	}
	return 0;
}

/* How the threads went, counted as they are tried. */
struct pid_tally {
	size_t ok, gone;
	bool stop, told_clamp;
};

/* One thread: its line on stdout, counted in *t. */
static void change_thread(struct rtrun_rt_request *req, pid_t pid, struct pid_tally *t)
{
	struct rtrun_rt_result res;
	char comm[64], pol[64], why[256];
	int policy, prio, r;

	rtrun_comm_of(pid, req->tid, comm, sizeof comm);
	printf("pid %d thread %d (%s): ", (int)pid, (int)req->tid, comm);
	if (t->stop) {
		printf("not tried\n");
		return;
	}
	r = rtrun_make_realtime(req, &res);
	if (r == 0 && rtrun_thread_sched(req->tid, &policy, &prio) == 0) {
		printf("%s %d, %s\n", rtrun_policy_text(policy, pol, sizeof pol), prio, res.how);
		t->ok++;
		if (res.d.prio_changed && req->priority > res.rtkit_max && !t->told_clamp) {
			t->told_clamp = true;
			rtrun_log(RTRUN_WARNING, "priority %d is above rtkit's maximum %d: asked "
				  "for %d", req->priority, res.rtkit_max, res.priority);
		}
	} else if (r == 0 || r == -ESRCH || (r == -ENOENT && !rtrun_thread_exists(pid, req->tid))) {
		/* The thread ended meanwhile. */
		printf("exited\n");
		t->gone++;
	} else {
		printf("unchanged: %s\n", rtrun_rt_error_text(&res, why, sizeof why));
		t->stop = stops_all(r);
	}
}

/* The exit status: 0 when every thread that still exists is realtime; the summary line with -a
 * or on failure. */
static int verdict(const struct rtrun_options *o, pid_t pid, size_t count, const struct pid_tally *t)
{
	size_t left = count - t->gone;
	int exit_status = t->ok + t->gone == count && t->ok > 0 ? 0 : 1;
	if (o->all_tasks || exit_status)
		rtrun_log(exit_status ? RTRUN_ERROR : RTRUN_INFO, "%zu of %zu thread%s of process %d "
			  "%s realtime%s", t->ok, left, left == 1 ? "" : "s", (int)pid,
			  t->ok == 1 || left == 1 ? "is" : "are", exit_status ? "" : " now");
	return exit_status;
}

int rtrun_pid(const struct rtrun_options *o)
{
	struct rtshim_config cfg;
	struct rtrun_rt_request req = { 0 };
	struct pid_tally tally = { 0 };
	pid_t pid = o->pid, *tids = NULL;
	size_t count = 0;
	int exit_status;

	if (target_process(o->pid, &pid))
		return 1;
	if (rtrun_options_config(o, &cfg) < 0)
		return 1;
	rtrun_client_set_timeout_ms(cfg.timeout_ms);
	if (threads_to_change(o, pid, &tids, &count))
		return 1;

	req.pid = pid == getpid() ? 0 : pid;
	req.priority = o->priority;
	req.policy = rtrun_priority_policy(o);
	req.cfg = &cfg;
	for (size_t i = 0; i < count; i++) {
		req.tid = tids[i];
		change_thread(&req, pid, &tally);
	}
	fflush(stdout);
	exit_status = verdict(o, pid, count, &tally);
	free(tids);
	return exit_status;
}
