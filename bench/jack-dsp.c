/* jack-dsp — figure 7: a JACK client that does DSP work every period and counts xruns.
 *
 *   jack-dsp SERVER SECONDS [LOAD-PERCENT]
 *
 * Connects to the server SERVER (never starts one; waits up to 10 s for it), spins LOAD-PERCENT (default 30) of
 * each period in its process callback, as an audio effect would, and counts the server's xrun
 * notifications for SECONDS.  Prints "XRUNS LATE-XRUNS CYCLES RT": LATE-XRUNS leaves out the
 * first second after activation (start-up), RT is 1 if its process thread was SCHED_FIFO/RR
 * (as the kernel says).  libjack creates that thread as JACK2 always does.
 */
// link: -ljack
#include <jack/jack.h>

#include "bench.h"

static volatile int xruns, process_rt = -1;
static volatile long cycles;
static int64_t spin_ns;

static int on_process(jack_nframes_t nframes, void *arg)
{
	int64_t end = bench_now_ns() + spin_ns;
	volatile double x = 1.0;

	(void)nframes;
	(void)arg;
	if (process_rt < 0)
		process_rt = bench_kernel_policy() == SCHED_FIFO || bench_kernel_policy() == SCHED_RR;
	while (bench_now_ns() < end)
		x = x * 1.0000001 + 1e-9;
	cycles++;
	return 0;
}

static int on_xrun(void *arg)
{
	(void)arg;
	xruns++;
	return 0;
}

int main(int argc, char **argv)
{
	jack_status_t status;
	jack_client_t *c = NULL;
	int i, early;
	long seconds = bench_arg(argc, argv, 2, 30), load = bench_arg(argc, argv, 3, 30);

	if (argc < 2) {
		fprintf(stderr, "usage: jack-dsp SERVER SECONDS [LOAD-PERCENT]\n");
		return 2;
	}
	for (i = 0; i < 100; i++) { /* the server may still be starting: up to 10 s */
		c = jack_client_open("rtshim-bench-dsp", JackNoStartServer | JackServerName, &status,
				     argv[1]);
		if (c)
			break;
		usleep(100000);
	}
	if (!c) {
		fprintf(stderr, "jack_client_open: status %#x\n", status);
		return 1;
	}
	spin_ns = (int64_t)jack_get_buffer_size(c) * 1000000000LL / jack_get_sample_rate(c) * load / 100;
	jack_set_process_callback(c, on_process, NULL);
	jack_set_xrun_callback(c, on_xrun, NULL);
	if (jack_activate(c)) {
		fprintf(stderr, "jack_activate failed\n");
		return 1;
	}
	sleep(1);
	early = xruns;
	if (seconds > 1)
		sleep((unsigned)seconds - 1);
	jack_deactivate(c);
	jack_client_close(c);
	printf("%d %d %ld %d\n", xruns, xruns - early, cycles, process_rt);
	return 0;
}
