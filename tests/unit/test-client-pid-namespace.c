/* test-client-pid-namespace.c — the daemon client's knowledge of the bus's PID namespace
 * (daemon-client/rtkit-client.c): kept only when the bus answered.  A scripted bus on a Unix
 * socket: its first connection closes right after the authentication (the exchange fails), the
 * next ones say our PID is another (the bus is in another PID namespace).  A failed exchange
 * taken for "the same namespace" would send a TID the bus reads as another thread. */
#include <dbus/dbus.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "rtkit-client.h"

static char dir[] = "/tmp/rtshim-test-pidns.XXXXXX";
static char path[sizeof(dir) + 16];
static char address[sizeof(path) + 16];
static int listener;
static int connections; /* how many the bus has taken */

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

static void serve(int fd, int fail)
{
	static char buf[8192];
	size_t len = 0;
	char *begin;
	while (!(begin = memmem(buf, len, "BEGIN\r\n", 7))) {
		ssize_t n = read(fd, buf + len, sizeof buf - len);
		if (n <= 0)
			return;
		len += (size_t)n;
	}
	static const char ok[] = "DATA\r\nOK 0123456789abcdef0123456789abcdef\r\n";
	write_all(fd, ok, sizeof ok - 1);
	if (fail)
		return;
	size_t used = (size_t)(begin + 7 - buf);
	memmove(buf, buf + used, len - used);
	len -= used;
	for (;;) {
		int need = len >= 16 ? dbus_message_demarshal_bytes_needed(buf, (int)len) : 0;
		if (need < 0)
			return;
		if (need == 0 || (size_t)need > len) {
			ssize_t n = read(fd, buf + len, sizeof buf - len);
			if (n <= 0)
				return;
			len += (size_t)n;
			continue;
		}
		DBusError err;
		dbus_error_init(&err);
		DBusMessage *call = dbus_message_demarshal(buf, need, &err);
		if (!call)
			return;
		DBusMessage *r = answer(call);
		char *bytes;
		int n;
		dbus_message_set_serial(r, 1000);
		if (dbus_message_marshal(r, &bytes, &n)) {
			write_all(fd, bytes, (size_t)n);
			dbus_free(bytes);
		}
		dbus_message_unref(r);
		dbus_message_unref(call);
		memmove(buf, buf + need, len - (size_t)need);
		len -= (size_t)need;
	}
}

static void *bus_run(void *arg)
{
	(void)arg;
	for (;;) {
		int fd = accept(listener, NULL, NULL);
		if (fd < 0)
			return NULL;
		serve(fd, connections++ == 0);
		close(fd);
	}
}

static void test_failed_exchange_is_not_kept_as_same_namespace(void **state)
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
	rtkit_set_timeout_ms(5000);

	pid_t tid = (pid_t)syscall(SYS_gettid);
	/* the bus closes before it answers: nothing learnt about its namespace */
	assert_int_equal(rtkit_make_realtime(0, tid, 10), -ENOTCONN);
	/* it answers: another PID namespace, so no TID is sent; and that is kept */
	assert_int_equal(rtkit_make_realtime(0, tid, 10), -EXDEV);
	assert_int_equal(rtkit_make_high_priority(0, tid, -5), -EXDEV);

	shutdown(listener, SHUT_RDWR);
	close(listener);
	pthread_join(bus, NULL);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_failed_exchange_is_not_kept_as_same_namespace),
	};
	return cmocka_run_group_tests_name("client-pid-namespace", tests, NULL, NULL);
}
