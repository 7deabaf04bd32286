/* client.c — the daemon client for rtrun, loaded on first need.
 *
 * rtrun itself links libc only: starting a command must not load libdbus-1 and what it
 * pulls in.  Only what talks to the bus (-p when the direct call is refused, --pid, --check)
 * loads librtshim-client.so, through the shim's loader, from the directory of the shim
 * rtrun found (rtrun_locate_shim): never from "." or a search path.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "client-open.h"
#include "rtkit-client.h"
#include "rtrun.h"

static const struct rtshim_client_v1 *client;
static const struct rtshim_doctor_v1 *doctor;
static void *handle;
static bool tried;
static int timeout_ms;
static char why[2 * PATH_MAX + 256];

static void load(void)
{
	struct rtrun_shim shim;
	char dir[PATH_MAX], *slash;
	int r;

	tried = true;
	r = rtrun_locate_shim(&shim);
	if (r == -ENOENT) {
		snprintf(why, sizeof why, "%s not found (looked for %s%s%s), and %s is looked for "
			 "beside it", RTRUN_SHIM_FILE, shim.tried[0], shim.tried[0][0] &&
			 shim.tried[1][0] ? " and " : "", shim.tried[1], RTSHIM_CLIENT_FILE);
		return;
	}
	/* -EINVAL (a path LD_PRELOAD cannot carry) does not matter to dlopen. */
	snprintf(dir, sizeof dir, "%s", shim.native);
	slash = strrchr(dir, '/');
	if (!slash || dir[0] != '/') {
		snprintf(why, sizeof why, "%s: no directory", shim.native);
		return;
	}
	slash[1] = '\0';
	handle = rtshim_client_open(dir, &client, why, sizeof why);
	if (!handle)
		return;
	if (timeout_ms > 0)
		client->set_timeout_ms(timeout_ms);
	rtrun_log(RTRUN_DEBUG, "daemon client loaded from %s%s", dir, RTSHIM_CLIENT_FILE);
}

const struct rtshim_client_v1 *rtrun_client(void)
{
	if (!tried)
		load();
	return client;
}

const struct rtshim_doctor_v1 *rtrun_doctor(void)
{
	const struct rtshim_doctor_v1 *d;

	if (doctor || !rtrun_client())
		return doctor;
	d = dlsym(handle, RTSHIM_DOCTOR_SYMBOL);
	if (!d || !d->bus_probe) {
		snprintf(why, sizeof why, "%s has no usable %s", RTSHIM_CLIENT_FILE,
			 RTSHIM_DOCTOR_SYMBOL);
		return NULL;
	}
	doctor = d;
	return doctor;
}

const char *rtrun_client_error(void)
{
	return why[0] ? why : "not loaded";
}

void rtrun_client_set_timeout_ms(int ms)
{
	timeout_ms = ms;
	if (client)
		client->set_timeout_ms(ms);
}

const char *rtrun_rtkit_strerror(int err)
{
	if (err == -RTRUN_ENOCLIENT || err == RTRUN_ENOCLIENT)
		return rtrun_client_error();
	return client ? client->strerror(err) : strerror(err < 0 ? -err : err);
}
