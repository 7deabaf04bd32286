/* doctor.c — the D-Bus questions only `rtrun --check` asks: does the system bus answer, is
 * rtkit on it (or activatable), and would polkit authorize rtkit's action for this process?
 * One private connection with its own timeout on every call (libdbus's default is 25 s),
 * closed before returning; independent of the client's shared connection (connection.c).
 * Exported only as the table rtshim_doctor_v1 (rtkit-client.h). */
#include <dbus/dbus.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client-internal.h"
#include "rtkit-client.h"

#define POLKIT_NAME "org.freedesktop.PolicyKit1"
#define POLKIT_PATH "/org/freedesktop/PolicyKit1/Authority"
#define POLKIT_INTERFACE "org.freedesktop.PolicyKit1.Authority"
#define RTKIT_ACTION "org.freedesktop.RealtimeKit1.acquire-real-time"

static int errno_of(const DBusError *e)
{
	if (dbus_error_has_name(e, DBUS_ERROR_NO_REPLY) || dbus_error_has_name(e, DBUS_ERROR_TIMEOUT) ||
	    dbus_error_has_name(e, DBUS_ERROR_TIMED_OUT))
		return -ETIMEDOUT;
	if (dbus_error_has_name(e, DBUS_ERROR_NO_MEMORY))
		return -ENOMEM;
	if (dbus_error_has_name(e, DBUS_ERROR_SERVICE_UNKNOWN) ||
	    dbus_error_has_name(e, DBUS_ERROR_NAME_HAS_NO_OWNER))
		return -ENOENT;
	if (dbus_error_has_name(e, DBUS_ERROR_ACCESS_DENIED))
		return -EACCES;
	return -EIO;
}

static void copy_error(char *buf, size_t size, const DBusError *e)
{
	snprintf(buf, size, "%s", e->message ? e->message : e->name ? e->name : "unknown error");
}

/* Send m, wait for the reply; consumes m.  NULL and *r/err on failure. */
static DBusMessage *call(DBusConnection *c, DBusMessage *m, int timeout_ms, int *r, char *err,
			 size_t errlen)
{
	DBusError e;
	DBusMessage *reply;

	dbus_error_init(&e);
	reply = dbus_connection_send_with_reply_and_block(c, m, timeout_ms, &e);
	dbus_message_unref(m);
	if (!reply) {
		*r = errno_of(&e);
		if (err)
			copy_error(err, errlen, &e);
		dbus_error_free(&e);
	}
	return reply;
}

static DBusMessage *bus_method(const char *member)
{
	return dbus_message_new_method_call(DBUS_SERVICE_DBUS, DBUS_PATH_DBUS, DBUS_INTERFACE_DBUS,
					    member);
}

static DBusConnection *open_bus(const char *address, int timeout_ms, int *r, char *err, size_t errlen)
{
	DBusError e;
	DBusConnection *c;
	DBusMessage *m, *reply;
	const char *name = NULL;

	dbus_error_init(&e);
	c = dbus_connection_open_private(address, &e);
	if (!c) {
		*r = -ENOTCONN;
		copy_error(err, errlen, &e);
		dbus_error_free(&e);
		return NULL;
	}
	dbus_connection_set_exit_on_disconnect(c, FALSE);

	/* The Hello of dbus_bus_register, with our own timeout. */
	m = bus_method("Hello");
	reply = m ? call(c, m, timeout_ms, r, err, errlen) : NULL;
	if (!m)
		*r = -ENOMEM;
	if (reply && dbus_message_get_args(reply, NULL, DBUS_TYPE_STRING, &name, DBUS_TYPE_INVALID) &&
	    dbus_bus_set_unique_name(c, name)) {
		dbus_message_unref(reply);
		return c;
	}
	if (reply) {
		*r = -EPROTO;
		snprintf(err, errlen, "unexpected reply to Hello");
		dbus_message_unref(reply);
	} else if (*r != -ETIMEDOUT && *r != -ENOMEM) {
		*r = -ENOTCONN;
	}
	dbus_connection_close(c);
	dbus_connection_unref(c);
	return NULL;
}

static int name_has_owner(DBusConnection *c, const char *name, int timeout_ms)
{
	DBusMessage *m = bus_method("NameHasOwner"), *reply;
	dbus_bool_t has = FALSE;
	int r = 0;

	if (!m || !dbus_message_append_args(m, DBUS_TYPE_STRING, &name, DBUS_TYPE_INVALID)) {
		if (m)
			dbus_message_unref(m);
		return -ENOMEM;
	}
	reply = call(c, m, timeout_ms, &r, NULL, 0);
	if (!reply)
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
	int count = 0, r = 0, found = 0;

	if (!m)
		return -ENOMEM;
	reply = call(c, m, timeout_ms, &r, NULL, 0);
	if (!reply)
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
	int r = 0;

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

	reply = call(c, m, timeout_ms, &r, err, errlen);
	if (!reply)
		return r;
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

static void bus_probe(int timeout_ms, struct rtshim_bus_report *rep)
{
	const char *address = getenv("DBUS_SYSTEM_BUS_ADDRESS");
	DBusConnection *c;

	memset(rep, 0, sizeof *rep);
	snprintf(rep->address, sizeof rep->address, "%s",
		 address && *address ? address : SYSTEM_BUS_DEFAULT_ADDRESS);
	rep->rtkit_owner = rep->rtkit_activatable = rep->polkit = -ENOTCONN;

	c = open_bus(rep->address, timeout_ms, &rep->bus, rep->bus_error, sizeof rep->bus_error);
	if (!c)
		return;
	rep->rtkit_owner = name_has_owner(c, RTKIT_SERVICE_NAME, timeout_ms);
	rep->rtkit_activatable = activatable(c, RTKIT_SERVICE_NAME, timeout_ms);
	rep->polkit = polkit_check(c, timeout_ms, rep->polkit_error, sizeof rep->polkit_error);
	dbus_connection_close(c);
	dbus_connection_unref(c);
}

RTSHIM_EXPORT const struct rtshim_doctor_v1 rtshim_doctor_v1 = {
	.bus_probe = bus_probe,
};
