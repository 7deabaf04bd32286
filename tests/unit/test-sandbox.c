/* test-sandbox.c — the sandbox rule (daemon-client/sandbox.c) that the daemon client (Realtime portal or
 * rtkit) and rtrun --check share, and the client's use of it (portal.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "client-internal.h"
#include "sandbox.h"

static void test_rule(void **state)
{
	(void)state;
	assert_int_equal(rtshim_sandbox_of(false, NULL, NULL), RTSHIM_SANDBOX_NONE);
	assert_int_equal(rtshim_sandbox_of(false, "", NULL), RTSHIM_SANDBOX_NONE); /* empty: no snap */
	assert_int_equal(rtshim_sandbox_of(false, "/snap/app/1", NULL), RTSHIM_SANDBOX_SNAP);
	assert_int_equal(rtshim_sandbox_of(true, NULL, NULL), RTSHIM_SANDBOX_FLATPAK);
	assert_int_equal(rtshim_sandbox_of(true, "", NULL), RTSHIM_SANDBOX_FLATPAK);
	assert_int_equal(rtshim_sandbox_of(true, "/snap/app/1", NULL), RTSHIM_SANDBOX_FLATPAK);
	/* with an AppArmor label: only a snap's profile is a Snap; $SNAP leaked into a host
	 * program (a classic snap's terminal) is not */
	assert_int_equal(rtshim_sandbox_of(false, "/snap/code/1", "unconfined"), RTSHIM_SANDBOX_NONE);
	assert_int_equal(rtshim_sandbox_of(false, "/snap/code/1", "/usr/bin/man (enforce)"),
			 RTSHIM_SANDBOX_NONE);
	assert_int_equal(rtshim_sandbox_of(false, "/snap/app/1", "snap.app.app (enforce)"),
			 RTSHIM_SANDBOX_SNAP);
	assert_int_equal(rtshim_sandbox_of(false, "/snap/app/1", "snap.app.app (complain)"),
			 RTSHIM_SANDBOX_SNAP);
	assert_int_equal(rtshim_sandbox_of(false, NULL, "snap.app.app (enforce)"), RTSHIM_SANDBOX_NONE);
	assert_int_equal(rtshim_sandbox_of(true, "/snap/app/1", "unconfined"), RTSHIM_SANDBOX_FLATPAK);
}

static const char *snap_value;

static char *fake_get(const char *name)
{
	return strcmp(name, "SNAP") == 0 ? (char *)snap_value : NULL;
}

/* What $SNAP alone gives this process: a Snap where no AppArmor label can be read (no such
 * module), else a Snap only under a snap's profile (this test runs under none). */
static enum rtshim_sandbox snap_set_gives(void)
{
	char label[256] = "";
	const char *paths[] = { "/proc/self/attr/apparmor/current", "/proc/self/attr/current" };
	for (size_t i = 0; i < 2 && !label[0]; i++) {
		FILE *f = fopen(paths[i], "re");
		if (f && !fgets(label, sizeof label, f))
			label[0] = '\0';
		if (f)
			fclose(f);
	}
	label[strcspn(label, "\n")] = '\0';
	return !label[0] || strncmp(label, "snap.", 5) == 0 ? RTSHIM_SANDBOX_SNAP : RTSHIM_SANDBOX_NONE;
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
	assert_int_equal(rtshim_sandbox_detect(fake_get), snap_set_gives());
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
	assert_int_equal(rtshim_in_sandbox(), snap_set_gives() == RTSHIM_SANDBOX_SNAP);
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
