/* asked-line.h — the record of what threads asked for (shim/asked.h writes it, rtrun --status
 * reads it): where it is and what one line says.  Pure. */
#ifndef RTSHIM_ASKED_LINE_H
#define RTSHIM_ASKED_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* One request the shim served: process start time (procfs.h's rtshim_proc_start_time), thread,
 * the policy it asked (without flags) and the priority. */
struct rtshim_asked {
	unsigned long long start;
	pid_t tid;
	int policy, prio;
};

/* The record of process `pid` under `runtime_dir` ($XDG_RUNTIME_DIR/rtshim/PID): buf, or NULL
 * when runtime_dir is not absolute or the path does not fit in `size`. */
const char *rtshim_asked_path(const char *runtime_dir, pid_t pid, char *buf, size_t size);
/* What rtrun's keeper (wrapper/keeper.c) saw happen to the process's threads
 * ($XDG_RUNTIME_DIR/rtshim/PID.kept), likewise. */
const char *rtshim_kept_path(const char *runtime_dir, pid_t pid, char *buf, size_t size);
/* Its directory ($XDG_RUNTIME_DIR/rtshim), likewise. */
const char *rtshim_asked_dir(const char *runtime_dir, char *buf, size_t size);

/* One line, "START TID POLICY PRIO\n" (POLICY as rtshim_policy_name spells it): its length. */
size_t rtshim_asked_format(const struct rtshim_asked *a, char *buf, size_t size);
/* Read one line (without its newline) back: true when it is one. */
bool rtshim_asked_parse(const char *line, struct rtshim_asked *a);

#endif
