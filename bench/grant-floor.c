/* grant-floor — the floor of figure 1: the smallest libdbus program that asks rtkit for RT.
 *
 *   grant-floor [N [PRIO]]      N timed grants (default 100) at PRIO (default 10)
 *
 * One private connection to the system bus, opened before the loop; each grant is one
 * MakeThreadRealtime(tid, prio) call on it, nothing else.  RLIMIT_RTTIME is set once
 * (soft = hard = 200 ms, what rtkit requires).  Same loop as grant-shim (bench.h).
 */
// link: -ldbus-1
#include <dbus/dbus.h>
#include <sys/resource.h>

#include "bench.h"

static DBusConnection *bus;

static int make_realtime(pid_t tid, int prio)
{
	DBusMessage *m, *r;
	DBusError err;
	dbus_uint64_t t = (dbus_uint64_t)tid;
	dbus_uint32_t p = (dbus_uint32_t)prio;
	int rc = 0;

	m = dbus_message_new_method_call("org.freedesktop.RealtimeKit1", "/org/freedesktop/RealtimeKit1",
					 "org.freedesktop.RealtimeKit1", "MakeThreadRealtime");
	if (!m || !dbus_message_append_args(m, DBUS_TYPE_UINT64, &t, DBUS_TYPE_UINT32, &p,
					    DBUS_TYPE_INVALID))
		return ENOMEM;
	dbus_error_init(&err);
	r = dbus_connection_send_with_reply_and_block(bus, m, 2000, &err);
	dbus_message_unref(m);
	if (!r) {
		fprintf(stderr, "rtkit: %s: %s\n", err.name, err.message);
		dbus_error_free(&err);
		rc = EPERM;
	} else {
		dbus_message_unref(r);
	}
	return rc;
}

int main(int argc, char **argv)
{
	struct rlimit rl = { 200000, 200000 };
	DBusError err;

	if (setrlimit(RLIMIT_RTTIME, &rl)) {
		perror("setrlimit RLIMIT_RTTIME");
		return 1;
	}
	dbus_error_init(&err);
	bus = dbus_bus_get_private(DBUS_BUS_SYSTEM, &err);
	if (!bus) {
		fprintf(stderr, "system bus: %s\n", err.message);
		return 1;
	}
	dbus_connection_set_exit_on_disconnect(bus, FALSE);
	return bench_grant_loop(make_realtime, (int)bench_arg(argc, argv, 1, 100),
				(int)bench_arg(argc, argv, 2, 10));
}
