/* libplugin-create.so — a plugin (dlopen'ed by plugin-host) that creates a thread with an
 * explicit SCHED_FIFO 10 attribute while the dynamic loader's lock is held by the dlopen-ing
 * thread.  PLUGIN_CREATOR=ctor: its constructor creates it (the creator holds the lock, as
 * libffado's constructor does under jackd); PLUGIN_CREATOR=thread (default): its constructor
 * starts a plain thread that creates it, and waits (30 s at most) for that thread. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "kernel-view.h"

static sem_t done;
static int rc = -100, kpolicy = -1, kprio = -1, waited = -1;

__attribute__((visibility("default"))) void plugin_rt_result(int *call_rc, int *policy, int *prio,
							     int *wait_err);

void plugin_rt_result(int *call_rc, int *policy, int *prio, int *wait_err)
{
	*call_rc = rc;
	*policy = kpolicy;
	*prio = kprio;
	*wait_err = waited;
}

static void *rt_body(void *p)
{
	(void)p;
	pid_t tid = (pid_t)syscall(SYS_gettid);
	kpolicy = kernel_view_policy(tid);
	kprio = kernel_view_prio(tid);
	return NULL;
}

static void create_rt(void)
{
	pthread_attr_t a;
	struct sched_param sp = { .sched_priority = 10 };
	pthread_t t;
	pthread_attr_init(&a);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, SCHED_FIFO);
	pthread_attr_setschedparam(&a, &sp);
	rc = pthread_create(&t, &a, rt_body, NULL);
	if (rc == 0)
		pthread_join(t, NULL);
	pthread_attr_destroy(&a);
}

static void *creator(void *p)
{
	(void)p;
	create_rt();
	sem_post(&done);
	return NULL;
}

__attribute__((constructor)) static void plugin_init(void)
{
	const char *mode = getenv("PLUGIN_CREATOR");
	if (mode && strcmp(mode, "ctor") == 0) {
		create_rt();
		waited = 0;
		return;
	}
	pthread_t t;
	struct timespec until;
	sem_init(&done, 0, 0);
	if (pthread_create(&t, NULL, creator, NULL) != 0)
		return;
	pthread_detach(t);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 30;
	while ((waited = sem_timedwait(&done, &until) == 0 ? 0 : errno) == EINTR)
		;
}
