/* setsched — figure 2, the privileged path: sched_setscheduler(0, SCHED_FIFO, p) as root.
 *
 *   setsched [BATCHES [CALLS]]   BATCHES (default 200) batches of CALLS calls (default 100)
 *
 * The priority alternates 10/11 so every call changes something in the kernel.  Prints one line
 * per batch: nanoseconds per call.  Run with and without LD_PRELOAD=librtshim.so; the shim adds
 * SCHED_RESET_ON_FORK and calls the real function once (it succeeds: no daemon involved).
 * Ends back at SCHED_OTHER.
 */
#include "bench.h"

int main(int argc, char **argv)
{
	long batches = bench_arg(argc, argv, 1, 200), calls = bench_arg(argc, argv, 2, 100);
	struct sched_param sp = { .sched_priority = 10 }, other = { 0 };
	long b, i;

	if (sched_setscheduler(0, SCHED_FIFO, &sp)) { /* warm-up; resolves the hook */
		perror("sched_setscheduler (run as root)");
		return 1;
	}
	for (b = 0; b < batches; b++) {
		int64_t t0 = bench_now_ns();

		for (i = 0; i < calls; i++) {
			sp.sched_priority = 10 + (int)(i & 1);
			if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
				perror("sched_setscheduler");
				return 1;
			}
		}
		printf("%.1f\n", (double)(bench_now_ns() - t0) / (double)calls);
	}
	if (bench_kernel_policy() != SCHED_FIFO) {
		fprintf(stderr, "the kernel says the thread is not SCHED_FIFO\n");
		return 1;
	}
	sched_setscheduler(0, SCHED_OTHER, &other);
	return 0;
}
