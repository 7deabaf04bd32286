/* client-loader.c — see client-loader.h.  The shim's client is found by the shim's own
 * location (dladdr, or /proc/self/maps when the loader only knows a relative name). */
#include "client-loader.h"
#include "client-open.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <string.h>

#include "log.h"
#include "procfs.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const struct rtshim_client_v1 *client;
static int load_timeout_ms;

static int own_dir(char *buf, size_t size)
{
	Dl_info info;
	if (dladdr((const void *)rtshim_client_get, &info) && info.dli_fname &&
	    info.dli_fname[0] == '/') {
		size_t len = strlen(info.dli_fname);
		if (len >= size)
			return -ENAMETOOLONG;
		memcpy(buf, info.dli_fname, len + 1);
	} else {
		int r = rtshim_proc_mapped_path((const void *)rtshim_client_get, buf, size);
		if (r < 0)
			return r;
	}
	char *slash = strrchr(buf, '/');
	if (!slash)
		return -ENOENT;
	slash[1] = '\0';
	return 0;
}

static void load(void)
{
	char dir[PATH_MAX], err[PATH_MAX + 128];
	const struct rtshim_client_v1 *c;
	int r = own_dir(dir, sizeof dir);
	if (r < 0) {
		rtshim_log_once(RTSHIM_LOG_WARN, r,
				"cannot locate the shim's own directory (%s): realtime requests are left as they are",
				rtshim_errno_name(r));
		return;
	}
	if (!rtshim_client_open(dir, &c, err, sizeof err)) {
		rtshim_log_once(RTSHIM_LOG_WARN, 0,
				"cannot load the daemon client (%s): realtime requests are left as they are",
				err);
		return;
	}
	c->set_timeout_ms(__atomic_load_n(&load_timeout_ms, __ATOMIC_RELAXED));
	rtshim_log(RTSHIM_LOG_DEBUG, "daemon client loaded from %s%s", dir, RTSHIM_CLIENT_FILE);
	__atomic_store_n(&client, c, __ATOMIC_RELEASE);
}

const struct rtshim_client_v1 *rtshim_client_get(int timeout_ms)
{
	__atomic_store_n(&load_timeout_ms, timeout_ms, __ATOMIC_RELAXED);
	pthread_once(&once, load);
	return __atomic_load_n(&client, __ATOMIC_ACQUIRE);
}
