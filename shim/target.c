/* target.c — which thread a request about a TID is about: the caller, another thread of this
 * process, a thread of another process of this user (rtkit's WithPID), or none of ours. */
#include <stdlib.h>
#include <unistd.h>

#include "procfs.h"
#include "registry.h"
#include "target.h"
#include "thread.h"

enum rtshim_target rtshim_target_of_tid(pid_t who, pid_t *tid, pid_t *pid)
{
	pid_t me = gettid(), tgid;
	uid_t owner;
	*pid = 0;
	*tid = who;
	if (rtshim_in_vfork_child())
		return RTSHIM_TARGET_UNKNOWN;
	if (who == 0 || who == me) {
		*tid = me;
		return RTSHIM_TARGET_SELF;
	}
	if (rtshim_registry_by_tid(who, NULL) == 0 || rtshim_proc_is_own_thread(who))
		return RTSHIM_TARGET_OWN;
	if (rtshim_proc_tgid(who, &tgid) == 0 && rtshim_proc_owner(tgid, &owner) == 0 &&
	    owner == geteuid()) {
		*pid = tgid;
		return RTSHIM_TARGET_OTHER;
	}
	return RTSHIM_TARGET_UNKNOWN;
}

/* Is `pid` a descendant of this process?  Its parents up to init (a bounded walk: a parent gone
 * meanwhile ends it as "no"). */
static bool descendant(pid_t pid)
{
	pid_t me = getpid();
	for (int depth = 0; depth < 64 && pid > 1; depth++) {
		if (rtshim_proc_ppid(pid, &pid) < 0)
			return false;
		if (pid == me)
			return true;
	}
	return false;
}

bool rtshim_target_other_explicit(pid_t pid)
{
	const char *named = secure_getenv("RTRUN_COMMAND_PID");
	return named && atoi(named) == getpid() && !descendant(pid);
}
