/* client-open.c — see client-open.h. */
#include "client-open.h"

#include <dlfcn.h>
#include <limits.h>
#include <string.h>

#include "format.h"
#include "rtkit-client.h"

void *rtshim_client_open(const char *dir, const struct rtshim_client_v1 **out, char *err,
			 size_t errlen)
{
	char path[PATH_MAX];
	size_t len = strlen(dir);
	const struct rtshim_client_v1 *c;
	const char *why;
	void *h;

	*out = NULL;
	if (dir[0] != '/') {
		rtshim_format(err, errlen, "%s: not an absolute directory", dir);
		return NULL;
	}
	while (len > 1 && dir[len - 1] == '/')
		len--;
	if (len + 1 + sizeof RTSHIM_CLIENT_FILE > sizeof path) {
		rtshim_format(err, errlen, "%s: path too long", dir);
		return NULL;
	}
	memcpy(path, dir, len);
	path[len] = '/';
	memcpy(path + len + 1, RTSHIM_CLIENT_FILE, sizeof RTSHIM_CLIENT_FILE);

	dlerror();
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		why = dlerror();
		rtshim_format(err, errlen, "%s", why ? why : path);
		return NULL;
	}
	c = dlsym(h, RTSHIM_CLIENT_SYMBOL);
	if (!c || !c->make_realtime || !c->get_limits || !c->set_timeout_ms || !c->strerror) {
		rtshim_format(err, errlen, "%s has no usable %s", path, RTSHIM_CLIENT_SYMBOL);
		dlclose(h);
		return NULL;
	}
	*out = c;
	return h;
}
