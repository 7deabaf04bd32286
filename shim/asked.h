/* asked.h — what each thread asked for, where `rtrun --status` reads it beside what the kernel
 * says the thread has.
 *
 * The kernel keeps no record of a request, and rtrun cannot read the shim's memory in another
 * process without ptrace rights.  So each request the shim served (granted through rtkit, or
 * satisfied with the flag kept, lowered, already in place) appends one line
 * (core/asked-line.h) to $XDG_RUNTIME_DIR/rtshim/PID: open, write, close, on the request's slow
 * path after the answer, so no descriptor stays open and the fast paths never see it.  Without
 * XDG_RUNTIME_DIR nothing is written.  Each line carries the process's start time, so a stale
 * file of an earlier process with this PID is not read as this one's; the last line of a TID is
 * what it asked last.  The file is emptied when it passes 64 KiB. */
#ifndef RTSHIM_ASKED_H
#define RTSHIM_ASKED_H

#include <sys/types.h>

/* Thread `tid` of this process asked for `policy` (without flags) at `prio`, and the shim
 * served it.  Failures are silent: the record is for people, never for the program. */
void rtshim_asked_record(pid_t tid, int policy, int prio);

#endif
