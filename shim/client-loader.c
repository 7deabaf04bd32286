/* client-loader.c — see client-loader.h.  The client is found by the shim's own location
 * (dladdr, or /proc/self/maps when the loader only knows a relative name): never through ".",
 * LD_LIBRARY_PATH or the default search path. */
#include "client-loader.h"

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
	char path[PATH_MAX];
	int r = own_dir(path, sizeof path);
	if (r < 0) {
		rtshim_log_once(RTSHIM_LOG_WARN, r,
				"cannot locate the shim's own directory (%s): realtime requests are left as they are",
				rtshim_errno_name(r));
		return;
	}
	size_t len = strlen(path);
	if (len + sizeof RTSHIM_CLIENT_FILE > sizeof path)
		return;
	memcpy(path + len, RTSHIM_CLIENT_FILE, sizeof RTSHIM_CLIENT_FILE);

	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *err = dlerror();
		rtshim_log_once(RTSHIM_LOG_WARN, 0,
				"cannot load the daemon client (%s): realtime requests are left as they are",
				err ? err : path);
		return;
	}
	const struct rtshim_client_v1 *c = dlsym(h, RTSHIM_CLIENT_SYMBOL);
	if (!c || !c->make_realtime || !c->get_limits) {
		rtshim_log_once(RTSHIM_LOG_WARN, 1,
				"%s has no usable %s: realtime requests are left as they are", path,
				RTSHIM_CLIENT_SYMBOL);
		dlclose(h);
		return;
	}
	if (c->set_timeout_ms)
		c->set_timeout_ms(__atomic_load_n(&load_timeout_ms, __ATOMIC_RELAXED));
	rtshim_log(RTSHIM_LOG_DEBUG, "daemon client loaded from %s", path);
	__atomic_store_n(&client, c, __ATOMIC_RELEASE);
}

const struct rtshim_client_v1 *rtshim_client_get(int timeout_ms)
{
	__atomic_store_n(&load_timeout_ms, timeout_ms, __ATOMIC_RELAXED);
	pthread_once(&once, load);
	return __atomic_load_n(&client, __ATOMIC_ACQUIRE);
}
