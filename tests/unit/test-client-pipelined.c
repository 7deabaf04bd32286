/* test-client-pipelined.c — how few round trips the daemon client's calls take
 * (daemon-client/rtkit-client.c): the limits' three Properties.Get go in the first write with
 * the authentication and Hello, the PID-namespace question follows on the same connection once
 * Hello's reply names us, and the grant after it sends the authentication, Hello and
 * MakeThreadRealtime in one write with no question of its own; rtkit's PID is asked with Hello.  A scripted bus on a Unix socket
 * records what each connection's first read held, and answers the PID question before the
 * properties (the bus's own answers can overtake rtkit's): a client that read the replies in
 * the order it asked would wait for ever. */
#include <dbus/dbus.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "rtkit-client.h"

#define MAX_CONNECTIONS 6
#define MAX_CALLS 8

static char dir[] = "/tmp/rtshim-test-pipelined.XXXXXX";
static char path[sizeof(dir) + 16];
static char address[sizeof(path) + 16];
static int listener;

/* What the bus saw on each connection: the members of the calls its first read held, and of
 * all the calls. */
static struct seen {
	int first_read, calls;
	char member[MAX_CALLS][40];
} seen[MAX_CONNECTIONS];
static int connections;

static void write_all(int fd, const void *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w <= 0)
			return;
		p = (const char *)p + w;
		n -= (size_t)w;
	}
}

static void send_message(int fd, DBusMessage *r)
{
	char *bytes;
	int n;
	dbus_message_set_serial(r, 1000);
	if (dbus_message_marshal(r, &bytes, &n)) {
		write_all(fd, bytes, (size_t)n);
		dbus_free(bytes);
	}
	dbus_message_unref(r);
}

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
 * process at the other end, whatever the name), and the properties held
 * back until the PID was asked (then answered after it); MakeThreadRealtime refused. */
static void serve(int fd, struct seen *s)
{
	struct ucred peer = { .pid = 0 };
	socklen_t peer_len = sizeof peer;
	getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &peer_len);
	static char buf[8192];
	size_t len = 0;
	char *begin;
	bool first = true;
	DBusMessage *held[MAX_CALLS];
	int nheld = 0;
	while (!(begin = memmem(buf, len, "BEGIN\r\n", 7))) {
		ssize_t n = read(fd, buf + len, sizeof buf - len);
		if (n <= 0)
			return;
		len += (size_t)n;
	}
	static const char ok[] = "DATA\r\nOK 0123456789abcdef0123456789abcdef\r\n";
	write_all(fd, ok, sizeof ok - 1);
	size_t used = (size_t)(begin + 7 - buf);
	memmove(buf, buf + used, len - used);
	len -= used;
	for (;;) {
		int need = len >= 16 ? dbus_message_demarshal_bytes_needed(buf, (int)len) : 0;
		if (need < 0)
			break;
		if (need == 0 || (size_t)need > len) {
			first = false;
			ssize_t n = read(fd, buf + len, sizeof buf - len);
			if (n <= 0)
				break;
			len += (size_t)n;
			continue;
		}
		DBusMessage *call = dbus_message_demarshal(buf, need, NULL);
		memmove(buf, buf + need, len - (size_t)need);
		len -= (size_t)need;
		if (!call)
			break;
		const char *member = dbus_message_get_member(call);
		if (s->calls < MAX_CALLS)
			snprintf(s->member[s->calls++], sizeof s->member[0], "%s", member);
		if (first)
			s->first_read = s->calls;
		if (strcmp(member, "Hello") == 0) {
			const char *name = ":1.5";
			DBusMessage *r = dbus_message_new_method_return(call);
			dbus_message_append_args(r, DBUS_TYPE_STRING, &name, DBUS_TYPE_INVALID);
			send_message(fd, r);
		} else if (strcmp(member, "GetConnectionUnixProcessID") == 0) {
			dbus_uint32_t pid = (dbus_uint32_t)peer.pid;
			DBusMessage *r = dbus_message_new_method_return(call);
			dbus_message_append_args(r, DBUS_TYPE_UINT32, &pid, DBUS_TYPE_INVALID);
			send_message(fd, r);
			for (int i = 0; i < nheld; i++)
				send_message(fd, held[i]);
			nheld = 0;
		} else if (strcmp(member, "Get") == 0 && nheld < MAX_CALLS) {
			held[nheld++] = property_reply(call);
		} else {
			send_message(fd, dbus_message_new_error(call, DBUS_ERROR_ACCESS_DENIED,
								"Operation not permitted"));
		}
		dbus_message_unref(call);
	}
	for (int i = 0; i < nheld; i++)
		dbus_message_unref(held[i]);
}

static void *bus_run(void *arg)
{
	(void)arg;
	for (;;) {
		int fd = accept(listener, NULL, NULL);
		if (fd < 0)
			return NULL;
		if (connections < MAX_CONNECTIONS)
			serve(fd, &seen[connections++]);
		close(fd);
	}
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
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	pthread_t bus;
	if (!mkdtemp(dir))
		fail();
	snprintf(path, sizeof path, "%s/bus", dir);
	snprintf(address, sizeof address, "unix:path=%s", path);
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
	listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_int_equal(bind(listener, (struct sockaddr *)&sa, sizeof sa), 0);
	assert_int_equal(listen(listener, 4), 0);
	assert_int_equal(pthread_create(&bus, NULL, bus_run, NULL), 0);
	setenv("DBUS_SYSTEM_BUS_ADDRESS", address, 1);
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

	shutdown(listener, SHUT_RDWR);
	close(listener);
	pthread_join(bus, NULL);
	unlink(path);
	rmdir(dir);

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
