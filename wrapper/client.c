/* client.c — the daemon client for rtrun: the request client is linked in (libc only,
 * daemon-client/rtkit-client.h); only --check's doctor, which speaks libdbus-1, is loaded on
 * first need: librtshim-client.so from the directory of the shim rtrun found
 * (rtrun_locate_shim), never from "." or a search path.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "doctor-open.h"
#include "rtkit-client.h"
#include "rtrun.h"

static const struct rtshim_doctor_v1 *doctor;
static bool tried;
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
	doctor = rtshim_doctor_open(dir, why, sizeof why);
	if (doctor)
		rtrun_log(RTRUN_DEBUG, "daemon client loaded from %s%s", dir, RTSHIM_CLIENT_FILE);
}

const struct rtshim_client_v1 *rtrun_client(void)
{
	return &rtshim_client_v1;
}

const struct rtshim_doctor_v1 *rtrun_doctor(void)
{
	if (!tried)
		load();
	return doctor;
}

const char *rtrun_client_error(void)
{
	return why[0] ? why : "not loaded";
}

void rtrun_client_set_timeout_ms(int ms)
{
	rtshim_client_v1.set_timeout_ms(ms);
}

const char *rtrun_rtkit_strerror(int err)
{
	if (err == -RTRUN_ENOCLIENT || err == RTRUN_ENOCLIENT)
		return rtrun_client_error();
	return rtkit_strerror(err);
}
