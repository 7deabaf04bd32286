/* jack1-self — JACK1: jackd -R probes RT at start-up (acquire, then drop, the drop checked with
 * pthread_getschedparam(...) == SCHED_OTHER; jackd aborts if it fails), then the engine thread,
 * created EXPLICIT without a policy, calls pthread_setschedparam(self, SCHED_FIFO, prio).
 * Usage: jack1-self [PRIO]   (default 70) */
#include "probe.h"

static int prio = 70;

/* jack_acquire_real_time_scheduling / jack_drop_real_time_scheduling */
static int acquire(const char *label)
{
	struct sched_param sp = { .sched_priority = prio };
	return PROBE_PTHREAD(label, pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp));
}

static int drop(const char *label)
{
	struct sched_param sp = { .sched_priority = 0 };
	int policy;
	int r = PROBE_PTHREAD(label, pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp));
	pthread_getschedparam(pthread_self(), &policy, &sp);
	probe_say("check %s policy==SCHED_OTHER %s (%s)", label, policy == SCHED_OTHER ? "yes" : "no",
		  probe_policy(policy));
	return r;
}

static void *engine(void *p)
{
	(void)p;
	probe_tid("engine");
	acquire("acquire-engine");
	int policy;
	struct sched_param sp;
	pthread_getschedparam(pthread_self(), &policy, &sp);
	probe_say("sees engine %s %d", probe_policy(policy), sp.sched_priority);
	probe_kernel("engine");
	probe_park();
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		prio = atoi(argv[1]);
	probe_start();
	probe_tid("main");
	/* the -R start-up probe, in a thread like jackd's (jack_client_create_thread) */
	if (acquire("probe-acquire") == 0) {
		probe_kernel("after-acquire");
		drop("probe-drop");
		probe_kernel("after-drop");
	}
	pthread_attr_t attr;
	pthread_t t;
	pthread_attr_init(&attr);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED); /* no policy: as jack1 does */
	PROBE_PTHREAD("create-engine", pthread_create(&t, &attr, engine, NULL));
	pthread_attr_destroy(&attr);
	probe_wait();
	return 0;
}
