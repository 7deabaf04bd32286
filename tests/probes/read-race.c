/* read-race — jconvolver's pattern on a JACK2 client thread.  Thread A starts (SCHED_OTHER) and
 * asks realtime for itself, as JACK2's JackClient::Init does (AcquireSelfRealTime:
 * pthread_setschedparam(self, SCHED_FIFO, 65)).  The main thread waits only until A has
 * started, polling every millisecond like libjack's JackPosixThread::StartSync (which returns
 * once the thread sets kIniting, before its Init asks for realtime), then at once reads A's
 * policy as jconvolver does after jack_activate() and copies it, as zita-convolver would, into
 * the attribute of a worker.  Through rtkit the grant is a D-Bus round trip: without a shim
 * that waits for the request in flight, the read says OTHER and the worker is SCHED_OTHER.
 * Usage: read-race [pthread|sched]   (the reader: pthread_getschedparam, or sched_getscheduler
 * on A's TID; default pthread) */
#include <time.h>

#include "probe.h"

static volatile int started; /* JackPosixThread's fStatus = kIniting */
static volatile int answered; /* A's own request has returned */
static volatile pid_t a_tid;

/* a_sleeps: A is asleep in the kernel (state S in /proc/self/task/TID/stat): after it started,
 * the only place it sleeps is its own request waiting for rtkit's answer. */
static int a_sleeps(void)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)a_tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	const char *p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'S';
}

static void *thread_a(void *p)
{
	(void)p;
	a_tid = probe_gettid();
	probe_tid("A");
	__atomic_store_n(&started, 1, __ATOMIC_RELEASE);
	struct sched_param sp = { .sched_priority = 65 };
	PROBE_PTHREAD("setschedparam-A", pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp));
	__atomic_store_n(&answered, 1, __ATOMIC_RELEASE);
	probe_kernel("A");
	probe_park();
	return NULL;
}

static void *worker(void *p)
{
	(void)p;
	probe_tid("worker");
	probe_kernel("worker");
	probe_park();
	return NULL;
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1e3 + (t.tv_nsec - t0->tv_nsec) / 1e6;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "pthread";
	pthread_t a, w;
	probe_start();
	probe_tid("main");
	if (PROBE_PTHREAD("create-A", pthread_create(&a, NULL, thread_a, NULL)))
		return 1;
	while (!__atomic_load_n(&started, __ATOMIC_ACQUIRE))
		usleep(1000); /* StartSync's JackSleep(1000) */
	/* StartSync returns 1 ms into A's start, when on a real machine A's request is in flight; on
	 * a busy one A may not have reached it yet: read once it is (A asleep in it), or once it has
	 * its answer (EPERM at once without the shim).  10 s at most. */
	for (int i = 0; i < 100000 && !__atomic_load_n(&answered, __ATOMIC_ACQUIRE) && !a_sleeps(); i++)
		usleep(100);

	struct timespec t0;
	int policy;
	struct sched_param sp = { 0 };
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (strcmp(mode, "sched") == 0) {
		policy = PROBE_SCHED("getscheduler-A", sched_getscheduler(a_tid));
		struct sched_param kp;
		if (policy >= 0 && sched_getparam(a_tid, &kp) == 0)
			sp = kp;
	} else {
		PROBE_PTHREAD("getschedparam-A", pthread_getschedparam(a, &policy, &sp));
	}
	probe_say("reads A %s %d after %.1f ms", probe_policy(policy), sp.sched_priority, ms_since(&t0));

	/* jconvolver/zita-convolver: a worker with an explicit attribute of what was read, one
	 * priority below (only an RT policy gets one) */
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, policy < 0 ? SCHED_OTHER : policy);
	struct sched_param wp = { .sched_priority = 0 };
	if (policy == SCHED_FIFO || policy == SCHED_RR)
		wp.sched_priority = sp.sched_priority > 1 ? sp.sched_priority - 1 : 1;
	pthread_attr_setschedparam(&attr, &wp);
	PROBE_PTHREAD("create-worker", pthread_create(&w, &attr, worker, NULL));
	pthread_attr_destroy(&attr);
	probe_wait();
	return 0;
}
