/* test-client-nobus.c — the daemon client without a real bus: argument checks, the exported
 * object, and what happens when the bus is missing, refuses or hangs (a socket that accepts
 * connections and never answers). The real stack is tested in tests/bats/client.bats. */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "client-internal.h"
#include "rtkit-client.h"

static char dir[] = "/tmp/rtshim-test-nobus.XXXXXX";
static char path[sizeof(dir) + 16];
static char address[sizeof(path) + 16];

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* A "bus" that accepts connections (the kernel does, from the backlog) and never speaks. */
static int listen_silent(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 16), 0);
	return fd;
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/bus", dir);
	snprintf(address, sizeof(address), "unix:path=%s", path);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	rmdir(dir);
	return 0;
}

static void test_exported_object(void **state)
{
	(void)state;
	assert_ptr_equal(rtshim_client_v1.set_timeout_ms, rtkit_set_timeout_ms);
	assert_ptr_equal(rtshim_client_v1.get_limits, rtkit_get_limits);
	assert_ptr_equal(rtshim_client_v1.make_realtime, rtkit_make_realtime);
	assert_ptr_equal(rtshim_client_v1.make_high_priority, rtkit_make_high_priority);
	assert_ptr_equal(rtshim_client_v1.strerror, rtkit_strerror);
}

/* Refused before any bus traffic: the wire cannot carry them, or tid 0 would mean "main". */
static void test_bad_arguments(void **state)
{
	(void)state;
	setenv("DBUS_SYSTEM_BUS_ADDRESS", address, 1);
	assert_int_equal(rtkit_make_realtime(0, 0, 10), -EINVAL);
	assert_int_equal(rtkit_make_realtime(0, -1, 10), -EINVAL);
	assert_int_equal(rtkit_make_realtime(-1, getpid(), 10), -EINVAL);
	assert_int_equal(rtkit_make_realtime(0, getpid(), -1), -EINVAL);
	assert_int_equal(rtkit_make_high_priority(0, 0, -5), -EINVAL);
	assert_int_equal(rtkit_make_high_priority(-2, getpid(), -5), -EINVAL);
	assert_int_equal(rtkit_get_limits(NULL), -EINVAL);
}

static void test_no_socket(void **state)
{
	struct rtkit_limits l;
	int fds = count_fds();
	long long t0 = now_ms();

	(void)state;
	setenv("DBUS_SYSTEM_BUS_ADDRESS", address, 1);
	assert_int_equal(rtkit_get_limits(&l), -ENOTCONN);
	assert_int_equal(rtkit_make_realtime(0, getpid(), 10), -ENOTCONN);
	assert_int_equal(rtkit_make_high_priority(0, getpid(), -5), -ENOTCONN);
	assert_true(now_ms() - t0 < 200);
	assert_int_equal(count_fds(), fds);
}

static void test_bad_address(void **state)
{
	(void)state;
	setenv("DBUS_SYSTEM_BUS_ADDRESS", "no-such-transport:foo=bar", 1);
	assert_int_equal(rtkit_make_realtime(0, getpid(), 10), -ENOTCONN);
	setenv("DBUS_SYSTEM_BUS_ADDRESS", "garbage", 1);
	assert_int_equal(rtkit_make_realtime(0, getpid(), 10), -ENOTCONN);
}

/* The bus accepts and hangs (libdbus's own blocking send would wait forever here, in its
 * flush): each call ends with ETIMEDOUT after the configured timeout, SIGPIPE's disposition
 * is left alone (a guard only: libdbus 1.14 on Linux never touches it), no descriptor leaks. */
static void test_hung_bus(void **state)
{
	struct sigaction old, now;
	struct rtkit_limits l;
	int lfd, fds;
	long long t0, elapsed;

	(void)state;
	lfd = listen_silent();
	setenv("DBUS_SYSTEM_BUS_ADDRESS", address, 1);
	assert_int_equal(sigaction(SIGPIPE, &(struct sigaction){ .sa_handler = SIG_DFL }, &old), 0);
	fds = count_fds();

	rtkit_set_timeout_ms(200);
	t0 = now_ms();
	assert_int_equal(rtkit_make_realtime(0, getpid(), 10), -ETIMEDOUT);
	elapsed = now_ms() - t0;
	print_message("# hung bus, timeout 200 ms: ETIMEDOUT after %lld ms\n", elapsed);
	assert_true(elapsed >= 195 && elapsed < 400);

	/* the bus did not answer: the next call is not sent, it fails at once */
	t0 = now_ms();
	assert_int_equal(rtkit_get_limits(&l), -ETIMEDOUT);
	elapsed = now_ms() - t0;
	print_message("# hung bus, the next call: ETIMEDOUT after %lld ms\n", elapsed);
	assert_true(elapsed < 50);

	/* asked again (as 10 s later): bounded the same way */
	rtshim_conn_forget_silence();
	t0 = now_ms();
	assert_int_equal(rtkit_get_limits(&l), -ETIMEDOUT);
	elapsed = now_ms() - t0;
	assert_true(elapsed >= 195 && elapsed < 400);

	/* <= 0 restores the default of 500 ms. */
	rtshim_conn_forget_silence();
	rtkit_set_timeout_ms(0);
	t0 = now_ms();
	assert_int_equal(rtkit_make_high_priority(0, getpid(), -5), -ETIMEDOUT);
	elapsed = now_ms() - t0;
	print_message("# hung bus, default timeout: ETIMEDOUT after %lld ms\n", elapsed);
	assert_true(elapsed >= RTSHIM_CLIENT_DEFAULT_TIMEOUT_MS - 5 &&
		    elapsed < RTSHIM_CLIENT_DEFAULT_TIMEOUT_MS + 200);

	assert_int_equal(sigaction(SIGPIPE, NULL, &now), 0);
	assert_ptr_equal(now.sa_handler, SIG_DFL);
	assert_int_equal(count_fds(), fds);

	rtshim_conn_forget_silence();
	sigaction(SIGPIPE, &old, NULL);
	close(lfd);
	unlink(path);
}

/* rtrun --check's questions (doctor.c) on a bus that accepts and hangs: the connection's
 * Hello is bounded like every call of the client (libdbus's blocking send waited forever in
 * its flush here), and the connection is closed. */
static void test_doctor_hung_bus(void **state)
{
	struct rtshim_bus_report rep;
	int lfd, fds;
	long long t0, elapsed;

	(void)state;
	lfd = listen_silent();
	setenv("DBUS_SYSTEM_BUS_ADDRESS", address, 1);
	fds = count_fds();
	t0 = now_ms();
	rtshim_doctor_v1.bus_probe(200, &rep);
	elapsed = now_ms() - t0;
	print_message("# hung bus, doctor with timeout 200 ms: bus=%d after %lld ms: %s\n", rep.bus,
		      elapsed, rep.bus_error);
	assert_int_equal(rep.bus, -ETIMEDOUT);
	assert_true(elapsed >= 195 && elapsed < 400);
	assert_string_equal(rep.bus_error, "no answer within 200 ms (the bus daemon may be hung)");
	assert_string_equal(rep.address, address);
	assert_int_equal(rep.rtkit_owner, -ENOTCONN);
	assert_int_equal(rep.polkit, -ENOTCONN);
	assert_int_equal(count_fds(), fds);
	close(lfd);
	unlink(path);
}

/* No socket: no bus, in the client's terms (errors.c), with libdbus's words. */
static void test_doctor_no_socket(void **state)
{
	struct rtshim_bus_report rep;

	(void)state;
	setenv("DBUS_SYSTEM_BUS_ADDRESS", address, 1);
	rtshim_doctor_v1.bus_probe(200, &rep);
	assert_int_equal(rep.bus, -ENOTCONN);
	assert_non_null(strstr(rep.bus_error, path));
}

/* The bus accepts and closes at once: no bus, said quickly. */
static void test_bus_closes(void **state)
{
	int lfd, cfd;
	pid_t child;

	(void)state;
	lfd = listen_silent();
	setenv("DBUS_SYSTEM_BUS_ADDRESS", address, 1);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		while ((cfd = accept(lfd, NULL, NULL)) >= 0)
			close(cfd);
		_exit(0);
	}
	assert_int_equal(rtkit_make_realtime(0, getpid(), 10), -ENOTCONN);
	kill(child, SIGKILL);
	close(lfd);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exported_object),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_no_socket),
		cmocka_unit_test(test_bad_address),
		cmocka_unit_test(test_hung_bus),
		cmocka_unit_test(test_bus_closes),
		cmocka_unit_test(test_doctor_hung_bus),
		cmocka_unit_test(test_doctor_no_socket),
	};

	return cmocka_run_group_tests_name("client-nobus", tests, setup, teardown);
}
