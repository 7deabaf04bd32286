/* test-client-errors.c — the pure part of the daemon client: D-Bus error replies → errno,
 * and the one-line explanations. No bus involved. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <dbus/dbus.h> /* libdbus's names of the errors, against errors.c's own */

#include "client-internal.h"
#include "rtkit-client.h"

/* Messages exactly as rtkit 0.13 sends them: strerror() of its internal errno. */
static void test_rtkit_refusals(void **state)
{
	(void)state;
	assert_int_equal(rtshim_errno_from_dbus_error(DBUS_ERROR_ACCESS_DENIED,
						      "Operation not permitted"), -EPERM);
	assert_int_equal(rtshim_errno_from_dbus_error(DBUS_ERROR_ACCESS_DENIED,
						      "Permission denied"), -EPERM);
	assert_int_equal(rtshim_errno_from_dbus_error(DBUS_ERROR_ACCESS_DENIED,
						      "Device or resource busy"), -EBUSY);
	assert_int_equal(rtshim_errno_from_dbus_error(DBUS_ERROR_ACCESS_DENIED, NULL), -EPERM);
	assert_int_equal(rtshim_errno_from_dbus_error(DBUS_ERROR_ACCESS_DENIED, ""), -EPERM);
	/* The bus's own policy refusing the call. */
	assert_int_equal(rtshim_errno_from_dbus_error(DBUS_ERROR_ACCESS_DENIED,
		"Rejected send message, 1 matched rules; type=\"method_call\""), -EPERM);
}

static void test_rtkit_failures(void **state)
{
	(void)state;
	assert_int_equal(rtshim_errno_from_dbus_error(DBUS_ERROR_FAILED, "Invalid argument"),
			 -EINVAL);
	assert_int_equal(rtshim_errno_from_dbus_error(DBUS_ERROR_FAILED,
						      "No such file or directory"), -ENOENT);
	assert_int_equal(rtshim_errno_from_dbus_error(DBUS_ERROR_FAILED, "No such process"),
			 -ENOENT);
	assert_int_equal(rtshim_errno_from_dbus_error(DBUS_ERROR_FAILED, "Input/output error"),
			 -EIO);
	assert_int_equal(rtshim_errno_from_dbus_error(DBUS_ERROR_FAILED, NULL), -EIO);
	assert_int_equal(rtshim_errno_from_dbus_error(DBUS_ERROR_NO_MEMORY, "Out of memory"),
			 -ENOMEM);
	assert_int_equal(rtshim_errno_from_dbus_error(DBUS_ERROR_INVALID_ARGS, "x"), -EINVAL);
}

static void test_no_daemon(void **state)
{
	(void)state;
	assert_int_equal(rtshim_errno_from_dbus_error(DBUS_ERROR_SERVICE_UNKNOWN,
		"The name org.freedesktop.RealtimeKit1 was not provided by any .service files"),
		-ENOTCONN);
	assert_int_equal(rtshim_errno_from_dbus_error(DBUS_ERROR_NAME_HAS_NO_OWNER, "x"),
			 -ENOTCONN);
	assert_int_equal(rtshim_errno_from_dbus_error(DBUS_ERROR_NO_SERVER,
		"Failed to connect to socket /x: Connection refused"), -ENOTCONN);
	assert_int_equal(rtshim_errno_from_dbus_error(DBUS_ERROR_DISCONNECTED,
		"Connection was disconnected before a reply was received"), -ENOTCONN);
	assert_int_equal(rtshim_errno_from_dbus_error(DBUS_ERROR_FILE_NOT_FOUND,
		"Failed to connect to socket /x: No such file or directory"), -ENOTCONN);
	assert_int_equal(rtshim_errno_from_dbus_error("org.freedesktop.DBus.Error.Spawn.ChildExited",
						      "x"), -ENOTCONN);
	/* rtkit left the bus in the middle of our call: gone, not hung. */
	assert_int_equal(rtshim_errno_from_dbus_error(DBUS_ERROR_NO_REPLY,
		"Message recipient disconnected from message bus without replying"), -ENOTCONN);
}

static void test_timeouts(void **state)
{
	(void)state;
	assert_int_equal(rtshim_errno_from_dbus_error(DBUS_ERROR_NO_REPLY,
		"Did not receive a reply. Possible causes include: the remote application did not "
		"send a reply, the message bus security policy blocked the reply, the reply "
		"timeout expired, or the network connection was broken."), -ETIMEDOUT);
	assert_int_equal(rtshim_errno_from_dbus_error(DBUS_ERROR_NO_REPLY, NULL), -ETIMEDOUT);
	assert_int_equal(rtshim_errno_from_dbus_error(DBUS_ERROR_TIMEOUT, "x"), -ETIMEDOUT);
	assert_int_equal(rtshim_errno_from_dbus_error(DBUS_ERROR_TIMED_OUT, "x"), -ETIMEDOUT);
}

static void test_protocol_and_unknown(void **state)
{
	(void)state;
	assert_int_equal(rtshim_errno_from_dbus_error(DBUS_ERROR_UNKNOWN_METHOD, "x"), -EPROTO);
	assert_int_equal(rtshim_errno_from_dbus_error(DBUS_ERROR_UNKNOWN_PROPERTY, "x"), -EPROTO);
	assert_int_equal(rtshim_errno_from_dbus_error(DBUS_ERROR_UNKNOWN_OBJECT, "x"), -EPROTO);
	assert_int_equal(rtshim_errno_from_dbus_error(DBUS_ERROR_INVALID_SIGNATURE, "x"), -EPROTO);
	assert_int_equal(rtshim_errno_from_dbus_error("com.example.Weird", "busy"), -EIO);
	assert_int_equal(rtshim_errno_from_dbus_error(NULL, "busy"), -EIO);
	assert_int_equal(rtshim_errno_from_dbus_error("", NULL), -EIO);
}

static void test_connect_errors(void **state)
{
	(void)state;
	assert_int_equal(rtshim_errno_from_connect_error(DBUS_ERROR_FILE_NOT_FOUND, "x"), -ENOTCONN);
	assert_int_equal(rtshim_errno_from_connect_error(DBUS_ERROR_NO_SERVER, "x"), -ENOTCONN);
	assert_int_equal(rtshim_errno_from_connect_error(DBUS_ERROR_BAD_ADDRESS, "x"), -ENOTCONN);
	assert_int_equal(rtshim_errno_from_connect_error(DBUS_ERROR_AUTH_FAILED, "x"), -ENOTCONN);
	/* Refused by the bus (e.g. Hello denied) is still "no usable bus", not rtkit's EPERM. */
	assert_int_equal(rtshim_errno_from_connect_error(DBUS_ERROR_ACCESS_DENIED, "x"), -ENOTCONN);
	assert_int_equal(rtshim_errno_from_connect_error(DBUS_ERROR_FAILED, "Invalid argument"),
			 -ENOTCONN);
	assert_int_equal(rtshim_errno_from_connect_error(NULL, NULL), -ENOTCONN);
	assert_int_equal(rtshim_errno_from_connect_error(DBUS_ERROR_NO_REPLY, "x"), -ETIMEDOUT);
	assert_int_equal(rtshim_errno_from_connect_error(DBUS_ERROR_NO_MEMORY, "x"), -ENOMEM);
}

static const int api_errnos[] = { EPERM, EBUSY, EINVAL, ENOENT, ENOTCONN, ETIMEDOUT, EPROTO,
				  ENOMEM, EIO };
#define N_API_ERRNOS (sizeof(api_errnos) / sizeof(api_errnos[0]))

static void test_strerror_each_distinct_one_line(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_API_ERRNOS; i++) {
		const char *s = rtkit_strerror(-api_errnos[i]);

		assert_non_null(s);
		assert_true(strlen(s) > 10);
		assert_null(strchr(s, '\n'));
		/* Positive and negative errno give the same text. */
		assert_string_equal(s, rtkit_strerror(api_errnos[i]));
		assert_string_not_equal(s, rtkit_strerror(-ERANGE));
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(s, rtkit_strerror(-api_errnos[j]));
	}
}

static void test_strerror_texts(void **state)
{
	(void)state;
	assert_string_equal(rtkit_strerror(-EPERM),
		"rtkit refused: priority above its maximum, RLIMIT_RTTIME not set or too high, "
		"or polkit denied this session");
	assert_non_null(strstr(rtkit_strerror(-EBUSY), "limit"));
	assert_non_null(strstr(rtkit_strerror(-ETIMEDOUT), "timeout"));
	assert_non_null(strstr(rtkit_strerror(-ENOTCONN), "rtkit-daemon"));
	assert_string_equal(rtkit_strerror(0), "success");
	/* Whatever comes in, something printable comes out (INT_MIN cannot be negated). */
	assert_non_null(rtkit_strerror(INT_MIN));
	assert_non_null(rtkit_strerror(INT_MAX));
	assert_string_equal(rtkit_strerror(INT_MIN), rtkit_strerror(-ERANGE));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rtkit_refusals),
		cmocka_unit_test(test_rtkit_failures),
		cmocka_unit_test(test_no_daemon),
		cmocka_unit_test(test_timeouts),
		cmocka_unit_test(test_protocol_and_unknown),
		cmocka_unit_test(test_connect_errors),
		cmocka_unit_test(test_strerror_each_distinct_one_line),
		cmocka_unit_test(test_strerror_texts),
	};

	return cmocka_run_group_tests_name("client-errors", tests, NULL, NULL);
}
