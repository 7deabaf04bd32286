/* nice-probe — nice levels the way old programs ask for them, each from a worker thread so a
 * test can check that exactly that thread changed (read /proc/PID/task/TID/stat, field 19).
 * Usage: nice-probe ACTION [ARG...]
 *   setpriority N     worker: setpriority(PRIO_PROCESS, 0, N)
 *   nice N            worker: nice(N)  (prints the value nice returned)
 *   by-tid N          main: setpriority(PRIO_PROCESS, <worker's TID>, N)
 *   by-pid PID N      main: setpriority(PRIO_PROCESS, PID, N)  (another process)
 *   rt PRIO           worker: sched_setscheduler(0, SCHED_FIFO, PRIO)
 *   park              nothing: a target for another probe's by-pid
 *   parity [FOREIGN]  invalid and refused calls, one "case" line each (same with and without
 *                     the shim); FOREIGN: a PID of another user
 * Prints "tid main N", "tid worker N", "call LABEL rc=R err=E" and, for nice, "nice-returned V". */
#include <sys/resource.h>

#include "probe.h"

static const char *action;
static int arg_n;
static pthread_barrier_t asked;
static pid_t worker_tid;

static void *worker(void *p)
{
	(void)p;
	worker_tid = probe_gettid();
	probe_tid("worker");
	if (!strcmp(action, "setpriority")) {
		PROBE_SCHED("setpriority", setpriority(PRIO_PROCESS, 0, arg_n));
	} else if (!strcmp(action, "nice")) {
		errno = 0;
		int r = nice(arg_n);
		int e = errno;
		probe_rc("nice", r == -1 && e ? -1 : 0, r == -1 ? e : 0);
		probe_say("nice-returned %d", r);
	} else if (!strcmp(action, "rt")) {
		struct sched_param sp = { .sched_priority = arg_n };
		PROBE_SCHED("rt", sched_setscheduler(0, SCHED_FIFO, &sp));
		probe_say("policy-seen %s", probe_policy(sched_getscheduler(0)));
	}
	pthread_barrier_wait(&asked);
	probe_park();
	return NULL;
}

static void parity(pid_t foreign)
{
	static const struct { const char *name; int which; id_t who; int prio; } cases[] = {
		{ "which-42", 42, 0, -5 },
		{ "which-minus1", -1, 0, -5 },
		{ "no-such-process", PRIO_PROCESS, 0x7ffffff0, -5 },
		{ "pgrp-self", PRIO_PGRP, 0, -5 },
		{ "user-self", PRIO_USER, 0, -5 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		errno = 0;
		int r = setpriority(cases[i].which, cases[i].who, cases[i].prio);
		printf("case %s ret=%d errno=%s\n", cases[i].name, r, probe_errname(r < 0 ? errno : 0));
	}
	if (foreign) {
		errno = 0;
		int r = setpriority(PRIO_PROCESS, (id_t)foreign, -5);
		printf("case foreign ret=%d errno=%s\n", r, probe_errname(r < 0 ? errno : 0));
	}
	fflush(stdout);
}

int main(int argc, char **argv)
{
	pthread_t t;
	if (argc < 2)
		return 2;
	action = argv[1];
	arg_n = argc > 2 ? atoi(argv[argc - 1]) : 0;
	probe_start();
	probe_tid("main");
	if (!strcmp(action, "parity")) {
		parity(argc > 2 ? atoi(argv[2]) : 0);
		probe_wait();
		return 0;
	}
	if (!strcmp(action, "by-pid")) {
		PROBE_SCHED("by-pid", setpriority(PRIO_PROCESS, (id_t)atoi(argv[2]), arg_n));
		probe_wait();
		return 0;
	}
	pthread_barrier_init(&asked, NULL, 2);
	pthread_create(&t, NULL, worker, NULL);
	pthread_barrier_wait(&asked);
	if (!strcmp(action, "by-tid"))
		PROBE_SCHED("by-tid", setpriority(PRIO_PROCESS, (id_t)worker_tid, arg_n));
	probe_wait();
	return 0;
}
