/* test-sandbox.c — the sandbox rule (daemon-client/sandbox.c) that the daemon client (Realtime portal or
 * rtkit) and rtrun --check share, and the client's use of it (portal.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "client-internal.h"
#include "sandbox.h"

static void test_rule(void **state)
{
	(void)state;
	assert_int_equal(rtshim_sandbox_of(false, NULL), RTSHIM_SANDBOX_NONE);
	assert_int_equal(rtshim_sandbox_of(false, ""), RTSHIM_SANDBOX_NONE); /* empty: no snap */
	assert_int_equal(rtshim_sandbox_of(false, "/snap/app/1"), RTSHIM_SANDBOX_SNAP);
	assert_int_equal(rtshim_sandbox_of(true, NULL), RTSHIM_SANDBOX_FLATPAK);
	assert_int_equal(rtshim_sandbox_of(true, ""), RTSHIM_SANDBOX_FLATPAK);
	assert_int_equal(rtshim_sandbox_of(true, "/snap/app/1"), RTSHIM_SANDBOX_FLATPAK);
}

static const char *snap_value;

static char *fake_get(const char *name)
{
	return strcmp(name, "SNAP") == 0 ? (char *)snap_value : NULL;
}

/* This process: $SNAP through the getter it is given (never the real environment). */
static void test_detect(void **state)
{
	(void)state;
	if (access("/.flatpak-info", F_OK) == 0)
		skip();
	snap_value = NULL;
	assert_int_equal(rtshim_sandbox_detect(fake_get), RTSHIM_SANDBOX_NONE);
	snap_value = "";
	assert_int_equal(rtshim_sandbox_detect(fake_get), RTSHIM_SANDBOX_NONE);
	snap_value = "/snap/app/1";
	assert_int_equal(rtshim_sandbox_detect(fake_get), RTSHIM_SANDBOX_SNAP);
}

/* The client's answer follows the same rule. */
static void test_client(void **state)
{
	(void)state;
	if (access("/.flatpak-info", F_OK) == 0)
		skip();
	unsetenv("SNAP");
	assert_int_equal(rtshim_in_sandbox(), 0);
	setenv("SNAP", "", 1);
	assert_int_equal(rtshim_in_sandbox(), 0);
	setenv("SNAP", "/snap/app/1", 1);
	assert_int_equal(rtshim_in_sandbox(), 1);
	unsetenv("SNAP");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rule),
		cmocka_unit_test(test_detect),
		cmocka_unit_test(test_client),
	};

	return cmocka_run_group_tests_name("sandbox", tests, NULL, NULL);
}
