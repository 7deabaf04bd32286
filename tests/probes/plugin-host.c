/* plugin-host — dlopens a plugin beside this program (default libplugin-rt.so, whose
 * constructor waits for a thread that asks for SCHED_FIFO 10; or libplugin-create.so).  Prints
 * how long dlopen took, what the plugin's RT thread got (call result and the kernel's view),
 * then asks SCHED_FIFO 10 for itself (a later request, after the plugin is loaded) and exits.
 * Usage: plugin-host [PLUGIN.so]
 *   dlopen-ms N / plugin-wait OK|ETIMEDOUT / call plugin rc=R err=E / kernel plugin POLICY PRIO
 *   call host rc=R err=E / kernel host POLICY PRIO */
// link: -ldl
#include <dlfcn.h>
#include <limits.h>
#include <time.h>

#include "probe.h"

typedef void result_fn(int *, int *, int *, int *);

static long long ms_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	char path[PATH_MAX];
	const char *lib = argc > 1 ? argv[1] : "libplugin-rt.so";
	ssize_t n = readlink("/proc/self/exe", path, sizeof path);
	if (n <= 0 || (size_t)n + strlen(lib) >= sizeof path)
		return 2;
	path[n] = '\0';
	strcpy(strrchr(path, '/') + 1, lib);
	probe_start();

	long long t0 = ms_now();
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	long long took = ms_now() - t0;
	if (!h) {
		probe_say("dlopen failed: %s", dlerror());
		return 2;
	}
	probe_say("dlopen-ms %lld", took);
	result_fn *res = (result_fn *)dlsym(h, "plugin_rt_result");
	int rc, pol, prio, waited;
	res(&rc, &pol, &prio, &waited);
	probe_say("plugin-wait %s", probe_errname(waited));
	probe_rc("plugin", rc, rc);
	probe_say("kernel plugin %s %d", probe_policy(pol), prio);

	struct sched_param sp = { .sched_priority = 10 };
	PROBE_PTHREAD("host", pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp));
	probe_kernel("host");
	return 0;
}
