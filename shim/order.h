/* order.h — the order of the priorities a process's threads asked, kept within rtkit's range
 * (rtshim(7) rule 5).  rtkit's 1..MaxRealtimePriority has fewer steps than 1..99: clamped
 * alone, 50 and 51 both become 20, and a program whose design needs the one above the other
 * (a creator that must not run while its workers spin) loses it.  So a priority mapped for
 * rtkit goes below each distinct higher priority that another realtime thread of the process
 * asked and holds, and after a success the threads that asked a lower priority and sit at or
 * above a higher one are lowered (directly: lowering within a grant needs no privilege, and
 * costs rtkit nothing).  Nothing is ever raised again: that would need rtkit. */
#ifndef RTSHIM_ORDER_H
#define RTSHIM_ORDER_H

#include <sys/types.h>

/* How many distinct priorities above `prio` the realtime threads of this process other than
 * `tid` asked and hold (what their readers report). */
int rtshim_order_prios_above(pid_t tid, int prio);

/* Lower each realtime thread rtkit made so that every distinct higher priority asked has a
 * step above it, within 1..max_prio; its readers still report what it asked. */
void rtshim_order_keep(int max_prio);

#endif
