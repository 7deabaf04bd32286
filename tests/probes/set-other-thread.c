/* set-other-thread — a thread created with default attributes, which asks for nothing itself, is
 * made realtime by its creator (create, then pthread_setschedparam(worker, SCHED_FIFO, PRIO):
 * a common pattern).  The worker then reads its own scheduling three ways and creates a thread
 * of its own (RTSHIM_INHERIT: realtime too); last the creator drops it to SCHED_OTHER.
 * Usage: set-other-thread [PRIO] [libc]   (PRIO default 10; "libc": the worker is created by
 * libc's own pthread_create, looked up in libc, behind the interposer)
 * Prints "tid worker T", "call set rc=..", "kernel worker P N", "sees worker P N" (the creator's
 * pthread_getschedparam), "sees self-pthread P N", "sees self-sched P", "sees self-attr P N",
 * "tid child T" + "kernel child P N", "call drop rc=..", "kernel dropped P N",
 * "sees dropped P N", then waits. */
#include <dlfcn.h>

#include "probe.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int step;
static pid_t worker_tid;

static void set_step(int s)
{
	pthread_mutex_lock(&m);
	step = s;
	pthread_cond_broadcast(&c);
	pthread_mutex_unlock(&m);
}

static void wait_step(int s)
{
	pthread_mutex_lock(&m);
	while (step < s)
		pthread_cond_wait(&c, &m);
	pthread_mutex_unlock(&m);
}

static void *child(void *p)
{
	(void)p;
	probe_tid("child");
	probe_kernel("child");
	probe_park();
	return NULL;
}

static void *worker(void *p)
{
	(void)p;
	worker_tid = probe_gettid();
	probe_tid("worker");
	set_step(1);
	wait_step(2); /* the creator made this thread realtime */
	int policy = -1;
	struct sched_param sp = { .sched_priority = -1 };
	pthread_getschedparam(pthread_self(), &policy, &sp);
	probe_say("sees self-pthread %s %d", probe_policy(policy), sp.sched_priority);
	probe_say("sees self-sched %s", probe_policy(sched_getscheduler(0)));
	pthread_attr_t a;
	policy = -1;
	sp.sched_priority = -1;
	if (pthread_getattr_np(pthread_self(), &a) == 0) {
		pthread_attr_getschedpolicy(&a, &policy);
		pthread_attr_getschedparam(&a, &sp);
		pthread_attr_destroy(&a);
	}
	probe_say("sees self-attr %s %d", probe_policy(policy), sp.sched_priority);
	pthread_t t;
	pthread_create(&t, NULL, child, NULL);
	set_step(3);
	probe_park();
	return NULL;
}

static void show(const char *label, pthread_t t)
{
	int policy = -1;
	struct sched_param sp = { .sched_priority = -1 };
	pthread_getschedparam(t, &policy, &sp);
	probe_say("kernel %s %s %d", label, probe_policy(probe_kernel_policy(worker_tid)),
		  probe_kernel_prio(worker_tid));
	probe_say("sees %s %s %d", label, probe_policy(policy), sp.sched_priority);
}

int main(int argc, char **argv)
{
	int prio = argc > 1 ? atoi(argv[1]) : 10;
	int (*create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *) = pthread_create;
	probe_start();
	if (argc > 2 && !strcmp(argv[2], "libc")) {
		void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
		if (!libc || !(create = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))dlsym(libc, "pthread_create"))) {
			probe_say("no libc pthread_create");
			return 1;
		}
	}
	pthread_t w;
	if (PROBE_PTHREAD("create", create(&w, NULL, worker, NULL)))
		return 1;
	wait_step(1);
	struct sched_param sp = { .sched_priority = prio }, zero = { .sched_priority = 0 };
	PROBE_PTHREAD("set", pthread_setschedparam(w, SCHED_FIFO, &sp));
	show("worker", w);
	set_step(2);
	wait_step(3);
	PROBE_PTHREAD("drop", pthread_setschedparam(w, SCHED_OTHER, &zero));
	show("dropped", w);
	probe_wait();
	return 0;
}
