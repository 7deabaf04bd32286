/* libplugin-rt.so — a plugin (dlopen'ed by plugin-host) whose constructor starts a thread and
 * waits for it: the thread asks for SCHED_FIFO 10 for itself, then posts a semaphore.  While the
 * constructor waits, the dlopen-ing thread holds the dynamic loader's lock: anything the thread's
 * request does that needs that lock (dlsym, dlopen, dladdr) would wait for the constructor,
 * which waits for the thread.  The wait is bounded (30 s) so that the host can say so. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
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

static void *rt_thread(void *p)
{
	(void)p;
	struct sched_param sp = { .sched_priority = 10 };
	rc = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	/* the kernel's view, past any interposer */
	pid_t tid = (pid_t)syscall(SYS_gettid);
	kpolicy = kernel_view_policy(tid);
	kprio = kernel_view_prio(tid);
	sem_post(&done);
	return NULL;
}

__attribute__((constructor)) static void plugin_init(void)
{
	pthread_t t;
	struct timespec until;
	sem_init(&done, 0, 0);
	if (pthread_create(&t, NULL, rt_thread, NULL) != 0)
		return;
	pthread_detach(t);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 30;
	while ((waited = sem_timedwait(&done, &until) == 0 ? 0 : errno) == EINTR)
		;
}
