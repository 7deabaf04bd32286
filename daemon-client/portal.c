/* portal.c — which daemon the client talks to.
 *
 * On the host: rtkit-daemon itself, org.freedesktop.RealtimeKit1 on the system bus.
 * Inside a sandbox (sandbox.h: /.flatpak-info exists, or $SNAP is set and the process is
 * confined by a snap's AppArmor profile, or no label can be read): the Realtime portal,
 * org.freedesktop.portal.Realtime of org.freedesktop.portal.Desktop on the *session* bus. It
 * has rtkit's WithPID methods and its three properties, forwards to rtkit, and maps the
 * sandbox's PIDs to the host's. A sandboxed program cannot reach rtkit usefully (its PIDs mean
 * nothing outside), and on the host the portal is never used (it has broken callers there).
 * Decided once per process; there is no fallback from one to the other.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client-internal.h"
#include "sandbox.h"

static const struct rtshim_backend rtkit_backend = {
	.portal = 0,
	.service = RTKIT_SERVICE_NAME,
	.path = RTKIT_OBJECT_PATH,
	.interface = RTKIT_INTERFACE,
};

static const struct rtshim_backend portal_backend = {
	.portal = 1,
	.service = PORTAL_SERVICE_NAME,
	.path = PORTAL_OBJECT_PATH,
	.interface = PORTAL_REALTIME_INTERFACE,
};

/* decided once per process; two threads deciding at once decide the same */
static const struct rtshim_backend *chosen;

int rtshim_in_sandbox(void)
{
	return rtshim_sandbox_detect(secure_getenv) != RTSHIM_SANDBOX_NONE;
}

const struct rtshim_backend *rtshim_backend(void)
{
	const struct rtshim_backend *b = __atomic_load_n(&chosen, __ATOMIC_RELAXED);
	if (!b) {
		b = rtshim_in_sandbox() ? &portal_backend : &rtkit_backend;
		__atomic_store_n(&chosen, b, __ATOMIC_RELAXED);
	}
	return b;
}

int rtshim_backend_address(const struct rtshim_backend *b, char *buf, size_t size)
{
	const char *a;
	int n;

	if (!b->portal) {
		a = secure_getenv("DBUS_SYSTEM_BUS_ADDRESS");
		n = snprintf(buf, size, "%s", a && *a ? a : SYSTEM_BUS_DEFAULT_ADDRESS);
	} else {
		a = secure_getenv("DBUS_SESSION_BUS_ADDRESS");
		if (a && *a) {
			n = snprintf(buf, size, "%s", a);
		} else {
			/* the well-known place of a user bus (what libdbus and GDBus also try) */
			const char *run = secure_getenv("XDG_RUNTIME_DIR");

			if (!run || run[0] != '/')
				return -1;
			n = snprintf(buf, size, "unix:path=%s/bus", run);
		}
	}
	return n < 0 || (size_t)n >= size ? -1 : 0;
}
