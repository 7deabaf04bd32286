/* jack2-freewheel — JACK2 freewheel: the audio thread is RT; another thread drops it with
 * pthread_setschedparam(t, SCHED_OTHER, 0) (no retry with SCHED_RESET_ON_FORK), then later
 * re-acquires it with pthread_setschedparam(t, SCHED_FIFO, prio), both from the other thread.
 * Usage: jack2-freewheel [PRIO] [CYCLES]   (default 70, 1 drop/re-acquire cycle) */
#include "probe.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static pid_t audio_tid;

static void *audio(void *p)
{
	(void)p;
	pthread_mutex_lock(&m);
	audio_tid = probe_gettid();
	pthread_cond_signal(&c);
	pthread_mutex_unlock(&m);
	probe_tid("audio");
	probe_park();
	return NULL;
}

static void show(const char *label, pthread_t t)
{
	int policy;
	struct sched_param sp;
	int r = pthread_getschedparam(t, &policy, &sp);
	probe_say("sees %s %s %d (rc=%d)", label, probe_policy(policy), sp.sched_priority, r);
	probe_say("kernel %s %s %d", label, probe_policy(probe_kernel_policy(audio_tid)),
		  probe_kernel_prio(audio_tid));
}

int main(int argc, char **argv)
{
	int prio = argc > 1 ? atoi(argv[1]) : 70;
	int cycles = argc > 2 ? atoi(argv[2]) : 1;
	probe_start();
	probe_tid("main");

	pthread_attr_t attr;
	struct sched_param sp = { .sched_priority = prio };
	pthread_t t;
	pthread_attr_init(&attr);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
	pthread_attr_setschedparam(&attr, &sp);
	if (PROBE_PTHREAD("create-audio", pthread_create(&t, &attr, audio, NULL)))
		return 1;
	pthread_attr_destroy(&attr);
	pthread_mutex_lock(&m);
	while (!audio_tid)
		pthread_cond_wait(&c, &m);
	pthread_mutex_unlock(&m);
	show("start", t);

	for (int i = 0; i < cycles; i++) {
		struct sched_param zero = { .sched_priority = 0 };
		PROBE_PTHREAD("freewheel-drop", pthread_setschedparam(t, SCHED_OTHER, &zero));
		show("dropped", t);
		PROBE_PTHREAD("freewheel-reacquire", pthread_setschedparam(t, SCHED_FIFO, &sp));
		show("reacquired", t);
	}
	probe_wait();
	return 0;
}
