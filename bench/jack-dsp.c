/* jack-dsp — figure 7: a JACK client that does real DSP work every period and counts xruns.
 *
 *   jack-dsp SERVER SECONDS TAPS        connect to the server SERVER (never start one; wait up to
 *                                       10 s for it), filter for SECONDS, print the outcome
 *   jack-dsp --taps FRAMES RATE PERCENT how many taps make the filter take PERCENT of a period
 *                                       of FRAMES at RATE on this machine, idle (so that every
 *                                       run of a benchmark does the same work)
 *
 * Each period the client takes its input port (fed from the server's capture ports), adds a
 * test tone, and runs a stereo FIR filter of TAPS taps (direct form, floats: the inner loop of a
 * convolution reverb or a linear-phase EQ) into its two output ports, connected to the server's
 * playback ports.  It counts the server's xrun notifications.  Prints "XRUNS LATE-XRUNS CYCLES
 * RT": LATE-XRUNS leaves out the first second after activation (start-up), RT is 1 if its
 * process thread was SCHED_FIFO/RR (as the kernel says).  libjack creates that thread as JACK2
 * always does.
 */
// link: -ljack -lm
#include <jack/jack.h>
#include <math.h>

#include "bench.h"

struct fir {
	int taps;
	float *h[2];  /* coefficients, left and right */
	float *hist;  /* the last taps-1 input samples, then this period's */
	size_t frames;
};

static struct fir fir;
static float phase, *signal_in; /* the input plus the tone (an input port's buffer is read-only) */
static jack_port_t *in_port, *out_port[2];
static volatile int xruns, process_rt = -1;
static volatile long cycles;

static int fir_init(struct fir *f, int taps, size_t frames)
{
	f->taps = taps;
	f->frames = frames;
	f->h[0] = calloc((size_t)taps, sizeof(float));
	f->h[1] = calloc((size_t)taps, sizeof(float));
	f->hist = calloc((size_t)taps - 1 + frames, sizeof(float));
	if (!f->h[0] || !f->h[1] || !f->hist)
		return -1;
	for (int k = 0; k < taps; k++) { /* two windowed-sinc low-passes */
		float x = (float)(k - taps / 2), w = 0.5f - 0.5f * cosf(6.2831853f * (float)k / (float)taps);
		f->h[0][k] = w * (x == 0 ? 0.25f : sinf(0.785398f * x) / (3.1415927f * x));
		f->h[1][k] = w * (x == 0 ? 0.125f : sinf(0.392699f * x) / (3.1415927f * x));
	}
	return 0;
}

/* One period: in (frames samples) into the history, both filters into out[0] and out[1]. */
static void fir_run(struct fir *f, const float *in, float *out[2], size_t frames)
{
	size_t keep = (size_t)f->taps - 1;
	memmove(f->hist, f->hist + frames, keep * sizeof(float));
	memcpy(f->hist + keep, in, frames * sizeof(float));
	for (int c = 0; c < 2; c++) {
		const float *h = f->h[c];
		for (size_t n = 0; n < frames; n++) {
			const float *x = f->hist + n + keep;
			float acc = 0;
			for (int k = 0; k < f->taps; k++)
				acc += h[k] * x[-k];
			out[c][n] = acc;
		}
	}
}

static int on_process(jack_nframes_t nframes, void *arg)
{
	float *in = jack_port_get_buffer(in_port, nframes);
	float *out[2] = { jack_port_get_buffer(out_port[0], nframes),
			  jack_port_get_buffer(out_port[1], nframes) };
	(void)arg;
	if (process_rt < 0)
		process_rt = bench_kernel_policy() == SCHED_FIFO || bench_kernel_policy() == SCHED_RR;
	if (nframes > fir.frames)
		return 0;
	for (jack_nframes_t n = 0; n < nframes; n++) { /* the input plus a 440 Hz test tone */
		signal_in[n] = in[n] + 0.1f * sinf(phase);
		phase += 0.0575958f;
		if (phase > 6.2831853f)
			phase -= 6.2831853f;
	}
	fir_run(&fir, signal_in, out, nframes);
	cycles++;
	return 0;
}

static int on_xrun(void *arg)
{
	(void)arg;
	xruns++;
	return 0;
}

/* --taps: the filter's cost per tap on this machine (the fastest of many idle runs), scaled to
 * PERCENT of a period. */
static int calibrate(long frames, long rate, long percent)
{
	struct fir f;
	int trial = 256;
	float *in = calloc((size_t)frames, sizeof(float)), *o[2] = { calloc((size_t)frames, sizeof(float)),
								   calloc((size_t)frames, sizeof(float)) };
	if (frames < 1 || rate < 1 || percent < 1 || !in || !o[0] || !o[1] || fir_init(&f, trial, (size_t)frames))
		return 1;
	for (long i = 0; i < frames; i++)
		in[i] = sinf((float)i * 0.05f);
	int64_t best = INT64_MAX;
	for (int r = 0; r < 2000; r++) {
		int64_t t0 = bench_now_ns();
		fir_run(&f, in, o, (size_t)frames);
		int64_t t = bench_now_ns() - t0;
		if (t < best)
			best = t;
	}
	double period_ns = (double)frames * 1e9 / (double)rate;
	long taps = lround(trial * (period_ns * (double)percent / 100.0) / (double)(best > 0 ? best : 1));
	printf("%ld\n", taps < 1 ? 1 : taps > 65536 ? 65536 : taps);
	return 0;
}

int main(int argc, char **argv)
{
	jack_status_t status;
	jack_client_t *c = NULL;
	int i, early;

	if (argc == 5 && !strcmp(argv[1], "--taps"))
		return calibrate(strtol(argv[2], NULL, 10), strtol(argv[3], NULL, 10), strtol(argv[4], NULL, 10));
	if (argc != 4) {
		fprintf(stderr, "usage: jack-dsp SERVER SECONDS TAPS | jack-dsp --taps FRAMES RATE PERCENT\n");
		return 2;
	}
	long seconds = bench_arg(argc, argv, 2, 30), taps = bench_arg(argc, argv, 3, 64);
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
	if (taps < 1 || taps > 65536 || fir_init(&fir, (int)taps, jack_get_buffer_size(c)) ||
	    !(signal_in = calloc(jack_get_buffer_size(c), sizeof(float)))) {
		fprintf(stderr, "bad number of taps: %ld\n", taps);
		return 1;
	}
	in_port = jack_port_register(c, "in", JACK_DEFAULT_AUDIO_TYPE, JackPortIsInput, 0);
	out_port[0] = jack_port_register(c, "out_l", JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput, 0);
	out_port[1] = jack_port_register(c, "out_r", JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput, 0);
	if (!in_port || !out_port[0] || !out_port[1]) {
		fprintf(stderr, "jack_port_register failed\n");
		return 1;
	}
	jack_set_process_callback(c, on_process, NULL);
	jack_set_xrun_callback(c, on_xrun, NULL);
	if (jack_activate(c)) {
		fprintf(stderr, "jack_activate failed\n");
		return 1;
	}
	/* the signal path a player would have: capture -> filter -> playback (no error if the
	 * driver has no such ports) */
	jack_connect(c, "system:capture_1", jack_port_name(in_port));
	jack_connect(c, jack_port_name(out_port[0]), "system:playback_1");
	jack_connect(c, jack_port_name(out_port[1]), "system:playback_2");
	sleep(1);
	early = xruns;
	if (seconds > 1)
		sleep((unsigned)seconds - 1);
	jack_deactivate(c);
	jack_client_close(c);
	printf("%d %d %ld %d\n", xruns, xruns - early, cycles, process_rt);
	return 0;
}
