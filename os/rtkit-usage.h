/* rtkit-usage.h — which of rtkit's per-user limits a refusal ("Device or resource busy", the
 * same for all three) probably hit: rtkit's limits from its command line (/proc/PID/cmdline of
 * the daemon, else its defaults) and the slots the user's processes hold now (/proc: threads
 * that are realtime or at a negative nice level with SCHED_RESET_ON_FORK, as rtkit leaves
 * them).  System calls only, no allocation: the shim asks on its own stack. */
#ifndef RTSHIM_RTKIT_USAGE_H
#define RTSHIM_RTKIT_USAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* rtkit 0.13's defaults */
#define RTKIT_DEFAULT_PROCESSES_PER_USER 15
#define RTKIT_DEFAULT_THREADS_PER_USER 25
#define RTKIT_DEFAULT_BURST_SEC 20
#define RTKIT_DEFAULT_ACTIONS_PER_BURST 25

#define RTKIT_USAGE_HOLDERS 4

struct rtkit_usage {
	int max_processes, max_threads, burst_sec, burst_max; /* rtkit's */
	bool options_read;  /* from the daemon's command line (else the defaults) */
	int processes, threads; /* slots the user's processes hold */
	bool self_holds;    /* the calling process is one of them */
	int nholders;       /* holders[] filled (of `processes`) */
	struct { pid_t pid; char comm[16]; } holders[RTKIT_USAGE_HOLDERS];
};

enum rtkit_limit {
	RTKIT_LIMIT_PROCESSES, /* a new process of the user's, and the process limit reached */
	RTKIT_LIMIT_THREADS,
	RTKIT_LIMIT_BURST,     /* neither count is at its limit: the requests of the last burst */
};

/* Fill u for the user `uid` and rtkit-daemon process `daemon` (0: unknown, the defaults). */
void rtshim_rtkit_usage(uid_t uid, pid_t daemon, struct rtkit_usage *u);

/* The limit the counts point to. */
enum rtkit_limit rtshim_rtkit_limit(const struct rtkit_usage *u);

/* One clause: which limit, who holds it, and the rtkit-daemon option that raises it, e.g.
 * "rtkit's limit of 15 processes per user with realtime threads (--processes-per-user-max=15)
 * is reached: held by 1234 jackd, 1240 qsynth, ...; rtkit-daemon --processes-per-user-max=N
 * raises it".  Its length. */
size_t rtshim_rtkit_limit_text(const struct rtkit_usage *u, char *buf, size_t size);

#endif
