/* at-once-peer — figure 9's reference for processes: bench/at-once whose request is what an
 * rtkit client pays for its first grant, the way PipeWire's module-rt makes it: a private
 * connection to the system bus (authentication, Hello), rtkit's three limits read (Get each),
 * RLIMIT_RTTIME set (soft = hard = RTTimeUSecMax), MakeThreadRealtime(tid, prio), the
 * connection closed.  The same arguments and output as at-once.
 */
// link: -ldbus-1
#include <dbus/dbus.h>
#include <sys/resource.h>

#define AT_ONCE_PEER
static int request_realtime(int asked);
#include "at-once.c"

#define RTKIT "org.freedesktop.RealtimeKit1"
#define RTKIT_PATH "/org/freedesktop/RealtimeKit1"

/* one call on c, its reply (NULL: refused or failed, errno-like EPERM then) */
static DBusMessage *call(DBusConnection *c, DBusMessage *m)
{
	DBusError err;

	dbus_error_init(&err);
	DBusMessage *r = m ? dbus_connection_send_with_reply_and_block(c, m, 2000, &err) : NULL;
	if (m)
		dbus_message_unref(m);
	dbus_error_free(&err);
	return r;
}

/* rtkit's property NAME as an int64 (it answers int32 or int64), def when unreadable */
static int64_t get_limit(DBusConnection *c, const char *name, int64_t def)
{
	const char *iface = RTKIT;
	DBusMessage *m = dbus_message_new_method_call(RTKIT, RTKIT_PATH, "org.freedesktop.DBus.Properties", "Get");
	if (m && !dbus_message_append_args(m, DBUS_TYPE_STRING, &iface, DBUS_TYPE_STRING, &name, DBUS_TYPE_INVALID)) {
		dbus_message_unref(m);
		m = NULL;
	}
	DBusMessage *r = call(c, m);
	DBusMessageIter it, v;
	int64_t out = def;
	if (r && dbus_message_iter_init(r, &it) && dbus_message_iter_get_arg_type(&it) == DBUS_TYPE_VARIANT) {
		dbus_message_iter_recurse(&it, &v);
		if (dbus_message_iter_get_arg_type(&v) == DBUS_TYPE_INT64) {
			dbus_int64_t x;
			dbus_message_iter_get_basic(&v, &x);
			out = x;
		} else if (dbus_message_iter_get_arg_type(&v) == DBUS_TYPE_INT32) {
			dbus_int32_t x;
			dbus_message_iter_get_basic(&v, &x);
			out = x;
		}
	}
	if (r)
		dbus_message_unref(r);
	return out;
}

static int request_realtime(int asked)
{
	DBusError err;

	dbus_error_init(&err);
	DBusConnection *c = dbus_bus_get_private(DBUS_BUS_SYSTEM, &err);
	dbus_error_free(&err);
	if (!c)
		return EPERM;
	dbus_connection_set_exit_on_disconnect(c, FALSE);
	int64_t rttime = get_limit(c, "RTTimeUSecMax", 200000);
	int64_t max = get_limit(c, "MaxRealtimePriority", 20);
	(void)get_limit(c, "MinNiceLevel", -15);
	struct rlimit rl = { (rlim_t)rttime, (rlim_t)rttime };
	int rc = EPERM;
	if (setrlimit(RLIMIT_RTTIME, &rl) == 0) {
		dbus_uint64_t tid = (dbus_uint64_t)syscall(SYS_gettid);
		dbus_uint32_t p = (dbus_uint32_t)(asked < max ? asked : max);
		DBusMessage *m = dbus_message_new_method_call(RTKIT, RTKIT_PATH, RTKIT, "MakeThreadRealtime");
		if (m && !dbus_message_append_args(m, DBUS_TYPE_UINT64, &tid, DBUS_TYPE_UINT32, &p, DBUS_TYPE_INVALID)) {
			dbus_message_unref(m);
			m = NULL;
		}
		DBusMessage *r = call(c, m);
		if (r) {
			rc = 0;
			dbus_message_unref(r);
		}
	}
	dbus_connection_close(c);
	dbus_connection_unref(c);
	return rc;
}
