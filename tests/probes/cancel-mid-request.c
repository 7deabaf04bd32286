/* cancel-mid-request — threads that ask for realtime and are cancelled while their request is
 * under way (pthread_cancel, deferred cancellation: the default), then a request from another
 * thread and a fork, as a program that cancels its worker threads at shutdown does.
 *
 *   cancel-mid-request ROUNDS STEP_US PRIO
 *
 * Each round i (0..ROUNDS-1): a new thread calls pthread_setschedparam(self, SCHED_RR, PRIO);
 * the main thread cancels it i*STEP_US + STEP_US microseconds after the thread started asking,
 * and joins it ("round I cancelled=0|1").  Then the probe prints "asked" and waits for one line
 * on stdin (so a test can resume a stopped daemon), and:
 *   - a new thread asks pthread_setschedparam(self, SCHED_RR, PRIO) until granted (50 times
 *     at most, 100 ms apart), prints "attempts after N", "call after rc=R err=E",
 *     "tid after N", "kernel after POLICY PRIO" and stays alive;
 *   - the main thread forks (the child exits at once) and prints "fork elapsed_ms=N exit=S";
 * then "ready", and it waits for stdin to close. */
#include <semaphore.h>
#include <sys/wait.h>
#include <time.h>

#include "probe.h"

static int prio;
static sem_t asking, after_done;

static long long now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void *cancelled_body(void *arg)
{
	struct sched_param sp = { .sched_priority = prio };
	(void)arg;
	sem_post(&asking);
	pthread_setschedparam(pthread_self(), SCHED_RR, &sp);
	/* not cancelled during the request: a cancellation point of our own */
	for (;;)
		pause();
	return NULL;
}

static void *after_body(void *arg)
{
	struct sched_param sp = { .sched_priority = prio };
	int e, attempts = 0;
	(void)arg;
	/* A daemon that was silent is asked by one request at a time with a short bound until it
	 * answers (rtkit-client.c): on a loaded machine the first answer may miss that bound, so
	 * ask again, 100 ms apart, as a program that retries does; a process the cancelled thread
	 * broke is refused every time. */
	do {
		if (attempts)
			usleep(100000);
		e = pthread_setschedparam(pthread_self(), SCHED_RR, &sp);
	} while (e == EPERM && ++attempts < 50);
	probe_say("attempts after %d", attempts + (e != EPERM));
	probe_rc("after", e, e);
	probe_tid("after");
	probe_kernel("after");
	sem_post(&after_done);
	probe_park();
	return NULL;
}

int main(int argc, char **argv)
{
	char line[64];
	int rounds, step_us;
	pthread_t t;
	void *res;

	if (argc != 4) {
		fprintf(stderr, "usage: cancel-mid-request ROUNDS STEP_US PRIO\n");
		return 2;
	}
	rounds = atoi(argv[1]);
	step_us = atoi(argv[2]);
	prio = atoi(argv[3]);
	sem_init(&asking, 0, 0);
	sem_init(&after_done, 0, 0);
	probe_start();

	for (int i = 0; i < rounds; i++) {
		if (pthread_create(&t, NULL, cancelled_body, NULL)) {
			probe_say("pthread_create failed");
			return 1;
		}
		while (sem_wait(&asking) < 0 && errno == EINTR)
			;
		long long until = now_us() + (long long)(i + 1) * step_us;
		while (now_us() < until)
			; /* spin: a sleep would be rounded up to the timer slack */
		pthread_cancel(t);
		pthread_join(t, &res);
		probe_say("round %d cancelled=%d", i, res == PTHREAD_CANCELED);
	}

	probe_say("asked");
	if (!fgets(line, sizeof line, stdin))
		return 1;

	if (pthread_create(&t, NULL, after_body, NULL)) {
		probe_say("pthread_create failed");
		return 1;
	}
	while (sem_wait(&after_done) < 0 && errno == EINTR)
		;

	long long t0 = now_us();
	pid_t child = fork();
	if (child == 0)
		_exit(0);
	int status = -1;
	if (child > 0)
		waitpid(child, &status, 0);
	probe_say("fork elapsed_ms=%lld exit=%d", (now_us() - t0) / 1000,
		  child > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1);

	probe_wait();
	return 0;
}
