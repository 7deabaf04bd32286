/* target.h — which thread a request about a TID is about (target.c). */
#ifndef RTSHIM_TARGET_H
#define RTSHIM_TARGET_H

#include <stdbool.h>
#include <sys/types.h>

#include "decide.h" /* enum rtshim_target */

/* Which thread a sched_* or setpriority request about `who` (0: the caller; a TID) is about, for
 * rtkit: SELF, another thread of ours (OWN), a thread of another process of this user (OTHER,
 * *pid = its process), or UNKNOWN.  *tid = who for OWN and OTHER. */
enum rtshim_target rtshim_target_of_tid(pid_t who, pid_t *tid, pid_t *pid);

/* rtshim(7) rule 22's fact: a request about a thread of process `pid` (another process of this
 * user) is a person's: this process is the command rtrun runs (RTRUN_COMMAND_PID) and `pid` is not
 * one of its descendants (a supervisor boosting its own workers is not asking for a person). */
bool rtshim_target_other_explicit(pid_t pid);

#endif
