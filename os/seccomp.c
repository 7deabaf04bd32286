/* seccomp.c — see seccomp.h.  One prctl, made as the raw system call (no interposer of anyone's
 * in between), until the first "filtered". */
#include <errno.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "raw-syscall.h"
#include "seccomp.h"

static int filtered; /* inherited by fork, as the filter is */

bool rtshim_seccomp_filtered(void)
{
	if (__atomic_load_n(&filtered, __ATOMIC_RELAXED))
		return true;
	int saved = errno;
	long mode = rtshim_raw_syscall(SYS_prctl, PR_GET_SECCOMP, 0L, 0L, 0L, 0L);
	int err = errno;
	errno = saved;
	/* EINVAL: no seccomp to ask (a kernel without CONFIG_SECCOMP, or qemu-user, which answers
	 * PR_GET_SECCOMP itself): nothing filters this process.  Any other failure is a filter's. */
	if (mode == 0 || (mode < 0 && err == EINVAL))
		return false;
	__atomic_store_n(&filtered, 1, __ATOMIC_RELAXED);
	return true;
}
