/* repeat-acquire — a program that asks for the same RT priority again and again (some audio
 * code does it every period): rtkit's per-user budget (25 requests / 20 s; it lets a 26th
 * through) must not be spent more than once for it.
 * Usage: repeat-acquire [COUNT] [PRIO] [ALT]   (default 100, 70): with ALT, every other call
 * asks ALT instead (a priority that flaps). */
#include "probe.h"

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	struct sched_param sp = { .sched_priority = argc > 2 ? atoi(argv[2]) : 70 };
	int alt = argc > 3 ? atoi(argv[3]) : sp.sched_priority, hi = sp.sched_priority;
	int ok = 0, first = -1;
	probe_start();
	probe_tid("main");
	for (int i = 0; i < n; i++) {
		sp.sched_priority = i % 2 ? alt : hi;
		int r = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
		if (i == 0)
			first = r;
		ok += r == 0;
	}
	probe_rc("first", first, first);
	probe_say("succeeded %d of %d", ok, n);
	probe_kernel("main");
	probe_wait();
	return 0;
}
