/* rt-signals — realtime programs that do their own thing with SIGXCPU, then overrun
 * RLIMIT_RTTIME once and end normally.  Without rtshim they get EPERM, run SCHED_OTHER and exit 0;
 * the runaway guard must let them do the same when rtkit made them realtime.
 * Usage: rt-signals MODE [MS] [PRIO]   (default MS 300, PRIO 10)
 *   sigwait           main blocks every signal before it creates any thread (the sigwait
 *                     design: a thread sigwaits for SIGINT/SIGTERM/SIGHUP); a worker asks
 *                     pthread_setschedparam(self, SCHED_FIFO, PRIO) and computes MS ms of CPU
 *                     without blocking
 *   handler           the worker installs its own SIGXCPU handler with sigaction after the
 *                     grant, then computes; main then sends itself SIGXCPU (kill) and waits
 *                     for the handler to see it
 *   handler-signal    the same with signal(2)
 *   ignore            the worker sets SIGXCPU to SIG_IGN with sigaction after the grant
 *   ignore-signal     the same with signal(2)
 *   main              no thread: the main thread computes MS ms of CPU (made realtime from
 *                     outside, by rtrun -p)
 * Prints "call setschedparam ...", "kernel LABEL-start/-end POLICY PRIO" (the kernel's view,
 * before and after the computation), "disposition own|ignore|default|other", "handler
 * kernel=N user=N plain=N" (what the handler saw so far: SI_KERNEL, other, signal(2)'s),
 * "kill-seen yes|no", and "done" before exiting 0. */
#include <signal.h>
#include <time.h>

#include "probe.h"

static const char *mode;
static double ms = 300;
static int prio = 10;
static volatile sig_atomic_t from_kernel, from_user, plain_seen;

static void own_siginfo(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	if (si && si->si_code == SI_KERNEL)
		from_kernel++;
	else
		from_user++;
}

static void own_plain(int sig)
{
	(void)sig;
	plain_seen++; /* a signal(2) handler cannot tell where it came from */
}

static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* MS ms of CPU without a system call that sleeps. */
static void compute(const char *label)
{
	char l[64];
	snprintf(l, sizeof l, "%s-start", label);
	probe_kernel(l);
	double end = cpu_ms() + ms;
	volatile unsigned long spins = 0;
	while (cpu_ms() < end)
		spins++;
	snprintf(l, sizeof l, "%s-end", label);
	probe_kernel(l);
}

static void *sigwaiter(void *p)
{
	(void)p;
	sigset_t set;
	int sig;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	for (;;)
		if (sigwait(&set, &sig) == 0)
			probe_say("sigwait got %d", sig);
	return NULL;
}

static void *worker(void *p)
{
	(void)p;
	struct sched_param sp = { .sched_priority = prio };
	if (PROBE_PTHREAD("setschedparam", pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp)))
		probe_say("not realtime");
	if (!strcmp(mode, "handler")) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = own_siginfo;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGXCPU, &sa, NULL);
	} else if (!strcmp(mode, "handler-signal")) {
		signal(SIGXCPU, own_plain);
	} else if (!strcmp(mode, "ignore")) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = SIG_IGN;
		sigaction(SIGXCPU, &sa, NULL);
	} else if (!strcmp(mode, "ignore-signal")) {
		signal(SIGXCPU, SIG_IGN);
	}
	compute("worker");
	return NULL;
}

static const char *disposition(void)
{
	struct sigaction cur;
	sigaction(SIGXCPU, NULL, &cur);
	if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == own_siginfo)
		return "own";
	if (!(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == own_plain)
		return "own";
	if (!(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_IGN)
		return "ignore";
	if (!(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_DFL)
		return "default";
	return "other";
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	mode = argv[1];
	if (argc > 2)
		ms = atof(argv[2]);
	if (argc > 3)
		prio = atoi(argv[3]);
	probe_start();
	if (!strcmp(mode, "main")) {
		compute("main");
		probe_say("done");
		return 0;
	}
	pthread_t w, s;
	if (!strcmp(mode, "sigwait")) {
		sigset_t all;
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, NULL);
		pthread_create(&s, NULL, sigwaiter, NULL);
	}
	if (pthread_create(&w, NULL, worker, NULL))
		return 3;
	pthread_join(w, NULL);
	probe_say("disposition %s", disposition());
	if (!strncmp(mode, "handler", 7)) {
		/* a SIGXCPU that is not RLIMIT_RTTIME's still reaches the program's handler */
		int before = from_user + plain_seen;
		probe_say("handler kernel=%d user=%d plain=%d", (int)from_kernel, (int)from_user, (int)plain_seen);
		kill(getpid(), SIGXCPU);
		struct timespec t = { 0, 10 * 1000 * 1000 };
		for (int i = 0; i < 200 && from_user + plain_seen == before; i++)
			nanosleep(&t, NULL);
		probe_say("kill-seen %s", from_user + plain_seen > before ? "yes" : "no");
	}
	probe_say("done");
	return 0;
}
