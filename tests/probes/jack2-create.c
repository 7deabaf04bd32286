/* jack2-create — JACK2's JackPosixThread::StartImp: explicit-sched attribute, SCHED_FIFO at
 * priority 70 (server audio thread) and 65 (a client thread), then pthread_create.  Without
 * privilege the unshimmed pthread_create fails with EPERM ("Cannot create thread").
 * Usage: jack2-create [PRIO...]   (default 70 65) */
#include "probe.h"

struct thr {
	char label[16];
	int prio;
};

static void *body(void *p)
{
	struct thr *t = p;
	probe_tid(t->label);
	probe_say("started %s", t->label);
	int policy;
	struct sched_param sp;
	pthread_getschedparam(pthread_self(), &policy, &sp);
	probe_say("sees %s %s %d", t->label, probe_policy(policy), sp.sched_priority);
	probe_park();
	return NULL;
}

int main(int argc, char **argv)
{
	static struct thr thr[8];
	int n = 0;
	probe_start();
	probe_tid("main");
	if (argc < 2) {
		thr[n++] = (struct thr){ "audio", 70 };
		thr[n++] = (struct thr){ "client", 65 };
	} else {
		for (int i = 1; i < argc && n < 8; i++, n++) {
			snprintf(thr[n].label, sizeof thr[n].label, "t%d", n);
			thr[n].prio = atoi(argv[i]);
		}
	}
	for (int i = 0; i < n; i++) {
		pthread_attr_t attr;
		struct sched_param sp = { .sched_priority = thr[i].prio };
		pthread_t t;
		char label[192];
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_JOINABLE);
		pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
		pthread_attr_setschedparam(&attr, &sp);
		pthread_attr_setstacksize(&attr, 256 * 1024);
		snprintf(label, sizeof label, "create-%s", thr[i].label);
		PROBE_PTHREAD(label, pthread_create(&t, &attr, body, &thr[i]));
		pthread_attr_destroy(&attr);
	}
	probe_wait();
	return 0;
}
