/* test-reach.c — the pure parts of the nice fallback, the trace and the Realtime portal:
 * RTSHIM_NICE_FALLBACK / RTSHIM_TRACE / RTSHIM_ONLY
 * parsing, RTSHIM_ONLY's pattern matching, the sandbox test and bus address of the portal
 * backend, and the portal's error names. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "client-internal.h"
#include "config.h"
#include "trace.h"

static void test_config_defaults(void **state)
{
	(void)state;
	struct rtshim_config c;
	rtshim_config_defaults(&c);
	assert_int_equal(c.nice_fallback, RTSHIM_NICE_REFUSED);
	assert_false(c.trace);
	assert_string_equal(c.only, "");
}

static void test_config_nice_fallback(void **state)
{
	(void)state;
	struct rtshim_config c;
	rtshim_config_defaults(&c);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_NICE_FALLBACK", "always"), 0);
	assert_int_equal(c.nice_fallback, RTSHIM_NICE_ALWAYS);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_NICE_FALLBACK", "OFF"), 0);
	assert_int_equal(c.nice_fallback, RTSHIM_NICE_OFF);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_NICE_FALLBACK", "refused"), 0);
	assert_int_equal(c.nice_fallback, RTSHIM_NICE_REFUSED);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_NICE_FALLBACK", "1"), 0);
	assert_int_equal(c.nice_fallback, RTSHIM_NICE_ALWAYS);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_NICE_FALLBACK", "no"), 0);
	assert_int_equal(c.nice_fallback, RTSHIM_NICE_OFF);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_NICE_FALLBACK", ""), -EINVAL);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_NICE_FALLBACK", "sometimes"), -EINVAL);
	assert_int_equal(c.nice_fallback, RTSHIM_NICE_OFF); /* a bad value changes nothing */
}

static void test_config_trace_only(void **state)
{
	(void)state;
	struct rtshim_config c;
	char big[300];
	rtshim_config_defaults(&c);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_TRACE", "on"), 0);
	assert_true(c.trace);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_TRACE", "maybe"), -EINVAL);
	assert_true(c.trace);
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_ONLY", "libjack*,libzita-*.so.?"), 0);
	assert_string_equal(c.only, "libjack*,libzita-*.so.?");
	/* empty patterns, '/', blanks, control bytes, too long: refused, the old value kept */
	const char *bad[] = { "", ",", "libjack*,", ",libjack*", "a,,b", "/usr/lib/libjack.so",
			      "lib jack", "lib\tjack", "lib\x01", "lib\xc3\xa9" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_equal(rtshim_config_set(&c, "RTSHIM_ONLY", bad[i]), -EINVAL);
	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_ONLY", big), -EINVAL);
	big[255] = '\0';
	assert_int_equal(rtshim_config_set(&c, "RTSHIM_ONLY", big), 0);
	assert_int_equal(strlen(c.only), 255);
}

static void test_only_match(void **state)
{
	(void)state;
	assert_true(rtshim_only_match("libjack*", "libjack.so.0"));
	assert_true(rtshim_only_match("libjack*", "libjackserver.so.0"));
	assert_false(rtshim_only_match("libjack.so*", "libjackserver.so.0"));
	assert_true(rtshim_only_match("nomatch,libaskb.so*", "libaskb.so"));
	assert_false(rtshim_only_match("nomatch,libaskb.so*", "libaska.so"));
	assert_true(rtshim_only_match("jackd", "jackd"));
	assert_false(rtshim_only_match("", "libjack.so.0"));
	assert_false(rtshim_only_match(NULL, "libjack.so.0"));
	assert_false(rtshim_only_match("libjack*", NULL));
	assert_true(rtshim_only_match("lib[ab]*", "libb.so"));
}

static void test_sandbox(void **state)
{
	(void)state;
	char buf[256];
	struct rtshim_backend sys = { .portal = 0 }, portal = { .portal = 1 };

	if (access("/.flatpak-info", F_OK) == 0)
		skip();
	unsetenv("SNAP");
	assert_int_equal(rtshim_in_sandbox(), 0);
	setenv("SNAP", "", 1);
	assert_int_equal(rtshim_in_sandbox(), 0);
	setenv("SNAP", "/snap/foo/1", 1);
	assert_int_equal(rtshim_in_sandbox(), 1);
	unsetenv("SNAP");

	setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/tmp/sys", 1);
	setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/tmp/sess", 1);
	assert_int_equal(rtshim_backend_address(&sys, buf, sizeof buf), 0);
	assert_string_equal(buf, "unix:path=/tmp/sys");
	assert_int_equal(rtshim_backend_address(&portal, buf, sizeof buf), 0);
	assert_string_equal(buf, "unix:path=/tmp/sess");
	unsetenv("DBUS_SYSTEM_BUS_ADDRESS");
	unsetenv("DBUS_SESSION_BUS_ADDRESS");
	assert_int_equal(rtshim_backend_address(&sys, buf, sizeof buf), 0);
	assert_string_equal(buf, "unix:path=/run/dbus/system_bus_socket");
	setenv("XDG_RUNTIME_DIR", "/run/user/1000", 1);
	assert_int_equal(rtshim_backend_address(&portal, buf, sizeof buf), 0);
	assert_string_equal(buf, "unix:path=/run/user/1000/bus");
	unsetenv("XDG_RUNTIME_DIR");
	assert_int_equal(rtshim_backend_address(&portal, buf, sizeof buf), -1);
	assert_int_equal(rtshim_backend_address(&sys, buf, 8), -1);
}

static void test_portal_errors(void **state)
{
	(void)state;
	assert_int_equal(rtshim_errno_from_dbus_error("org.freedesktop.portal.Error.NotAllowed", "no"), -EPERM);
	assert_int_equal(rtshim_errno_from_dbus_error("org.freedesktop.portal.Error.Failed",
						      "Invalid argument"), -EINVAL);
	/* the portal passes rtkit's errors on with GDBus's prefix in the message */
	assert_int_equal(rtshim_errno_from_dbus_error("org.freedesktop.DBus.Error.AccessDenied",
						      "GDBus.Error:org.freedesktop.DBus.Error.AccessDenied: Device or resource busy"),
			 -EBUSY);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_defaults),
		cmocka_unit_test(test_config_nice_fallback),
		cmocka_unit_test(test_config_trace_only),
		cmocka_unit_test(test_only_match),
		cmocka_unit_test(test_sandbox),
		cmocka_unit_test(test_portal_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
