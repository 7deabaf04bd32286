/* errno-parity — a table of invalid scheduling calls, one line each: "case NAME ret=R errno=E".
 * Run with and without the shim: the outputs must be identical (rtshim(7): invalid arguments
 * give exactly the unshimmed result).
 * Usage: errno-parity [FOREIGN_PID [FOREIGN_TID]]
 *   FOREIGN_PID: a process of another user; FOREIGN_TID: a thread of another user's process
 *   that is not its main thread (default: none) */
#include <dlfcn.h>
#include <limits.h>
#include <stdint.h>

#include "probe.h"

static void sched_case(const char *name, int ret)
{
	int e = ret < 0 ? errno : 0;
	printf("case %s ret=%d errno=%s\n", name, ret, probe_errname(e));
}

static void pthread_case(const char *name, int ret)
{
	printf("case %s ret=%d errno=%s\n", name, ret, probe_errname(ret));
}

#define S(name, expr)                      \
	do {                               \
		errno = 0;                 \
		int r_ = (expr);           \
		sched_case(name, r_);      \
	} while (0)
#define P(name, expr) pthread_case(name, (expr))

static void *quit(void *p)
{
	return p;
}

static void *park(void *p)
{
	(void)p;
	for (;;)
		pause();
	return NULL;
}

/* the target of a case that must not exist, and the parameters the cases pass */
static const pid_t nonexistent = 0x7ffffff0;
static struct sched_param p0 = { 0 }, p1 = { 1 }, p5 = { 5 }, p10 = { 10 }, pm1 = { -1 },
			  p100 = { 100 }, pmax = { INT_MAX }, pmin = { INT_MIN };
/* an unmapped address */
static const struct sched_param *const bad = (const struct sched_param *)(uintptr_t)8;

/* sched_setscheduler */
static void setscheduler_cases(pid_t foreign, pid_t foreign_tid)
{
	S("ss-policy-42", sched_setscheduler(0, 42, &p0));
	S("ss-policy-minus1", sched_setscheduler(0, -1, &p0));
	S("ss-policy-deadline", sched_setscheduler(0, 6, &p0));
	S("ss-policy-42-reset", sched_setscheduler(0, 42 | SCHED_RESET_ON_FORK, &p0));
	S("ss-fifo-prio-0", sched_setscheduler(0, SCHED_FIFO, &p0));
	S("ss-fifo-prio-minus1", sched_setscheduler(0, SCHED_FIFO, &pm1));
	S("ss-fifo-prio-100", sched_setscheduler(0, SCHED_FIFO, &p100));
	S("ss-fifo-prio-intmax", sched_setscheduler(0, SCHED_FIFO, &pmax));
	S("ss-rr-prio-100", sched_setscheduler(0, SCHED_RR, &p100));
	S("ss-rr-prio-minus1", sched_setscheduler(0, SCHED_RR, &pm1));
	S("ss-rr-prio-0", sched_setscheduler(0, SCHED_RR, &p0));
	S("ss-rr-prio-intmax", sched_setscheduler(0, SCHED_RR, &pmax));
	S("ss-fifo-prio-intmin", sched_setscheduler(0, SCHED_FIFO, &pmin));
	S("ss-fifo-reset-prio-100", sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &p100));
	S("ss-rr-null-param", sched_setscheduler(0, SCHED_RR, NULL));
	S("ss-policy-42-null-param", sched_setscheduler(0, 42, NULL));
	S("ss-pid-nonexistent-null-param", sched_setscheduler(nonexistent, SCHED_FIFO, NULL));
	S("ss-fifo-reset-prio-0", sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &p0));
	S("ss-other-prio-1", sched_setscheduler(0, SCHED_OTHER, &p1));
	S("ss-batch-prio-1", sched_setscheduler(0, SCHED_BATCH, &p1));
	S("ss-fifo-null-param", sched_setscheduler(0, SCHED_FIFO, NULL));
	S("ss-other-null-param", sched_setscheduler(0, SCHED_OTHER, NULL));
	S("ss-pid-minus1", sched_setscheduler(-1, SCHED_FIFO, &p10));
	S("ss-pid-nonexistent", sched_setscheduler(nonexistent, SCHED_FIFO, &p10));
	S("ss-pid-nonexistent-other", sched_setscheduler(nonexistent, SCHED_OTHER, &p0));
	if (foreign) {
		S("ss-foreign-fifo-10", sched_setscheduler(foreign, SCHED_FIFO, &p10));
		S("ss-foreign-other", sched_setscheduler(foreign, SCHED_OTHER, &p0));
		S("ss-foreign-fifo-prio-100", sched_setscheduler(foreign, SCHED_FIFO, &p100));
		S("ss-foreign-fifo-null-param", sched_setscheduler(foreign, SCHED_FIFO, NULL));
		S("gs-foreign", sched_getscheduler(foreign));
	}
	if (foreign_tid) {
		S("ss-foreign-tid-fifo-10", sched_setscheduler(foreign_tid, SCHED_FIFO, &p10));
		S("ss-foreign-tid-rr-1", sched_setscheduler(foreign_tid, SCHED_RR, &p1));
		S("ss-foreign-tid-other", sched_setscheduler(foreign_tid, SCHED_OTHER, &p0));
		S("ss-foreign-tid-fifo-prio-minus1", sched_setscheduler(foreign_tid, SCHED_FIFO, &pm1));
		S("sp-foreign-tid-prio-10", sched_setparam(foreign_tid, &p10));
		S("gs-foreign-tid", sched_getscheduler(foreign_tid));
	}
}

/* sched_setparam */
static void setparam_cases(pid_t foreign)
{
	S("sp-null-param", sched_setparam(0, NULL));
	S("sp-prio-5-on-other", sched_setparam(0, &p5));
	S("sp-prio-minus1", sched_setparam(0, &pm1));
	S("sp-pid-minus1", sched_setparam(-1, &p0));
	S("sp-pid-nonexistent", sched_setparam(nonexistent, &p0));
	S("sp-prio-100", sched_setparam(0, &p100));
	S("sp-prio-intmax", sched_setparam(0, &pmax));
	S("sp-prio-intmin", sched_setparam(0, &pmin));
	S("sp-pid-nonexistent-prio-5", sched_setparam(nonexistent, &p5));
	if (foreign)
		S("sp-foreign-prio-0", sched_setparam(foreign, &p0));
}

/* the same requests through syscall(), as util-linux chrt makes them: the shim interposes
 * syscall() for these two numbers */
static void syscall_cases(pid_t foreign, pid_t foreign_tid)
{
	S("ss-fifo-bad-pointer", sched_setscheduler(0, SCHED_FIFO, bad));
	S("sp-bad-pointer", sched_setparam(0, bad));
	S("sys-ss-policy-42", (int)syscall(SYS_sched_setscheduler, 0, 42, &p0));
	S("sys-ss-policy-minus1", (int)syscall(SYS_sched_setscheduler, 0, -1, &p0));
	S("sys-ss-fifo-prio-0", (int)syscall(SYS_sched_setscheduler, 0, SCHED_FIFO, &p0));
	S("sys-ss-fifo-prio-minus1", (int)syscall(SYS_sched_setscheduler, 0, SCHED_FIFO, &pm1));
	S("sys-ss-fifo-prio-100", (int)syscall(SYS_sched_setscheduler, 0, SCHED_FIFO, &p100));
	S("sys-ss-rr-prio-intmax", (int)syscall(SYS_sched_setscheduler, 0, SCHED_RR, &pmax));
	S("sys-ss-fifo-prio-intmin", (int)syscall(SYS_sched_setscheduler, 0, SCHED_FIFO, &pmin));
	S("sys-ss-fifo-reset-prio-100",
	  (int)syscall(SYS_sched_setscheduler, 0, SCHED_FIFO | SCHED_RESET_ON_FORK, &p100));
	S("sys-ss-fifo-null-param", (int)syscall(SYS_sched_setscheduler, 0, SCHED_FIFO, NULL));
	S("sys-ss-fifo-bad-pointer", (int)syscall(SYS_sched_setscheduler, 0, SCHED_FIFO, bad));
	S("sys-ss-other-prio-1", (int)syscall(SYS_sched_setscheduler, 0, SCHED_OTHER, &p1));
	S("sys-ss-pid-minus1", (int)syscall(SYS_sched_setscheduler, -1, SCHED_FIFO, &p10));
	S("sys-ss-pid-nonexistent", (int)syscall(SYS_sched_setscheduler, nonexistent, SCHED_FIFO, &p10));
	if (foreign) {
		S("sys-ss-foreign-fifo-10", (int)syscall(SYS_sched_setscheduler, foreign, SCHED_FIFO, &p10));
		S("sys-sp-foreign-prio-0", (int)syscall(SYS_sched_setparam, foreign, &p0));
	}
	if (foreign_tid)
		S("sys-ss-foreign-tid-fifo-10",
		  (int)syscall(SYS_sched_setscheduler, foreign_tid, SCHED_FIFO, &p10));
}

/* sched_setattr (glibc 2.36 has no wrapper): the shim steps in only where the kernel says
 * EPERM; every error before that must be the kernel's */
static void setattr_cases(pid_t foreign)
{
	struct {
		uint32_t size, policy;
		uint64_t flags;
		int32_t nice;
		uint32_t priority;
		uint64_t runtime, deadline, period;
	} at;
#define SA(name, pid, sz, pol, fl, prio, sysflags)                                                \
	do {                                                                                       \
		memset(&at, 0, sizeof at);                                                         \
		at.size = (sz), at.policy = (pol), at.flags = (fl), at.priority = (prio);          \
		S(name, (int)syscall(SYS_sched_setattr, (pid), &at, (sysflags)));                  \
	} while (0)
	S("sys-sa-null-attr", (int)syscall(SYS_sched_setattr, 0, NULL, 0));
	S("sys-sa-bad-pointer", (int)syscall(SYS_sched_setattr, 0, bad, 0));
	SA("sys-sa-fifo-prio-100", 0, sizeof at, SCHED_FIFO, 0, 100, 0);
	SA("sys-sa-fifo-prio-0", 0, sizeof at, SCHED_FIFO, 0, 0, 0);
	SA("sys-sa-rr-reset-prio-100", 0, sizeof at, SCHED_RR, 1, 100, 0);
	SA("sys-sa-policy-42", 0, sizeof at, 42, 0, 10, 0);
	SA("sys-sa-size-1", 0, 1, SCHED_FIFO, 0, 10, 0);
	SA("sys-sa-syscall-flags-1", 0, sizeof at, SCHED_FIFO, 0, 10, 1);
	SA("sys-sa-unknown-flag", 0, sizeof at, SCHED_FIFO, 1ULL << 40, 10, 0);
	SA("sys-sa-pid-minus1", -1, sizeof at, SCHED_FIFO, 0, 10, 0);
	SA("sys-sa-pid-nonexistent", nonexistent, sizeof at, SCHED_FIFO, 0, 10, 0);
	if (foreign)
		SA("sys-sa-foreign-fifo-10", foreign, sizeof at, SCHED_FIFO, 0, 10, 0);
#undef SA
}

/* sched_setparam through syscall() */
static void syscall_setparam_cases(void)
{
	S("sys-sp-null-param", (int)syscall(SYS_sched_setparam, 0, NULL));
	S("sys-sp-bad-pointer", (int)syscall(SYS_sched_setparam, 0, bad));
	S("sys-sp-prio-5-on-other", (int)syscall(SYS_sched_setparam, 0, &p5));
	S("sys-sp-prio-minus1", (int)syscall(SYS_sched_setparam, 0, &pm1));
	S("sys-sp-prio-100", (int)syscall(SYS_sched_setparam, 0, &p100));
	S("sys-sp-pid-minus1", (int)syscall(SYS_sched_setparam, -1, &p0));
	S("sys-sp-pid-nonexistent", (int)syscall(SYS_sched_setparam, nonexistent, &p5));
}

/* sched_getscheduler */
static void getscheduler_cases(void)
{
	S("gs-pid-minus1", sched_getscheduler(-1));
	S("gs-pid-nonexistent", sched_getscheduler(nonexistent));
	S("gs-self", sched_getscheduler(0));
}

/* pthread_setschedparam / pthread_setschedprio on the calling thread */
static void pthread_self_cases(pthread_t self)
{
	P("pt-policy-42", pthread_setschedparam(self, 42, &p0));
	P("pt-policy-minus1", pthread_setschedparam(self, -1, &p0));
	P("pt-fifo-prio-0", pthread_setschedparam(self, SCHED_FIFO, &p0));
	P("pt-fifo-prio-minus1", pthread_setschedparam(self, SCHED_FIFO, &pm1));
	P("pt-fifo-prio-100", pthread_setschedparam(self, SCHED_FIFO, &p100));
	P("pt-rr-prio-intmax", pthread_setschedparam(self, SCHED_RR, &pmax));
	P("pt-other-prio-1", pthread_setschedparam(self, SCHED_OTHER, &p1));
	P("ptprio-self-100", pthread_setschedprio(self, 100));
	P("ptprio-self-5-on-other", pthread_setschedprio(self, 5));
	P("ptprio-self-minus1", pthread_setschedprio(self, -1));
	P("ptprio-self-0", pthread_setschedprio(self, 0));
	P("ptprio-self-intmax", pthread_setschedprio(self, INT_MAX));
	P("ptprio-self-intmin", pthread_setschedprio(self, INT_MIN));
	P("pt-rr-prio-0", pthread_setschedparam(self, SCHED_RR, &p0));
	P("pt-rr-prio-100", pthread_setschedparam(self, SCHED_RR, &p100));
	P("pt-fifo-prio-intmax", pthread_setschedparam(self, SCHED_FIFO, &pmax));
}

/* an ended (not joined) thread: ESRCH from glibc */
static void ended_thread_cases(void)
{
	pthread_t gone;
	if (pthread_create(&gone, NULL, quit, NULL) == 0) {
		/* its TID: /proc/self/task has only this thread again once it ended */
		for (int i = 0; i < 2000; i++) {
			int n = 0;
			char path[64];
			for (pid_t t = getpid() + 1; t < getpid() + 64; t++) {
				snprintf(path, sizeof path, "/proc/self/task/%d", (int)t);
				if (access(path, F_OK) == 0)
					n++;
			}
			if (!n)
				break;
			usleep(1000);
		}
		usleep(20000);
		int policy;
		struct sched_param sp;
		P("pt-ended-thread-fifo-10", pthread_setschedparam(gone, SCHED_FIFO, &p10));
		P("pt-ended-thread-other", pthread_setschedparam(gone, SCHED_OTHER, &p0));
		P("ptprio-ended-thread", pthread_setschedprio(gone, 10));
		P("pg-ended-thread", pthread_getschedparam(gone, &policy, &sp));
		pthread_join(gone, NULL);
	}
}

/* a live thread created behind the interposer (libc's own pthread_create): invalid calls
 * about it keep their errors (a valid realtime request about it is served like any other:
 * shim.bats, set-other-thread) */
static void libc_thread_cases(void)
{
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	int (*libc_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *) =
		libc ? (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))dlsym(libc, "pthread_create") : NULL;
	pthread_t behind;
	if (libc_create && libc_create(&behind, NULL, park, NULL) == 0) {
		P("pt-libc-thread-fifo-prio-100", pthread_setschedparam(behind, SCHED_FIFO, &p100));
		P("pt-libc-thread-fifo-prio-0", pthread_setschedparam(behind, SCHED_FIFO, &p0));
		P("pt-libc-thread-policy-42", pthread_setschedparam(behind, 42, &p0));
		P("pt-libc-thread-other", pthread_setschedparam(behind, SCHED_OTHER, &p0));
		P("ptprio-libc-thread-intmax", pthread_setschedprio(behind, INT_MAX));
		int upol = -1;
		struct sched_param usp = { -1 };
		P("pg-libc-thread", pthread_getschedparam(behind, &upol, &usp));
		printf("case pg-libc-thread-policy %s %d\n", probe_policy(upol), usp.sched_priority);
	}
}

/* pthread_create: explicit FIFO without a priority (glibc: EINVAL), and what the attribute
 * refuses */
static void create_cases(void)
{
	pthread_attr_t attr;
	pthread_t t;
	pthread_attr_init(&attr);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
	int r = pthread_create(&t, &attr, quit, NULL);
	P("pc-fifo-prio-unset", r);
	if (r == 0)
		pthread_join(t, NULL);
	/* an out-of-range priority in the attribute: glibc refuses it when it is set */
	struct sched_param ap = { 100 };
	P("pc-attr-setschedparam-100", pthread_attr_setschedparam(&attr, &ap));
	ap.sched_priority = -1;
	P("pc-attr-setschedparam-minus1", pthread_attr_setschedparam(&attr, &ap));
	/* an invalid policy in the attribute */
	P("pc-attr-setschedpolicy-42", pthread_attr_setschedpolicy(&attr, 42));
	pthread_attr_destroy(&attr);
}

int main(int argc, char **argv)
{
	pid_t foreign = argc > 1 ? atoi(argv[1]) : 0;
	pid_t foreign_tid = argc > 2 ? atoi(argv[2]) : 0;
	pthread_t self = pthread_self();
	setvbuf(stdout, NULL, _IOLBF, 0);

	setscheduler_cases(foreign, foreign_tid);
	setparam_cases(foreign);
	syscall_cases(foreign, foreign_tid);
	setattr_cases(foreign);
	syscall_setparam_cases();
	getscheduler_cases();
	pthread_self_cases(self);
	ended_thread_cases();
	libc_thread_cases();
	create_cases();

	int policy;
	struct sched_param sp;
	P("pg-self", pthread_getschedparam(self, &policy, &sp));
	printf("case pg-self-policy %s %d\n", probe_policy(policy), sp.sched_priority);
	return 0;
}
