/* attr-copy — a thread that got SCHED_RR 10 (pthread_setschedparam on itself) reads its
 * attributes back with pthread_getattr_np and copies the scheduling into a new explicit
 * attribute, as thread pools that clone their creator's settings do; then creates a thread
 * with it.
 *   call setschedparam rc=R err=E / attr-policy 0xP / attr-prio N /
 *   call attr-setschedpolicy rc=R err=E / call create rc=R err=E / kernel copied POLICY PRIO */
#include "probe.h"

static void *copied(void *p)
{
	(void)p;
	probe_kernel("copied");
	return NULL;
}

int main(void)
{
	probe_start();
	struct sched_param sp = { .sched_priority = 10 };
	if (PROBE_PTHREAD("setschedparam", pthread_setschedparam(pthread_self(), SCHED_RR, &sp)))
		return 1;
	pthread_attr_t a, n;
	int policy = -1;
	if (pthread_getattr_np(pthread_self(), &a) != 0)
		return 1;
	pthread_attr_getschedpolicy(&a, &policy);
	pthread_attr_getschedparam(&a, &sp);
	pthread_attr_destroy(&a);
	probe_say("attr-policy 0x%x", (unsigned)policy);
	probe_say("attr-prio %d", sp.sched_priority);

	pthread_attr_init(&n);
	pthread_attr_setinheritsched(&n, PTHREAD_EXPLICIT_SCHED);
	PROBE_PTHREAD("attr-setschedpolicy", pthread_attr_setschedpolicy(&n, policy));
	pthread_attr_setschedparam(&n, &sp);
	pthread_t t;
	if (PROBE_PTHREAD("create", pthread_create(&t, &n, copied, NULL)) == 0)
		pthread_join(t, NULL);
	pthread_attr_destroy(&n);
	return 0;
}
