/* two-libs — two threads ask for SCHED_FIFO at the same priority, one through libaska.so, one
 * through libaskb.so (pthread_setschedparam(self) inside each library).
 * Usage: two-libs [PRIO]   (default 10)
 * Prints "tid a N", "tid b N", "call a|b rc=R err=E", "kernel a|b POLICY PRIO". */
// link: -laska -laskb
#include "probe.h"

int aska_realtime(int prio);
int askb_realtime(int prio);

static int prio = 10;
static pthread_barrier_t done;

static void *via_a(void *p)
{
	(void)p;
	probe_tid("a");
	PROBE_PTHREAD("a", aska_realtime(prio));
	probe_kernel("a");
	pthread_barrier_wait(&done);
	probe_park();
	return NULL;
}

static void *via_b(void *p)
{
	(void)p;
	probe_tid("b");
	PROBE_PTHREAD("b", askb_realtime(prio));
	probe_kernel("b");
	pthread_barrier_wait(&done);
	probe_park();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t a, b;
	if (argc > 1)
		prio = atoi(argv[1]);
	probe_start();
	pthread_barrier_init(&done, NULL, 3);
	pthread_create(&a, NULL, via_a, NULL);
	pthread_create(&b, NULL, via_b, NULL);
	pthread_barrier_wait(&done);
	probe_wait();
	return 0;
}
