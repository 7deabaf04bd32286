/* libearly.so — a library linked by a program (early-ctor) whose constructor asks for RT
 * before the shim's own constructor has run: the shim's hooks must resolve the real functions
 * lazily and work without any initialisation. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

int libearly_rc = -100, libearly_errno;
int libearly_tid;

__attribute__((visibility("default"))) int libearly_result(int *err, int *tid);

int libearly_result(int *err, int *tid)
{
	*err = libearly_errno;
	*tid = libearly_tid;
	return libearly_rc;
}

__attribute__((constructor)) static void early(void)
{
	struct sched_param sp = { .sched_priority = 60 };
	libearly_tid = (int)syscall(SYS_gettid);
	errno = 0;
	libearly_rc = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	libearly_errno = libearly_rc;
}
