/* secure-probe — for the secure-execution tests: installed set-user-ID, it must find the shim
 * inert.  The set-user-ID loader ignores an LD_PRELOAD path, so the probe loads the shim itself
 * (dlopen by absolute path: allowed in secure execution) and calls the shim's own interposers
 * through dlsym on that handle.  It defines getenv and secure_getenv (exported: -rdynamic), so
 * every lookup of an RTSHIM_* variable by the shim is counted.
 *   secure-probe SHIM|- PRIO
 * Reports "secure at_secure=S ruid=R euid=E", "call setscheduler rc=.. err=..",
 * "call setschedparam rc=.. err=..", "kernel main POLICY PRIO", "env rtshim_reads=N",
 * "maps shim=yes|no" (is a librtshim.so mapped at all).  With "-", the libc functions are
 * called as any program calls them (the shim interposes them if the loader preloaded it). */
// link: -rdynamic -ldl
#include <dlfcn.h>
#include <sys/auxv.h>

#include "probe.h"

static int rtshim_reads;

/* The ASan build (tests/run's second pass): LeakSanitizer cannot stop the world in a
 * set-user-ID process (not dumpable), and the runtime does not read ASAN_OPTIONS there. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "detect_leaks=0";
}

static void count(const char *name)
{
	if (name && !strncmp(name, "RTSHIM_", 7))
		__atomic_add_fetch(&rtshim_reads, 1, __ATOMIC_RELAXED);
}

char *getenv(const char *name)
{
	static char *(*real)(const char *);
	if (!real)
		real = (char *(*)(const char *))dlsym(RTLD_NEXT, "getenv");
	count(name);
	return real ? real(name) : NULL;
}

char *secure_getenv(const char *name)
{
	static char *(*real)(const char *);
	if (!real)
		real = (char *(*)(const char *))dlsym(RTLD_NEXT, "secure_getenv");
	count(name);
	return real ? real(name) : NULL;
}

static int shim_mapped(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[1024];
	int found = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (strstr(line, "librtshim.so"))
			found = 1;
	fclose(f);
	return found;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	int prio = atoi(argv[2]);
	int (*setscheduler)(pid_t, int, const struct sched_param *) = sched_setscheduler;
	int (*setschedparam)(pthread_t, int, const struct sched_param *) = pthread_setschedparam;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(argv[1], "-")) {
		void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			printf("dlopen failed: %s\n", dlerror());
			return 1;
		}
		setscheduler = (int (*)(pid_t, int, const struct sched_param *))dlsym(h, "sched_setscheduler");
		setschedparam = (int (*)(pthread_t, int, const struct sched_param *))dlsym(h, "pthread_setschedparam");
		if (!setscheduler || !setschedparam) {
			printf("dlsym failed\n");
			return 1;
		}
	}
	printf("secure at_secure=%lu ruid=%d euid=%d\n", getauxval(AT_SECURE), (int)getuid(),
	       (int)geteuid());
	struct sched_param sp = { .sched_priority = prio };
	errno = 0;
	int r = setscheduler(0, SCHED_FIFO, &sp);
	printf("call setscheduler rc=%d err=%s\n", r, probe_errname(r < 0 ? errno : 0));
	r = setschedparam(pthread_self(), SCHED_FIFO, &sp);
	printf("call setschedparam rc=%d err=%s\n", r, probe_errname(r));
	pid_t t = probe_gettid();
	printf("kernel main %s %d\n", probe_policy(probe_kernel_policy(t)), probe_kernel_prio(t));
	printf("env rtshim_reads=%d\n", __atomic_load_n(&rtshim_reads, __ATOMIC_RELAXED));
	printf("maps shim=%s\n", shim_mapped() == 1 ? "yes" : "no");
	return 0;
}
