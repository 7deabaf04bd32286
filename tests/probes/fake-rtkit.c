/* fake-rtkit — something other than rtkit that owns its name on a bus and says yes to everything
 * (a test double, or a user's own bus set as DBUS_SYSTEM_BUS_ADDRESS): rtkit's three
 * properties answered with rtkit's defaults, every other method call with an empty reply.  It
 * changes nothing in the kernel.  Connects to the system bus (DBUS_SYSTEM_BUS_ADDRESS), prints
 * "ready" once it owns org.freedesktop.RealtimeKit1, then "call MEMBER" for each call, until
 * its bus goes away.  Built with libdbus-1 (its own rule in the Makefile). */
#include <dbus/dbus.h>
#include <stdio.h>
#include <string.h>

#define RTKIT "org.freedesktop.RealtimeKit1"

static DBusMessage *property(DBusMessage *call)
{
	const char *interface = NULL, *name = NULL;
	DBusMessage *reply;
	DBusMessageIter it, v;
	dbus_int32_t i32 = 0;
	dbus_int64_t i64 = 200000;
	int is64 = 0;

	if (!dbus_message_get_args(call, NULL, DBUS_TYPE_STRING, &interface, DBUS_TYPE_STRING, &name,
				   DBUS_TYPE_INVALID))
		return dbus_message_new_error(call, DBUS_ERROR_INVALID_ARGS, "ss expected");
	if (!strcmp(name, "MaxRealtimePriority"))
		i32 = 20;
	else if (!strcmp(name, "MinNiceLevel"))
		i32 = -15;
	else if (!strcmp(name, "RTTimeUSecMax"))
		is64 = 1;
	else
		return dbus_message_new_error(call, DBUS_ERROR_UNKNOWN_PROPERTY, name);
	reply = dbus_message_new_method_return(call);
	dbus_message_iter_init_append(reply, &it);
	dbus_message_iter_open_container(&it, DBUS_TYPE_VARIANT, is64 ? "x" : "i", &v);
	if (is64)
		dbus_message_iter_append_basic(&v, DBUS_TYPE_INT64, &i64);
	else
		dbus_message_iter_append_basic(&v, DBUS_TYPE_INT32, &i32);
	dbus_message_iter_close_container(&it, &v);
	return reply;
}

int main(void)
{
	DBusError err;
	DBusConnection *c;

	dbus_error_init(&err);
	c = dbus_bus_get(DBUS_BUS_SYSTEM, &err);
	if (!c) {
		fprintf(stderr, "fake-rtkit: %s\n", err.message);
		return 1;
	}
	if (dbus_bus_request_name(c, RTKIT, DBUS_NAME_FLAG_DO_NOT_QUEUE, &err) !=
	    DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER) {
		fprintf(stderr, "fake-rtkit: %s is taken\n", RTKIT);
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	while (dbus_connection_read_write(c, -1)) {
		DBusMessage *m, *reply;

		while ((m = dbus_connection_pop_message(c))) {
			if (dbus_message_get_type(m) == DBUS_MESSAGE_TYPE_METHOD_CALL) {
				printf("call %s\n", dbus_message_get_member(m));
				fflush(stdout);
				reply = dbus_message_is_method_call(m, DBUS_INTERFACE_PROPERTIES, "Get")
						? property(m)
						: dbus_message_new_method_return(m);
				dbus_connection_send(c, reply, NULL);
				dbus_message_unref(reply);
			}
			dbus_message_unref(m);
		}
	}
	return 0;
}
