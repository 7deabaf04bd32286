/* test-glibc-pins.c — what the shim relies on that glibc does not promise, on the glibc this
 * runs on (make check on Debian 12; scripts/release-chroot on Debian 13): the loader's lock that
 * shim/loader-lock.c finds in the loader's data is the one dlopen takes, and the pthread_create
 * version shim/real.c asks for by name exists. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "loader-lock.h"

static int done;

static void *open_libc(void *arg)
{
	(void)arg;
	void *h = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	if (h)
		dlclose(h);
	__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* held by this thread, the lock found keeps another thread's dlopen from finishing */
static void loader_lock_is_dlopens(void **state)
{
	(void)state;
	pthread_mutex_t *lock = rtshim_loader_lock();
	assert_non_null(lock);
	assert_int_equal(pthread_mutex_lock(lock), 0);
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, open_libc, NULL), 0);
	sleep_ms(300);
	assert_int_equal(__atomic_load_n(&done, __ATOMIC_ACQUIRE), 0);
	assert_int_equal(pthread_mutex_unlock(lock), 0);
	for (int i = 0; i < 1000 && !__atomic_load_n(&done, __ATOMIC_ACQUIRE); i++)
		sleep_ms(10);
	assert_int_equal(__atomic_load_n(&done, __ATOMIC_ACQUIRE), 1);
	assert_int_equal(pthread_join(t, NULL), 0);
}

static void pthread_create_version_exists(void **state)
{
	(void)state;
	assert_non_null(dlvsym(RTLD_DEFAULT, "pthread_create", "GLIBC_2.34"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(loader_lock_is_dlopens),
		cmocka_unit_test(pthread_create_version_exists),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
