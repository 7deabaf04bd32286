/* idle — figure 5: the memory of a program that never asks for RT.
 *
 *   idle        prints "rss_kib anon_kib file_kib libdbus shim" (libdbus, shim: 1 if mapped)
 *
 * It does what every threaded program does (creates and joins a thread, reads its own policy)
 * so the shim's hooks run, then reads VmRSS, RssAnon, RssFile from /proc/self/status and looks
 * for libdbus-1 and librtshim in /proc/self/maps.
 */
#include "bench.h"

static void *nothing(void *arg)
{
	return arg;
}

static long status_kib(const char *key)
{
	char line[256];
	long v = -1;
	size_t n = strlen(key);
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':')
			v = strtol(line + n + 1, NULL, 10);
	if (f)
		fclose(f);
	return v;
}

static int mapped(const char *name)
{
	char line[512];
	int found = 0;
	FILE *f = fopen("/proc/self/maps", "re");

	while (f && fgets(line, sizeof(line), f))
		found |= strstr(line, name) != NULL;
	if (f)
		fclose(f);
	return found;
}

int main(void)
{
	struct sched_param sp;
	pthread_t t;
	int policy;

	if (pthread_create(&t, NULL, nothing, NULL) || pthread_join(t, NULL))
		return 1;
	policy = sched_getscheduler(0);
	pthread_getschedparam(pthread_self(), &policy, &sp);
	printf("%ld %ld %ld %d %d\n", status_kib("VmRSS"), status_kib("RssAnon"),
	       status_kib("RssFile"), mapped("libdbus-1"), mapped("librtshim"));
	return 0;
}
