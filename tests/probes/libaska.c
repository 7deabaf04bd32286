/* libaska.so — a library that asks for realtime for its caller's thread, like libjack does for
 * its process thread: the two-libs probe asks once from libaska.so and once from libaskb.so, so
 * RTSHIM_ONLY and RTSHIM_TRACE can be checked against real call stacks. */
#include <pthread.h>
#include <sched.h>

__attribute__((visibility("default"), noinline)) int aska_realtime(int prio);

int aska_realtime(int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	int r = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	__asm__ volatile("" ::: "memory"); /* not a tail call: this frame stays on the stack */
	return r;
}
