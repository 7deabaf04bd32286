/* test-client-pipelined.c — how few round trips the daemon client's calls take
 * (daemon-client/rtkit-client.c): the limits' three Properties.Get go in the first write with
 * the authentication and Hello, the PID-namespace question follows on the same connection once
 * Hello's reply names us, and the grant after it sends the authentication, Hello and
 * MakeThreadRealtime in one write with no question of its own; rtkit's PID is asked with Hello.  A scripted bus on a Unix socket
 * records what each connection's first read held, and answers the PID question before the
 * properties (the bus's own answers can overtake rtkit's): a client that read the replies in
 * the order it asked would wait for ever. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "rtkit-client.h"
#include "scripted-bus.h"

#define MAX_CONNECTIONS 6
#define MAX_CALLS 8

/* What the bus saw on each connection: the members of the calls its first read held, and of
 * all the calls. */
static struct seen {
	int first_read, calls;
	char member[MAX_CALLS][40];
} seen[MAX_CONNECTIONS];
static int connections;

static DBusMessage *property_reply(DBusMessage *call)
{
	const char *iface = NULL, *name = NULL;
	DBusMessage *r = dbus_message_new_method_return(call);
	DBusMessageIter it, v;
	dbus_message_get_args(call, NULL, DBUS_TYPE_STRING, &iface, DBUS_TYPE_STRING, &name,
			      DBUS_TYPE_INVALID);
	dbus_message_iter_init_append(r, &it);
	if (name && strcmp(name, "RTTimeUSecMax") == 0) {
		dbus_int64_t x = 200000;
		dbus_message_iter_open_container(&it, DBUS_TYPE_VARIANT, "x", &v);
		dbus_message_iter_append_basic(&v, DBUS_TYPE_INT64, &x);
	} else {
		dbus_int32_t i = name && strcmp(name, "MinNiceLevel") == 0 ? -15 : 20;
		dbus_message_iter_open_container(&it, DBUS_TYPE_VARIANT, "i", &v);
		dbus_message_iter_append_basic(&v, DBUS_TYPE_INT32, &i);
	}
	dbus_message_iter_close_container(&it, &v);
	return r;
}

/* One connection: Hello answered at once, GetConnectionUnixProcessID at once (the PID of the
 * process at the other end, whatever the name), and the properties held back until the PID was
 * asked (then answered after it); MakeThreadRealtime refused. */
static void serve(int fd, int n)
{
	struct ucred peer = { .pid = 0 };
	socklen_t peer_len = sizeof peer;
	struct scripted_conn c;
	DBusMessage *held[MAX_CALLS], *call;
	int nheld = 0;
	if (n >= MAX_CONNECTIONS)
		return;
	struct seen *s = &seen[n];
	connections = n + 1;
	getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &peer_len);
	if (!scripted_bus_authenticate(&c, fd))
		return;
	while ((call = scripted_bus_next_call(&c))) {
		const char *member = dbus_message_get_member(call);
		if (s->calls < MAX_CALLS)
			snprintf(s->member[s->calls++], sizeof s->member[0], "%s", member);
		if (c.first_read)
			s->first_read = s->calls;
		if (strcmp(member, "Hello") == 0) {
			const char *name = ":1.5";
			DBusMessage *r = dbus_message_new_method_return(call);
			dbus_message_append_args(r, DBUS_TYPE_STRING, &name, DBUS_TYPE_INVALID);
			scripted_bus_send(fd, r);
		} else if (strcmp(member, "GetConnectionUnixProcessID") == 0) {
			dbus_uint32_t pid = (dbus_uint32_t)peer.pid;
			DBusMessage *r = dbus_message_new_method_return(call);
			dbus_message_append_args(r, DBUS_TYPE_UINT32, &pid, DBUS_TYPE_INVALID);
			scripted_bus_send(fd, r);
			for (int i = 0; i < nheld; i++)
				scripted_bus_send(fd, held[i]);
			nheld = 0;
		} else if (strcmp(member, "Get") == 0 && nheld < MAX_CALLS) {
			held[nheld++] = property_reply(call);
		} else {
			scripted_bus_send(fd, dbus_message_new_error(call, DBUS_ERROR_ACCESS_DENIED,
								     "Operation not permitted"));
		}
		dbus_message_unref(call);
	}
	for (int i = 0; i < nheld; i++)
		dbus_message_unref(held[i]);
}

static void assert_members(const struct seen *s, int n, const char *const *members)
{
	assert_int_equal(s->calls, n);
	for (int i = 0; i < n; i++)
		assert_string_equal(s->member[i], members[i]);
}

static void test_each_call_writes_its_questions_at_once(void **state)
{
	(void)state;
	assert_int_equal(scripted_bus_start(serve), 0);
	rtkit_set_timeout_ms(2000);

	struct rtkit_limits lim;
	assert_int_equal(rtkit_get_limits(&lim), 0);
	assert_int_equal(lim.max_realtime_priority, 20);
	assert_int_equal(lim.min_nice_level, -15);
	assert_int_equal(lim.rttime_usec_max, 200000);
	pid_t tid = (pid_t)syscall(SYS_gettid);
	assert_int_equal(rtkit_make_realtime(0, tid, 10), -EPERM);
	/* a child (its namespace not known yet) asks rtkit's PID: it asks its own on the way */
	pid_t child = fork();
	if (child == 0) {
		pid_t daemon = 0;
		_exit(rtkit_daemon_pid(&daemon) == 0 && daemon == getpid() ? 0 : 1);
	}
	int status = -1;
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_int_equal(status, 0);
	/* the parent, whose namespace is known, asks only rtkit's */
	pid_t daemon = 0;
	assert_int_equal(rtkit_daemon_pid(&daemon), 0);
	assert_int_equal(daemon, getpid());

	scripted_bus_stop();

	assert_int_equal(connections, 4);
	/* the limits: one write, then the PID question */
	const char *const limits[] = { "Hello", "Get", "Get", "Get", "GetConnectionUnixProcessID" };
	assert_members(&seen[0], 5, limits);
	assert_int_equal(seen[0].first_read, 4);
	/* the grant: one write, nothing asked before it */
	const char *const grant[] = { "Hello", "MakeThreadRealtime" };
	assert_members(&seen[1], 2, grant);
	assert_int_equal(seen[1].first_read, 2);
	/* rtkit's PID with Hello in one write, then ours; or rtkit's alone */
	const char *const daemon_and_us[] = { "Hello", "GetConnectionUnixProcessID",
					      "GetConnectionUnixProcessID" };
	assert_members(&seen[2], 3, daemon_and_us);
	assert_int_equal(seen[2].first_read, 2);
	assert_members(&seen[3], 2, daemon_and_us);
	assert_int_equal(seen[3].first_read, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_call_writes_its_questions_at_once),
	};
	return cmocka_run_group_tests_name("client-pipelined", tests, NULL, NULL);
}
