/* asan-rt — a program built with AddressSanitizer (libasan is one of its DT_NEEDED libraries,
 * and refuses to run unless the loader loads it first) whose thread asks for SCHED_FIFO 10.
 * Prints "call asan rc=.. err=..", "kernel asan POLICY PRIO", "done"; exit 0. */
// link: -fsanitize=address

#include "probe.h"

static void *body(void *arg)
{
	struct sched_param sp = { .sched_priority = 10 };
	(void)arg;
	PROBE_PTHREAD("asan", pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp));
	pid_t t = probe_gettid();
	probe_say("kernel asan %s %d", probe_policy(probe_kernel_policy(t)), probe_kernel_prio(t));
	return NULL;
}

int main(void)
{
	pthread_t t;
	probe_start();
	if (pthread_create(&t, NULL, body, NULL))
		return 1;
	pthread_join(t, NULL);
	probe_say("done");
	return 0;
}
