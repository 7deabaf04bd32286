/* rt-mlock — what a realtime request adds to the address space, against mlockall(MCL_CURRENT):
 * cyclictest -m, pi_stress -m, jackd lock all their memory right after asking for realtime, and
 * MCL_CURRENT counts the whole address space against RLIMIT_MEMLOCK (8 MiB by default).
 * Usage: rt-mlock [PRIO [single|thread|waiter]]   (default 10 single: the main thread alone;
 * else one more thread exists before the request and waits until the end: thread: it has
 * malloc'ed, as in most real programs, and so has a malloc arena of its own (64 MiB of address
 * space); waiter: it has a 64 KiB stack and no arena, small enough for mlockall under an 8 MiB
 * RLIMIT_MEMLOCK)
 * Prints "vm before KB", "rss before KB", "call setscheduler ...", "vm after KB", "rss after KB",
 * "kernel main POLICY PRIO", "threads N", "call mlockall rc=R err=E", "lck after KB" (VmLck),
 * "rss locked KB", then exits 0. */
#include <stdbool.h>
#include <sys/mman.h>

#include "probe.h"

static long vm_kb(const char *field)
{
	char line[128];
	long v = -1;
	size_t n = strlen(field);
	FILE *f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, field, n))
			v = atol(line + n);
	if (f)
		fclose(f);
	return v;
}

static int ready[2], done[2];
static void *volatile kept; /* volatile: the compiler may not drop the malloc */

/* a worker as real programs have: it has its own malloc arena by now */
static void *worker(void *p)
{
	char c;
	if (p)
		kept = malloc(256);
	if (write(ready[1], "", 1) != 1)
		return p;
	while (read(done[0], &c, 1) < 0 && errno == EINTR)
		;
	free(kept);
	return NULL;
}

int main(int argc, char **argv)
{
	struct sched_param sp = { .sched_priority = argc > 1 ? atoi(argv[1]) : 10 };
	bool mallocs = argc > 2 && !strcmp(argv[2], "thread");
	bool thread = mallocs || (argc > 2 && !strcmp(argv[2], "waiter"));
	pthread_attr_t attr;
	pthread_t t;
	char c;
	probe_start();
	if (thread) {
		pthread_attr_init(&attr);
		if (!mallocs)
			pthread_attr_setstacksize(&attr, 64 * 1024);
		if (pipe(ready) || pipe(done) || pthread_create(&t, &attr, worker, mallocs ? &c : NULL) ||
		    read(ready[0], &c, 1) != 1)
			return 1;
	}
	probe_say("vm before %ld", vm_kb("VmSize:"));
	probe_say("rss before %ld", vm_kb("VmRSS:"));
	PROBE_SCHED("setscheduler", sched_setscheduler(0, SCHED_FIFO, &sp));
	probe_say("vm after %ld", vm_kb("VmSize:"));
	probe_say("rss after %ld", vm_kb("VmRSS:"));
	probe_kernel("main");
	probe_say("threads %ld", vm_kb("Threads:"));
	int r = mlockall(MCL_CURRENT);
	probe_rc("mlockall", r, r ? errno : 0);
	probe_say("lck after %ld", vm_kb("VmLck:"));
	probe_say("rss locked %ld", vm_kb("VmRSS:"));
	if (thread && (close(done[1]) || pthread_join(t, NULL)))
		return 1;
	return 0;
}
