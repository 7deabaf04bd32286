/* rt-busy — runaway realtime threads: each asks for SCHED_FIFO and then runs without ever
 * blocking, longer than RLIMIT_RTTIME.  Without a guard the kernel sends SIGKILL to the
 * process at the hard limit.
 * Usage: rt-busy [dfl|own|block] [SECONDS] [PRIO] [ROUNDS]   (default dfl 1 70 1)
 *   dfl        the program has no SIGXCPU handler
 *   own        the program installs its own SIGXCPU handler before asking for realtime
 *   block      the busy thread blocks SIGXCPU (another thread receives it)
 * A realtime busy thread runs until it is no longer realtime (at most 10 x SECONDS), a refused
 * one SECONDS.  ROUNDS busy threads run one after the other; each stays (parked) after its
 * loop so /proc can be read.  Prints "tid busyK N", "call setschedparamK ...", "kernel busyK POLICY PRIO",
 * then "handler-ran N", "handler-tid N" (own), "disposition ...", "survived". */
#include <semaphore.h>
#include <signal.h>
#include <stdbool.h>
#include <time.h>

#include "probe.h"

static volatile sig_atomic_t handler_ran, handler_tid;

static void own_handler(int sig)
{
	(void)sig;
	handler_ran++;
	handler_tid = (sig_atomic_t)probe_gettid();
}

static double seconds = 1;
static int prio = 70;
static int block;
static sem_t done;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool kernel_realtime(void)
{
	int policy = probe_kernel_policy(0) & ~SCHED_RESET_ON_FORK;
	return policy == SCHED_FIFO || policy == SCHED_RR;
}

static void *busy(void *arg)
{
	char label[32];
	int round = (int)(long)arg;
	if (block) {
		sigset_t s;
		sigemptyset(&s);
		sigaddset(&s, SIGXCPU);
		pthread_sigmask(SIG_BLOCK, &s, NULL);
	}
	snprintf(label, sizeof label, "busy%d", round);
	probe_tid(label);
	struct sched_param sp = { .sched_priority = prio };
	snprintf(label, sizeof label, "setschedparam%d", round);
	PROBE_PTHREAD(label, pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp));
	snprintf(label, sizeof label, "busy%d-start", round);
	probe_kernel(label);
	/* realtime: on until no longer realtime (the guard's demotion, the kernel's SIGKILL), at most
	 * 10 x SECONDS: RLIMIT_RTTIME counts timer ticks, and in a VM the ticks the host took are
	 * missing from it (see rt-signals' compute) */
	bool realtime = kernel_realtime();
	double end = now() + (realtime ? 10 * seconds : seconds);
	volatile unsigned long spins = 0;
	while (now() < end && (!realtime || kernel_realtime()))
		spins++;
	snprintf(label, sizeof label, "busy%d", round);
	probe_kernel(label);
	sem_post(&done);
	probe_park();
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "dfl";
	if (argc > 2)
		seconds = atof(argv[2]);
	if (argc > 3)
		prio = atoi(argv[3]);
	int rounds = argc > 4 ? atoi(argv[4]) : 1;
	sem_init(&done, 0, 0);
	block = !strcmp(mode, "block");
	probe_start();
	if (!strcmp(mode, "own")) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = own_handler;
		sigaction(SIGXCPU, &sa, NULL);
	}
	for (long i = 0; i < rounds; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, busy, (void *)i))
			break;
		while (sem_wait(&done) < 0 && errno == EINTR)
			;
	}
	probe_say("handler-ran %d", (int)handler_ran);
	if (handler_ran)
		probe_say("handler-tid %d", (int)handler_tid);
	struct sigaction cur;
	sigaction(SIGXCPU, NULL, &cur);
	probe_say("disposition %s", (cur.sa_flags & SA_SIGINFO) ? "siginfo-handler"
				    : cur.sa_handler == SIG_DFL ? "default"
				    : cur.sa_handler == SIG_IGN ? "ignore" : "handler");
	probe_say("survived");
	probe_wait();
	return 0;
}
