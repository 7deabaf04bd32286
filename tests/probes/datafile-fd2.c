/* datafile-fd2 — a program that writes a data file and asks for realtime, as a daemon does
 * after closing its standard descriptors: started with `2>&-`, its data file gets descriptor 2.
 *
 *   datafile-fd2 PATH [close]
 *
 * With "close", first closes descriptor 2 itself (as daemon code does after start-up).  Opens PATH (created, truncated), writes "record 1\n", asks sched_setscheduler(0, SCHED_FIFO,
 * 5), writes "record 2\n", has a new thread ask pthread_setschedparam(self, SCHED_FIFO, 6),
 * writes "record 3\n", asks nice(-5), writes "record 4\n" and exits 0.  On stdout: "pid N",
 * "fd2 closed-at-start=0|1", "data fd N", and one "call LABEL rc=R err=E" line per request. */
#include <fcntl.h>

#include "probe.h"

static int data_fd;

static void record(int n)
{
	char line[32];
	int len = snprintf(line, sizeof line, "record %d\n", n);
	if (write(data_fd, line, (size_t)len) != len)
		exit(3);
}

static void *thread_body(void *arg)
{
	struct sched_param sp = { .sched_priority = 6 };
	(void)arg;
	PROBE_PTHREAD("thread", pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp));
	return NULL;
}

int main(int argc, char **argv)
{
	struct sched_param sp = { .sched_priority = 5 };
	pthread_t t;

	if (argc < 2 || argc > 3)
		return 2;
	probe_start();
	probe_say("fd2 closed-at-start=%d", fcntl(2, F_GETFD) < 0);
	if (argc == 3 && strcmp(argv[2], "close") == 0)
		close(2);
	data_fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (data_fd < 0)
		return 3;
	probe_say("data fd %d", data_fd);

	record(1);
	PROBE_SCHED("self", sched_setscheduler(0, SCHED_FIFO, &sp));
	record(2);
	if (pthread_create(&t, NULL, thread_body, NULL))
		return 3;
	pthread_join(t, NULL);
	record(3);
	errno = 0;
	int r = nice(-5);
	probe_rc("nice", r, r == -1 ? errno : 0);
	record(4);
	return 0;
}
