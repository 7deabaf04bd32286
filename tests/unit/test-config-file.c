/* test-config-file.c — the configuration files' lines (core/config-file.c), where a setting
 * comes from (environment, user's file, system's file), and the name a misspelt RTSHIM_*
 * variable probably meant (core/config.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config-file.h"
#include "config.h"

static int bad_count, bad_line;
static const char *bad_meant;
static char bad_text[64];

static void count_bad(void *ctx, const char *path, int line, const char *text, const char *meant)
{
	(void)ctx;
	(void)path;
	bad_count++;
	bad_line = line;
	bad_meant = meant;
	snprintf(bad_text, sizeof bad_text, "%s", text);
}

static void parse(struct rtshim_conf_file *f, const char *path, const char *text)
{
	f->path = path;
	snprintf(f->text, sizeof f->text, "%s", text);
	bad_count = 0;
	rtshim_conf_parse(f, strlen(f->text), count_bad, NULL);
}

static const char *value_of(const struct rtshim_conf_file *f, const char *name)
{
	const char *from;
	const struct rtshim_conf_file *list[1] = { f };
	return rtshim_conf_lookup(NULL, list, 1, name, &from);
}

static void test_lines(void **state)
{
	(void)state;
	struct rtshim_conf_file f;
	parse(&f, "/u", "# a comment\n\n  RTSHIM_PRIO_MAP = scale  \r\nRTSHIM_TOP=\"70\"\n"
			"RTSHIM_LOG='info'\nRTSHIM_TOP=60\n\t# another\n");
	assert_int_equal(bad_count, 0);
	assert_string_equal(value_of(&f, "RTSHIM_PRIO_MAP"), "scale");
	assert_string_equal(value_of(&f, "RTSHIM_TOP"), "60"); /* the last line wins */
	assert_string_equal(value_of(&f, "RTSHIM_LOG"), "info");
	assert_null(value_of(&f, "RTSHIM_STRICT"));
	/* no '=': said with no name meant; an unknown name: with the name meant, or "" */
	parse(&f, "/u", "RTSHIM_STRICT=1\nbogus\nRTSHIM_MAP=scale\nSOMETHING=1");
	assert_int_equal(bad_count, 3);
	assert_int_equal(bad_line, 4);
	assert_string_equal(bad_text, "SOMETHING");
	assert_string_equal(bad_meant, "");
	assert_string_equal(value_of(&f, "RTSHIM_STRICT"), "1");
	parse(&f, "/u", "RTSHIM_MAP=scale");
	assert_string_equal(bad_meant, "RTSHIM_PRIO_MAP");
	parse(&f, "/u", "just words");
	assert_null(bad_meant);
}

static char *env_top(const char *name)
{
	return strcmp(name, "RTSHIM_TOP") ? NULL : (char *)"50";
}

static void test_precedence(void **state)
{
	(void)state;
	static struct rtshim_conf_file user, sys;
	const struct rtshim_conf_file *list[2] = { &user, &sys };
	const char *from;
	parse(&user, "/user", "RTSHIM_TOP=60\nRTSHIM_PRIO_MAP=offset");
	parse(&sys, "/sys", "RTSHIM_TOP=70\nRTSHIM_PRIO_MAP=scale\nRTSHIM_LOG=debug");
	assert_string_equal(rtshim_conf_lookup(env_top, list, 2, "RTSHIM_TOP", &from), "50");
	assert_null(from);
	assert_string_equal(rtshim_conf_lookup(env_top, list, 2, "RTSHIM_PRIO_MAP", &from), "offset");
	assert_string_equal(from, "/user");
	assert_string_equal(rtshim_conf_lookup(env_top, list, 2, "RTSHIM_LOG", &from), "debug");
	assert_string_equal(from, "/sys");
	/* a file that was not read counts for nothing */
	user.path = NULL;
	assert_string_equal(rtshim_conf_lookup(env_top, list, 2, "RTSHIM_PRIO_MAP", &from), "scale");
	assert_null(rtshim_conf_lookup(env_top, list, 2, "RTSHIM_STRICT", &from));
}

static void test_misspelt(void **state)
{
	(void)state;
	assert_string_equal(rtshim_config_misspelt("RTSHIM_MAP=scale"), "RTSHIM_PRIO_MAP");
	assert_string_equal(rtshim_config_misspelt("RTSHIM_TIMEOUT=900"), "RTSHIM_TIMEOUT_MS");
	assert_string_equal(rtshim_config_misspelt("RTSHIM_LOGG=info"), "RTSHIM_LOG");
	assert_string_equal(rtshim_config_misspelt("RTSHIM_STRCT=1"), "RTSHIM_STRICT");
	/* rtshim's own names, other variables, and RTSHIM_* names near none of rtshim's */
	assert_null(rtshim_config_misspelt("RTSHIM_PRIO_MAP=scale"));
	assert_null(rtshim_config_misspelt("RTSHIM_CONFIG_FILES=0"));
	assert_null(rtshim_config_misspelt("RTSHIM_DISABLE=1"));
	assert_null(rtshim_config_misspelt("PATH=/bin"));
	assert_null(rtshim_config_misspelt("RTSHIM_ROOT=/src"));
	assert_null(rtshim_config_misspelt("RTSHIM_TEST_USER=u"));
	assert_null(rtshim_config_misspelt("RTSHIM_ASAN_RUNTIME=x"));
	assert_null(rtshim_config_misspelt("RTSHIM_="));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_precedence),
		cmocka_unit_test(test_misspelt),
	};
	return cmocka_run_group_tests_name("config-file", tests, NULL, NULL);
}
