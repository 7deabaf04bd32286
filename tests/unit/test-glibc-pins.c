/* test-glibc-pins.c — what the shim relies on that glibc does not promise, on the glibc this
 * runs on (make check on Debian 12; scripts/release-chroot on Debian 13): the pthread_create
 * version shim/real.c asks for by name exists. */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

static void pthread_create_version_exists(void **state)
{
	(void)state;
	assert_non_null(dlvsym(RTLD_DEFAULT, "pthread_create", "GLIBC_2.34"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pthread_create_version_exists),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
