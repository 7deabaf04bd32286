/* doctor-open.c — see doctor-open.h. */
#include "doctor-open.h"

#include <dlfcn.h>
#include <limits.h>
#include <string.h>

#include "format.h"
#include "rtkit-client.h"

const struct rtshim_doctor_v1 *rtshim_doctor_open(const char *dir, char *err, size_t errlen)
{
	char path[PATH_MAX];
	size_t len = strlen(dir);
	const struct rtshim_doctor_v1 *d;
	const char *why;
	void *h;

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
	d = dlsym(h, RTSHIM_DOCTOR_SYMBOL);
	if (!d || !d->bus_probe) {
		rtshim_format(err, errlen, "%s has no usable %s", path, RTSHIM_DOCTOR_SYMBOL);
		dlclose(h);
		return NULL;
	}
	return d;
}
