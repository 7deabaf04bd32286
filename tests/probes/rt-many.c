/* rt-many — N threads, started one after the other, each asks for SCHED_FIFO on itself and
 * stays (holding rtkit's per-user thread slots).  Usage: rt-many [N] [PRIO]  (default 30, 10)
 * Prints "call tK rc=.. err=.." for each, then "granted G of N". */
#include <semaphore.h>

#include "probe.h"

static sem_t asked;
static int prio = 10, granted;

static void *worker(void *arg)
{
	char label[16];
	snprintf(label, sizeof label, "t%d", (int)(long)arg);
	struct sched_param sp = { .sched_priority = prio };
	int r = PROBE_PTHREAD(label, pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp));
	if (!r)
		__atomic_fetch_add(&granted, 1, __ATOMIC_RELAXED);
	sem_post(&asked);
	probe_park();
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 30;
	if (argc > 2)
		prio = atoi(argv[2]);
	sem_init(&asked, 0, 0);
	probe_start();
	for (long i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, worker, (void *)i))
			break;
		sem_wait(&asked);
	}
	probe_say("granted %d of %d", granted, n);
	probe_wait();
	return 0;
}
