/* refused-leaves — what a realtime request leaves in the process's signals and RLIMIT_RTTIME,
 * read from the kernel (/proc/self/task/TID/status, the raw prlimit64), after the program went
 * on as a legacy program does: it blocks SIGXCPU in its main thread (a sigwait design) and sets
 * nothing else.
 * Usage: refused-leaves MODE
 *   self      the main thread asks sched_setscheduler(0, SCHED_FIFO, 10), then blocks SIGXCPU
 *   handler   the same after installing its own SIGXCPU handler (SA_RESTART)
 *   worker    a thread asks pthread_setschedparam(self, SCHED_FIFO, 10) and stays; then the
 *             main thread, which never asked, blocks SIGXCPU
 * Lines: "call fifo rc=R err=E", "main sigxcpu caught=C blocked=B" (the kernel's SigCgt and the
 * main thread's SigBlk), "disposition H flags F" (sigaction's old action: dfl, ign, own),
 * "rttime SOFT HARD" (the kernel's, -1 for unlimited). */
#include <signal.h>
#include <sys/resource.h>

#include "probe.h"

static void own_handler(int sig)
{
	(void)sig;
}

/* Bit SIGXCPU of the hex mask after KEY in /proc/self/task/TID/status. */
static int status_bit(pid_t tid, const char *key)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/self/task/%d/status", (int)tid);
	FILE *f = fopen(path, "re");
	int bit = -1;
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, key, strlen(key))) {
			unsigned long long m = strtoull(line + strlen(key), NULL, 16);
			bit = (int)(m >> (SIGXCPU - 1) & 1);
		}
	fclose(f);
	return bit;
}

static void *worker(void *arg)
{
	struct sched_param sp = { .sched_priority = 10 };
	PROBE_PTHREAD("fifo", pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp));
	__atomic_store_n((int *)arg, 1, __ATOMIC_RELEASE);
	probe_park();
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "self";
	pid_t main_tid = probe_gettid();
	probe_start();
	if (!strcmp(mode, "handler")) {
		struct sigaction sa = { .sa_handler = own_handler, .sa_flags = SA_RESTART };
		sigemptyset(&sa.sa_mask);
		sigaction(SIGXCPU, &sa, NULL);
	}
	if (!strcmp(mode, "worker")) {
		static int asked;
		pthread_t t;
		pthread_create(&t, NULL, worker, &asked);
		while (!__atomic_load_n(&asked, __ATOMIC_ACQUIRE))
			sched_yield();
	} else {
		struct sched_param sp = { .sched_priority = 10 };
		PROBE_SCHED("fifo", sched_setscheduler(0, SCHED_FIFO, &sp));
	}
	sigset_t x;
	sigemptyset(&x);
	sigaddset(&x, SIGXCPU);
	sigprocmask(SIG_BLOCK, &x, NULL);

	probe_say("main sigxcpu caught=%d blocked=%d", status_bit(main_tid, "SigCgt:"),
		  status_bit(main_tid, "SigBlk:"));
	struct sigaction old;
	sigaction(SIGXCPU, NULL, &old);
	probe_say("disposition %s flags %#x",
		  old.sa_handler == SIG_DFL ? "dfl" : old.sa_handler == SIG_IGN ? "ign"
		  : old.sa_handler == own_handler ? "own" : "other",
		  (unsigned)old.sa_flags);
	struct rlimit rl; /* the kernel's: the system call, not getrlimit */
	syscall(SYS_prlimit64, 0, RLIMIT_RTTIME, NULL, &rl);
	probe_say("rttime %lld %lld", rl.rlim_cur == RLIM_INFINITY ? -1LL : (long long)rl.rlim_cur,
		  rl.rlim_max == RLIM_INFINITY ? -1LL : (long long)rl.rlim_max);
	return 0;
}
