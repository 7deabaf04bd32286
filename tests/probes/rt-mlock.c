/* rt-mlock — what a realtime request adds to the address space, against mlockall(MCL_CURRENT):
 * cyclictest -m, pi_stress -m, jackd lock all their memory right after asking for realtime, and
 * MCL_CURRENT counts the whole address space against RLIMIT_MEMLOCK (8 MiB by default).
 * Usage: rt-mlock [PRIO]   (default 10)
 * Prints "vm before KB", "call setscheduler ...", "vm after KB", "kernel main POLICY PRIO",
 * "threads N", "mlockall rc=R err=E", then exits 0. */
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

int main(int argc, char **argv)
{
	struct sched_param sp = { .sched_priority = argc > 1 ? atoi(argv[1]) : 10 };
	probe_start();
	probe_say("vm before %ld", vm_kb("VmSize:"));
	PROBE_SCHED("setscheduler", sched_setscheduler(0, SCHED_FIFO, &sp));
	probe_say("vm after %ld", vm_kb("VmSize:"));
	probe_say("rss after %ld", vm_kb("VmRSS:"));
	probe_kernel("main");
	probe_say("threads %ld", vm_kb("Threads:"));
	int r = mlockall(MCL_CURRENT);
	probe_rc("mlockall", r, r ? errno : 0);
	return 0;
}
