/* engine-jack — ecasound's engine thread starting libjack's client thread.  The engine thread
 * asks for SCHED_FIFO 50 on itself (pthread_setschedparam), then jack_activate() creates the
 * JACK thread the way JACK2's JackPosixThread::StartImp creates a thread that is not meant to be
 * realtime: PTHREAD_EXPLICIT_SCHED and no policy.  glibc then gives the new thread the policy
 * and priority it last recorded for the creating thread.  The JACK thread asks for SCHED_FIFO 5
 * itself (AcquireSelfRealTime).
 * Usage: engine-jack [read|lower]
 *   read:  the engine thread then reads its own scheduling back (pthread_getschedparam), as a
 *          program that logs its priority does: glibc records what it read
 *   lower: the engine thread then lowers itself to SCHED_RR 10 (pthread_setschedparam): glibc
 *          records what succeeded
 * Prints: call engine rc=R err=E / kernel engine POLICY PRIO / [read engine POLICY PRIO |
 *         call lower rc=R err=E] / call create rc=R err=E / kernel jack-start POLICY PRIO /
 *         call jack rc=R err=E / kernel jack POLICY PRIO */
#include "probe.h"

static const char *mode = "";

static void *jack_thread(void *arg)
{
	(void)arg;
	probe_kernel("jack-start");
	struct sched_param sp = { .sched_priority = 5 };
	PROBE_PTHREAD("jack", pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp));
	probe_kernel("jack");
	return NULL;
}

static void *engine(void *arg)
{
	(void)arg;
	struct sched_param sp = { .sched_priority = 50 };
	PROBE_PTHREAD("engine", pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp));
	probe_kernel("engine");
	if (strcmp(mode, "read") == 0) {
		int policy;
		pthread_getschedparam(pthread_self(), &policy, &sp);
		probe_say("read engine %s %d", probe_policy(policy), sp.sched_priority);
	} else if (strcmp(mode, "lower") == 0) {
		sp.sched_priority = 10;
		PROBE_PTHREAD("lower", pthread_setschedparam(pthread_self(), SCHED_RR, &sp));
	}

	pthread_attr_t attr;
	pthread_t t;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_JOINABLE);
	pthread_attr_setscope(&attr, PTHREAD_SCOPE_SYSTEM);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	if (PROBE_PTHREAD("create", pthread_create(&t, &attr, jack_thread, NULL)) == 0)
		pthread_join(t, NULL);
	pthread_attr_destroy(&attr);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	if (argc > 1)
		mode = argv[1];
	probe_start();
	if (pthread_create(&t, NULL, engine, NULL) != 0)
		return 1;
	pthread_join(t, NULL);
	return 0;
}
