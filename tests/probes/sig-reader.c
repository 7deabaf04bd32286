/* sig-reader — a SIGALRM handler (setitimer, every 100 µs) reads the scheduling of another,
 * long-lived thread (sched_getscheduler(tid), pthread_getschedparam(thread)) while eight threads
 * keep starting and joining short-lived threads, so the handler often interrupts a thread that
 * is starting or ending.  Runs SECONDS (default 3), then prints what the handler saw and exits 0.
 *   handler-runs N / handler-errors N / threads N
 * Usage: sig-reader [SECONDS] */
#include <signal.h>
#include <sys/time.h>
#include <time.h>

#include "probe.h"

#define CHURNERS 8
#define PERIOD_US 100

static pthread_t sleeper;
static pid_t sleeper_tid;
static volatile sig_atomic_t stop;
static unsigned long runs, errors, started;

static void on_alarm(int sig)
{
	(void)sig;
	int saved = errno, policy;
	struct sched_param sp;
	if (sched_getscheduler(sleeper_tid) != SCHED_OTHER)
		__atomic_fetch_add(&errors, 1, __ATOMIC_RELAXED);
	if (pthread_getschedparam(sleeper, &policy, &sp) != 0 || policy != SCHED_OTHER)
		__atomic_fetch_add(&errors, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&runs, 1, __ATOMIC_RELAXED);
	errno = saved;
}

static void *sleeper_main(void *p)
{
	(void)p;
	__atomic_store_n(&sleeper_tid, probe_gettid(), __ATOMIC_RELEASE);
	for (;;)
		pause();
	return NULL;
}

static void *nothing(void *p)
{
	return p;
}

static void *churn(void *p)
{
	(void)p;
	sigset_t alrm;
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	pthread_sigmask(SIG_UNBLOCK, &alrm, NULL); /* here and in the threads it starts */
	while (!stop) {
		pthread_t t;
		if (pthread_create(&t, NULL, nothing, NULL) == 0) {
			pthread_join(t, NULL);
			__atomic_fetch_add(&started, 1, __ATOMIC_RELAXED);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int seconds = argc > 1 ? atoi(argv[1]) : 3;
	sigset_t alrm;
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &alrm, NULL); /* main and the sleeper never take it */
	probe_start();
	pthread_create(&sleeper, NULL, sleeper_main, NULL);
	while (!__atomic_load_n(&sleeper_tid, __ATOMIC_ACQUIRE))
		usleep(1000);

	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = { .it_interval = { 0, PERIOD_US }, .it_value = { 0, PERIOD_US } };
	setitimer(ITIMER_REAL, &it, NULL);

	pthread_t c[CHURNERS];
	for (int i = 0; i < CHURNERS; i++)
		pthread_create(&c[i], NULL, churn, NULL);
	struct timespec ts = { .tv_sec = seconds };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
	stop = 1;
	for (int i = 0; i < CHURNERS; i++)
		pthread_join(c[i], NULL);
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, NULL);
	probe_say("handler-runs %lu", __atomic_load_n(&runs, __ATOMIC_RELAXED));
	probe_say("handler-errors %lu", __atomic_load_n(&errors, __ATOMIC_RELAXED));
	probe_say("threads %lu", __atomic_load_n(&started, __ATOMIC_RELAXED));
	return 0;
}
