/* request-record.h — what a request leaves in its thread's record (registry.h's RTSHIM_TF_*
 * flags), which the readers (sched_getscheduler, pthread_getschedparam) report from: whose
 * SCHED_RESET_ON_FORK it carries, whether rtkit made it realtime, and the policy and priority
 * the program asked where the thread has rtkit's. */
#ifndef RTSHIM_REQUEST_RECORD_H
#define RTSHIM_REQUEST_RECORD_H

#include "carry-out.h"

/* The privileged path's grant: the kernel has what the call asked (out of line part of
 * privileged.h's rtshim_record_direct). */
void rtshim_record_direct_flags(const struct rtshim_req *r, enum rtshim_flag_owner owner);

/* The slow path's success (the shim's `record` operation, carry-out.h), through ops: its
 * read_sched and update_flags. */
void rtshim_record_outcome(const struct rtshim_request_ops *ops, const struct rtshim_req *r,
			   const struct rtshim_request_target *t, const struct rtshim_decision *d);

/* Set and clear RTSHIM_TF_* flags of the target's record (the shim's `update_flags`). */
void rtshim_record_update(const struct rtshim_req *r, const struct rtshim_request_target *t,
			  int set, int clear);

#endif
