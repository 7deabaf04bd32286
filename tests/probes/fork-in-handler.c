/* fork-in-handler — a signal handler that forks (fork is async-signal-safe) while the thread it
 * interrupts asks for realtime and drops it again, over and over.  Another thread sends the
 * signal, waits until the handler has run, and sends the next GAP microseconds later: the
 * thread runs GAP between two handlers however long a fork takes (under ASan, with its shadow
 * mappings, a fork took 40-100 ms: signals every 2 ms left the thread a few instructions
 * between handlers, and a 2 s run took minutes).  Usage: fork-in-handler [SECONDS [GAP [FORKS]]]  (default 3,
 * 200, 0): it runs SECONDS, then on until the handler has forked FORKS times (a busy machine
 * forks slower), 15 s at most.  Prints "forks F", "requests R", "granted G" and "done"; a
 * deadlock is a probe that never ends. */
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include "probe.h"

static volatile sig_atomic_t forks, handled, stop;
static pthread_t asker;
static long gap_us = 200;

static void on_signal(int sig)
{
	(void)sig;
	int saved = errno;
	pid_t c = fork();
	if (c == 0)
		_exit(0);
	if (c > 0 && waitpid(c, NULL, 0) == c)
		forks = forks + 1;
	handled = handled + 1;
	errno = saved;
}

static void *sender(void *arg)
{
	(void)arg;
	struct timespec gap = { 0, gap_us * 1000L }, poll = { 0, 50000 };
	while (!stop) {
		sig_atomic_t before = handled;
		pthread_kill(asker, SIGUSR1);
		/* the thread may have it blocked (inside the shim's request): then until it unblocks */
		while (handled == before && !stop)
			nanosleep(&poll, NULL);
		nanosleep(&gap, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int seconds = argc > 1 ? atoi(argv[1]) : 3, requests = 0, granted = 0;
	int min_forks = argc > 3 ? atoi(argv[3]) : 0;
	if (argc > 2)
		gap_us = atol(argv[2]);
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
	pthread_t t;
	probe_start();
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	asker = pthread_self();
	pthread_create(&t, NULL, sender, NULL);
	time_t start = time(NULL), end = start + seconds, last = start + 15;
	while (time(NULL) < end || (forks < min_forks && time(NULL) < last)) {
		struct sched_param rt = { .sched_priority = 10 }, other = { .sched_priority = 0 };
		requests++;
		if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &rt) == 0)
			granted++;
		pthread_setschedparam(pthread_self(), SCHED_OTHER, &other);
	}
	stop = 1;
	pthread_join(t, NULL);
	probe_say("forks %d", (int)forks);
	probe_say("requests %d", requests);
	probe_say("granted %d", granted);
	probe_say("done");
	return 0;
}
