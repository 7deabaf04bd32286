/* doctor.c — the D-Bus questions only `rtrun --check` asks: does the system bus answer, is
 * rtkit on it (or activatable), and would polkit authorize rtkit's action for this process?
 * One private libdbus connection of its own, closed before returning (bus-libdbus.c: every
 * wait bounded, a hung bus included), with the client's error map (errors.c).  Each step (connecting with its
 * Hello, and each call) gets `timeout_ms`.
 * Exported only as the table rtshim_doctor_v1 (rtkit-client.h). */
#include <dbus/dbus.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-libdbus.h"
#include "client-internal.h"
#include "rtkit-client.h"

#define POLKIT_NAME "org.freedesktop.PolicyKit1"
#define POLKIT_PATH "/org/freedesktop/PolicyKit1/Authority"
#define POLKIT_INTERFACE "org.freedesktop.PolicyKit1.Authority"
#define RTKIT_ACTION "org.freedesktop.RealtimeKit1.acquire-real-time"

/* Send m (consumed) on c, wait at most timeout_ms: 0 and *reply, or -errno (err: why). */
static int call(DBusConnection *c, DBusMessage *m, int timeout_ms, DBusMessage **reply, char *err,
		size_t errlen)
{
	struct timespec deadline;
	int r;

	rtshim_deadline_after(&deadline, timeout_ms);
	r = rtshim_bus_call(c, m, &deadline, reply, err, errlen);
	dbus_message_unref(m);
	return r;
}

static DBusMessage *bus_method(const char *member)
{
	return dbus_message_new_method_call(DBUS_SERVICE_DBUS, DBUS_PATH_DBUS, DBUS_INTERFACE_DBUS,
					    member);
}

static int name_has_owner(DBusConnection *c, const char *name, int timeout_ms)
{
	DBusMessage *m = bus_method("NameHasOwner"), *reply;
	dbus_bool_t has = FALSE;
	int r;

	if (!m || !dbus_message_append_args(m, DBUS_TYPE_STRING, &name, DBUS_TYPE_INVALID)) {
		if (m)
			dbus_message_unref(m);
		return -ENOMEM;
	}
	r = call(c, m, timeout_ms, &reply, NULL, 0);
	if (r < 0)
		return r;
	if (!dbus_message_get_args(reply, NULL, DBUS_TYPE_BOOLEAN, &has, DBUS_TYPE_INVALID))
		r = -EPROTO;
	dbus_message_unref(reply);
	return r < 0 ? r : has ? 1 : 0;
}

static int activatable(DBusConnection *c, const char *name, int timeout_ms)
{
	DBusMessage *m = bus_method("ListActivatableNames"), *reply;
	char **names = NULL;
	int count = 0, r, found = 0;

	if (!m)
		return -ENOMEM;
	r = call(c, m, timeout_ms, &reply, NULL, 0);
	if (r < 0)
		return r;
	if (!dbus_message_get_args(reply, NULL, DBUS_TYPE_ARRAY, DBUS_TYPE_STRING, &names, &count,
				   DBUS_TYPE_INVALID)) {
		dbus_message_unref(reply);
		return -EPROTO;
	}
	for (int i = 0; i < count; i++)
		if (!strcmp(names[i], name))
			found = 1;
	dbus_free_string_array(names);
	dbus_message_unref(reply);
	return found;
}

/* polkit's CheckAuthorization for this very connection (subject system-bus-name), no user
 * interaction: 1 authorized, 2 only after authentication, 0 not authorized, -errno. */
static int polkit_check(DBusConnection *c, int timeout_ms, char *err, size_t errlen)
{
	const char *kind = "system-bus-name", *key = "name", *action = RTKIT_ACTION, *cancel = "";
	const char *unique = dbus_bus_get_unique_name(c);
	dbus_uint32_t flags = 0;
	DBusMessageIter it, subject, dict, entry, variant, details, result;
	DBusMessage *m, *reply;
	dbus_bool_t authorized = FALSE, challenge = FALSE;
	int r;

	m = dbus_message_new_method_call(POLKIT_NAME, POLKIT_PATH, POLKIT_INTERFACE,
					 "CheckAuthorization");
	if (!m || !unique)
		goto oom;
	dbus_message_iter_init_append(m, &it);
	if (!dbus_message_iter_open_container(&it, DBUS_TYPE_STRUCT, NULL, &subject) ||
	    !dbus_message_iter_append_basic(&subject, DBUS_TYPE_STRING, &kind) ||
	    !dbus_message_iter_open_container(&subject, DBUS_TYPE_ARRAY, "{sv}", &dict) ||
	    !dbus_message_iter_open_container(&dict, DBUS_TYPE_DICT_ENTRY, NULL, &entry) ||
	    !dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &key) ||
	    !dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, "s", &variant) ||
	    !dbus_message_iter_append_basic(&variant, DBUS_TYPE_STRING, &unique) ||
	    !dbus_message_iter_close_container(&entry, &variant) ||
	    !dbus_message_iter_close_container(&dict, &entry) ||
	    !dbus_message_iter_close_container(&subject, &dict) ||
	    !dbus_message_iter_close_container(&it, &subject) ||
	    !dbus_message_iter_append_basic(&it, DBUS_TYPE_STRING, &action) ||
	    !dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "{ss}", &details) ||
	    !dbus_message_iter_close_container(&it, &details) ||
	    !dbus_message_iter_append_basic(&it, DBUS_TYPE_UINT32, &flags) ||
	    !dbus_message_iter_append_basic(&it, DBUS_TYPE_STRING, &cancel))
		goto oom;

	r = call(c, m, timeout_ms, &reply, err, errlen);
	if (r < 0) {
		if (!err[0])
			snprintf(err, errlen, "%s", r == -ETIMEDOUT ? "no answer within the timeout"
						    : rtkit_strerror(r));
		return r;
	}
	if (!dbus_message_has_signature(reply, "(bba{ss})") || !dbus_message_iter_init(reply, &it)) {
		dbus_message_unref(reply);
		snprintf(err, errlen, "unexpected reply from polkit");
		return -EPROTO;
	}
	dbus_message_iter_recurse(&it, &result);
	dbus_message_iter_get_basic(&result, &authorized);
	dbus_message_iter_next(&result);
	dbus_message_iter_get_basic(&result, &challenge);
	dbus_message_unref(reply);
	return authorized ? 1 : challenge ? 2 : 0;

oom:
	if (m)
		dbus_message_unref(m);
	snprintf(err, errlen, "out of memory");
	return -ENOMEM;
}

static void probe(int timeout_ms, struct rtshim_bus_report *rep)
{
	const char *address = getenv("DBUS_SYSTEM_BUS_ADDRESS");
	struct timespec deadline;
	DBusConnection *c;

	memset(rep, 0, sizeof *rep);
	snprintf(rep->address, sizeof rep->address, "%s",
		 address && *address ? address : SYSTEM_BUS_DEFAULT_ADDRESS);
	rep->rtkit_owner = rep->rtkit_activatable = rep->polkit = -ENOTCONN;
	if (timeout_ms <= 0)
		timeout_ms = RTSHIM_CLIENT_DEFAULT_TIMEOUT_MS;

	rtshim_deadline_after(&deadline, timeout_ms);
	rep->bus = rtshim_bus_open(rep->address, &deadline, &c, rep->bus_error,
				   sizeof rep->bus_error);
	if (rep->bus < 0) {
		/* a bus that accepts the connection but does not answer gives no words of its own */
		if (rep->bus == -ETIMEDOUT)
			snprintf(rep->bus_error, sizeof rep->bus_error,
				 "no answer within %d ms (the bus daemon may be hung)", timeout_ms);
		else if (!rep->bus_error[0])
			snprintf(rep->bus_error, sizeof rep->bus_error, "%s", rtkit_strerror(rep->bus));
		return;
	}
	rep->rtkit_owner = name_has_owner(c, RTKIT_SERVICE_NAME, timeout_ms);
	rep->rtkit_activatable = activatable(c, RTKIT_SERVICE_NAME, timeout_ms);
	rep->polkit = polkit_check(c, timeout_ms, rep->polkit_error, sizeof rep->polkit_error);
	rtshim_bus_close(c);
}

static void bus_probe(int timeout_ms, struct rtshim_bus_report *rep)
{
	int old;

	/* as for the shared connection: never cancelled inside libdbus */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	probe(timeout_ms, rep);
	pthread_setcancelstate(old, NULL);
}

RTSHIM_EXPORT const struct rtshim_doctor_v1 rtshim_doctor_v1 = {
	.bus_probe = bus_probe,
};
