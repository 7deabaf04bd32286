/* small-stack — a thread with a small stack asks for realtime, and how much of its stack it used.
 * Usage: small-stack measure|min [self|attr]
 *   measure: the thread runs on a 64 KiB stack of the probe's own, painted with a pattern
 *            before it starts; after it ends, "used N" is how many bytes from the top were
 *            written (the thread's descriptor and TLS included, which glibc puts there)
 *   min:     the thread has a stack of 16 KiB (PTHREAD_STACK_MIN on x86), as a program that
 *            wants many threads gives them; it must live
 *   self:    the thread calls pthread_setschedparam(pthread_self(), SCHED_FIFO, 10) (default)
 *   attr:    the thread is created with an explicit SCHED_FIFO 10 attribute
 * Prints "call small rc=.. err=..", "kernel small POLICY PRIO", "used N" (measure), "done". */
#include <sys/mman.h>

#include "probe.h"

#define PAINT 0xa5
#define MEASURED_SIZE (64 * 1024)
#define SMALL_SIZE (16 * 1024)

static int by_attr;

static void *body(void *arg)
{
	(void)arg;
	if (!by_attr) {
		struct sched_param sp = { .sched_priority = 10 };
		PROBE_PTHREAD("small", pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp));
	}
	pid_t t = probe_gettid();
	probe_say("kernel small %s %d", probe_policy(probe_kernel_policy(t)), probe_kernel_prio(t));
	return NULL;
}

int main(int argc, char **argv)
{
	int measure = argc > 1 && !strcmp(argv[1], "measure");
	by_attr = argc > 2 && !strcmp(argv[2], "attr");
	unsigned char *stack = NULL;
	pthread_attr_t attr;
	pthread_t t;
	probe_start();
	pthread_attr_init(&attr);
	if (measure) {
		stack = mmap(NULL, MEASURED_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (stack == MAP_FAILED)
			return 1;
		memset(stack, PAINT, MEASURED_SIZE);
		pthread_attr_setstack(&attr, stack, MEASURED_SIZE);
	} else {
		pthread_attr_setstacksize(&attr, SMALL_SIZE);
	}
	if (by_attr) {
		struct sched_param sp = { .sched_priority = 10 };
		pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
		pthread_attr_setschedparam(&attr, &sp);
	}
	int e = pthread_create(&t, &attr, body, NULL);
	if (by_attr)
		probe_rc("small", e, e);
	if (e && by_attr) { /* the kernel's EPERM: the program's fallback, a default policy */
		pthread_attr_setinheritsched(&attr, PTHREAD_INHERIT_SCHED);
		e = pthread_create(&t, &attr, body, NULL);
	}
	if (e) {
		probe_say("pthread_create: %s", probe_errname(e));
		return 1;
	}
	pthread_join(t, NULL);
	if (measure) {
		size_t low = 0;
		while (low < MEASURED_SIZE && stack[low] == PAINT)
			low++;
		probe_say("used %zu", (size_t)MEASURED_SIZE - low);
	}
	probe_say("done");
	return 0;
}
