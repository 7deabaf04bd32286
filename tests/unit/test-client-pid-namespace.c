/* test-client-pid-namespace.c — the daemon client's knowledge of the bus's PID namespace
 * (daemon-client/rtkit-client.c): kept only when the bus answered.  A scripted bus on a Unix
 * socket: its first connection closes right after the authentication (the exchange fails), the
 * next ones say our PID is another (the bus is in another PID namespace).  A failed exchange
 * taken for "the same namespace" would send a TID the bus reads as another thread. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>

#include <cmocka.h>

#include "rtkit-client.h"
#include "scripted-bus.h"

/* The answer to one call: Hello a unique name, GetConnectionUnixProcessID a PID that is not
 * ours, anything else an error. */
static DBusMessage *answer(DBusMessage *call)
{
	const char *member = dbus_message_get_member(call);
	DBusMessage *r;
	if (member && strcmp(member, "Hello") == 0) {
		const char *name = ":1.5";
		r = dbus_message_new_method_return(call);
		dbus_message_append_args(r, DBUS_TYPE_STRING, &name, DBUS_TYPE_INVALID);
	} else if (member && strcmp(member, "GetConnectionUnixProcessID") == 0) {
		dbus_uint32_t pid = (dbus_uint32_t)getpid() + 1000;
		r = dbus_message_new_method_return(call);
		dbus_message_append_args(r, DBUS_TYPE_UINT32, &pid, DBUS_TYPE_INVALID);
	} else {
		r = dbus_message_new_error(call, DBUS_ERROR_ACCESS_DENIED, "not by this bus");
	}
	return r;
}

/* The first connection closes right after the authentication; the next ones are answered. */
static void serve(int fd, int n)
{
	struct scripted_conn c;
	DBusMessage *call;
	if (!scripted_bus_authenticate(&c, fd) || n == 0)
		return;
	while ((call = scripted_bus_next_call(&c))) {
		scripted_bus_send(fd, answer(call));
		dbus_message_unref(call);
	}
}

static void test_failed_exchange_is_not_kept_as_same_namespace(void **state)
{
	(void)state;
	assert_int_equal(scripted_bus_start(serve), 0);
	rtkit_set_timeout_ms(5000);

	pid_t tid = (pid_t)syscall(SYS_gettid);
	/* the bus closes before it answers: nothing learnt about its namespace */
	assert_int_equal(rtkit_make_realtime(0, tid, 10), -ENOTCONN);
	/* it answers: another PID namespace, so no TID is sent; and that is kept */
	assert_int_equal(rtkit_make_realtime(0, tid, 10), -EXDEV);
	assert_int_equal(rtkit_make_high_priority(0, tid, -5), -EXDEV);
	scripted_bus_stop();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_failed_exchange_is_not_kept_as_same_namespace),
	};
	return cmocka_run_group_tests_name("client-pid-namespace", tests, NULL, NULL);
}
