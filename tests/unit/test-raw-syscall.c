/* test-raw-syscall.c — kernel/raw-syscall.h: rtshim_raw_syscall keeps syscall(3)'s contract
 * (-1 and errno), rtshim_raw_syscall_result returns the kernel's -errno and never writes errno
 * (the keeper's child shares rtrun's). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include "raw-syscall.h"

static void raw_syscall_sets_errno(void **state)
{
	(void)state;
	errno = 0;
	assert_int_equal(rtshim_raw_syscall(SYS_close, -1L), -1);
	assert_int_equal(errno, EBADF);
	assert_int_equal(rtshim_raw_syscall(SYS_getpid), getpid());
}

#ifdef RTSHIM_SYSCALL_ENTRY
static void raw_syscall_result_leaves_errno(void **state)
{
	(void)state;
	errno = 1234;
	assert_int_equal(rtshim_raw_syscall_result(SYS_close, -1L), -EBADF);
	assert_int_equal(rtshim_raw_syscall_result(SYS_getpid), getpid());
	/* three arguments */
	assert_int_equal(rtshim_raw_syscall_result(SYS_write, -1L, 0L, 0L), -EBADF);
	assert_int_equal(rtshim_raw_syscall_result(SYS_getppid), getppid());
	assert_int_equal(errno, 1234);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(raw_syscall_sets_errno),
#ifdef RTSHIM_SYSCALL_ENTRY
		cmocka_unit_test(raw_syscall_result_leaves_errno),
#endif
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
