/* scripted-bus.h — a bus of a unit test's own, for the daemon client (daemon-client/): a Unix
 * socket in a fresh directory, DBUS_SYSTEM_BUS_ADDRESS pointed at it, and a thread that takes
 * its connections one at a time and hands each to the test's serve(fd, n) (n: how many came
 * before).  serve reads the client with scripted_bus_authenticate and scripted_bus_next_call,
 * and answers with scripted_bus_send: messages are marshalled by libdbus, so what the client
 * parses is what a real bus writes. */
#ifndef RTSHIM_SCRIPTED_BUS_H
#define RTSHIM_SCRIPTED_BUS_H

#include <dbus/dbus.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* What one connection has sent and not yet been read as a call. */
struct scripted_conn {
	int fd;
	bool first_read; /* the calls read so far all came in the connection's first read */
	size_t len;
	char buf[8192];
};

static struct {
	char dir[64], path[96], address[112];
	int listener;
	pthread_t thread;
	void (*serve)(int fd, int n);
} scripted_bus;

static void scripted_bus_write_all(int fd, const void *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w <= 0)
			return;
		p = (const char *)p + w;
		n -= (size_t)w;
	}
}

/* Send `m` (then unreferenced) with a serial of the bus's. */
static void scripted_bus_send(int fd, DBusMessage *m)
{
	char *bytes;
	int n;
	dbus_message_set_serial(m, 1000);
	if (dbus_message_marshal(m, &bytes, &n)) {
		scripted_bus_write_all(fd, bytes, (size_t)n);
		dbus_free(bytes);
	}
	dbus_message_unref(m);
}

static bool scripted_bus_read_more(struct scripted_conn *c)
{
	ssize_t n = read(c->fd, c->buf + c->len, sizeof c->buf - c->len);
	if (n <= 0)
		return false;
	c->len += (size_t)n;
	return true;
}

/* The client's lines up to BEGIN read, DATA and OK answered: false if it closed first. */
static bool scripted_bus_authenticate(struct scripted_conn *c, int fd)
{
	char *begin;
	c->fd = fd;
	c->len = 0;
	c->first_read = true;
	while (!(begin = memmem(c->buf, c->len, "BEGIN\r\n", 7)))
		if (!scripted_bus_read_more(c))
			return false;
	static const char ok[] = "DATA\r\nOK 0123456789abcdef0123456789abcdef\r\n";
	scripted_bus_write_all(fd, ok, sizeof ok - 1);
	size_t used = (size_t)(begin + 7 - c->buf);
	memmove(c->buf, c->buf + used, c->len - used);
	c->len -= used;
	return true;
}

/* The client's next call (the caller unreferences it), or NULL once it closed or sent what is
 * no message. */
static DBusMessage *scripted_bus_next_call(struct scripted_conn *c)
{
	for (;;) {
		int need = c->len >= 16 ? dbus_message_demarshal_bytes_needed(c->buf, (int)c->len) : 0;
		if (need < 0)
			return NULL;
		if (need > 0 && (size_t)need <= c->len) {
			DBusMessage *call = dbus_message_demarshal(c->buf, need, NULL);
			memmove(c->buf, c->buf + need, c->len - (size_t)need);
			c->len -= (size_t)need;
			return call;
		}
		c->first_read = false;
		if (!scripted_bus_read_more(c))
			return NULL;
	}
}

static void *scripted_bus_run(void *arg)
{
	(void)arg;
	for (int n = 0;; n++) {
		int fd = accept(scripted_bus.listener, NULL, NULL);
		if (fd < 0)
			return NULL;
		scripted_bus.serve(fd, n);
		close(fd);
	}
}

/* The bus listening, its thread running serve for each connection: 0, or -1. */
static int scripted_bus_start(void (*serve)(int fd, int n))
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	snprintf(scripted_bus.dir, sizeof scripted_bus.dir, "/tmp/rtshim-test-bus.XXXXXX");
	if (!mkdtemp(scripted_bus.dir))
		return -1;
	snprintf(scripted_bus.path, sizeof scripted_bus.path, "%s/bus", scripted_bus.dir);
	snprintf(scripted_bus.address, sizeof scripted_bus.address, "unix:path=%s", scripted_bus.path);
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", scripted_bus.path);
	scripted_bus.serve = serve;
	scripted_bus.listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (scripted_bus.listener < 0 ||
	    bind(scripted_bus.listener, (struct sockaddr *)&sa, sizeof sa) != 0 ||
	    listen(scripted_bus.listener, 4) != 0 ||
	    pthread_create(&scripted_bus.thread, NULL, scripted_bus_run, NULL) != 0)
		return -1;
	setenv("DBUS_SYSTEM_BUS_ADDRESS", scripted_bus.address, 1);
	return 0;
}

/* The bus closed, its thread joined, its directory removed. */
static void scripted_bus_stop(void)
{
	shutdown(scripted_bus.listener, SHUT_RDWR);
	close(scripted_bus.listener);
	pthread_join(scripted_bus.thread, NULL);
	unlink(scripted_bus.path);
	rmdir(scripted_bus.dir);
}

#endif
