/* syscall-pass — system calls other than the two scheduling ones, made through syscall(): the
 * shim's syscall() must hand them on untouched, every argument included (the sixth is on the
 * stack for syscall() on x86_64, all of them are on i386, the fourth to sixth on arm, the fifth
 * and sixth on s390x).  One
 * line per case, "case NAME ok" or "case NAME FAIL: why"; exit status 1 if any failed.  Run
 * with and without the shim: the same lines. */
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>

#include "probe.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

static int failed;

static void check(const char *name, int ok, const char *why)
{
	printf("case %s %s%s\n", name, ok ? "ok" : "FAIL: ", ok ? "" : why);
	failed |= !ok;
}

#ifndef __s390x__
/* mmap with all six arguments meaningful: a fixed address, length, protection, flags, the
 * descriptor and an offset of one page (SYS_mmap2 on i386 counts the offset in pages). */
static long mmap6(void *addr, size_t len, int prot, int flags, int fd)
{
#ifdef SYS_mmap2
	return syscall(SYS_mmap2, addr, len, prot, flags, fd, 1L);
#else
	return syscall(SYS_mmap, addr, len, prot, flags, fd, (long)sysconf(_SC_PAGESIZE));
#endif
}

/* The cases of a six-argument mmap on FD, whose second page is filled with 'b'. */
static void six_arguments(int fd, long page)
{
	char why[160];
	long r;
	/* a free address: reserve two pages, give the second back */
	char *area = mmap(NULL, 2 * (size_t)page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *want = area + page;
	munmap(want, (size_t)page);
	errno = 0;
	r = mmap6(want, (size_t)page, PROT_READ, MAP_PRIVATE | MAP_FIXED_NOREPLACE, fd);
	snprintf(why, sizeof why, "returned %#lx (errno %s), asked %p", (unsigned long)r,
		 probe_errname(errno), (void *)want);
	int at = r == (long)(uintptr_t)want;
	check("six-arguments-address", at, why);
	check("six-arguments-offset", at && want[0] == 'b' && want[page - 1] == 'b',
	      "not the file's second page");
	/* the same again: the address is taken now, EEXIST from MAP_FIXED_NOREPLACE */
	errno = 0;
	r = mmap6(want, (size_t)page, PROT_READ, MAP_PRIVATE | MAP_FIXED_NOREPLACE, fd);
	snprintf(why, sizeof why, "returned %ld, errno %s", r, probe_errname(errno));
	check("six-arguments-error", r == -1 && errno == EEXIST, why);
	/* a bad descriptor in the fifth argument */
	errno = 0;
	r = mmap6(NULL, (size_t)page, PROT_READ, MAP_PRIVATE, 1000000);
	snprintf(why, sizeof why, "returned %ld, errno %s", r, probe_errname(errno));
	check("fifth-argument-bad-fd", r == -1 && errno == EBADF, why);
}
#else
/* s390x's mmap takes one pointer to its six: copy_file_range has six arguments in registers and
 * on the stack, each of them seen in what it does (both offsets, the length, the flags). */
static void six_arguments(int fd, long page)
{
	char why[160];
	char path[] = "/tmp/rtshim-syscall-pass.XXXXXX";
	int out = mkstemp(path);
	if (out < 0 || unlink(path) < 0) {
		check("six-arguments-copy", 0, "mkstemp");
		return;
	}
	long long off_in = page, off_out = 3;
	errno = 0;
	long r = syscall(SYS_copy_file_range, fd, &off_in, out, &off_out, (size_t)page, 0U);
	snprintf(why, sizeof why, "returned %ld (errno %s), offsets %lld %lld", r,
		 probe_errname(errno), off_in, off_out);
	char *got = calloc(1, (size_t)page + 3);
	int copied = r == page && off_in == 2 * page && off_out == page + 3 &&
		     pread(out, got, (size_t)page + 3, 0) == page + 3 && got[2] == 0 &&
		     got[3] == 'b' && got[page + 2] == 'b';
	check("six-arguments-copy", copied, why);
	/* flags other than 0, the sixth argument, are EINVAL */
	errno = 0;
	r = syscall(SYS_copy_file_range, fd, &off_in, out, &off_out, (size_t)page, 1U);
	snprintf(why, sizeof why, "returned %ld, errno %s", r, probe_errname(errno));
	check("sixth-argument-flags", r == -1 && errno == EINVAL, why);
	free(got);
	close(out);
}
#endif

int main(void)
{
	long page = sysconf(_SC_PAGESIZE);
	setvbuf(stdout, NULL, _IOLBF, 0);

	check("gettid", syscall(SYS_gettid) == gettid(), "not gettid()");
	check("getpid", syscall(SYS_getpid) == getpid(), "not getpid()");
	errno = 1234;
	check("success-keeps-errno", syscall(SYS_getppid) == getppid() && errno == 1234,
	      "errno changed by a successful call");
#ifndef __arm__
	/* (arm's kernel answers a number outside its table with SIGILL, with or without the shim) */
	errno = 0;
	long r = syscall(-1L);
	check("unknown-number", r == -1 && errno == ENOSYS, "not -1/ENOSYS");
	errno = 0;
	r = syscall(100000L);
	check("number-100000", r == -1 && errno == ENOSYS, "not -1/ENOSYS");
#endif
	/* the readers stay libc's: the kernel's own answer */
	check("sched_getscheduler", syscall(SYS_sched_getscheduler, 0) == SCHED_OTHER, "not SCHED_OTHER");

	/* a file whose second page is filled with 'b' */
	char path[] = "/tmp/rtshim-syscall-pass.XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0 || unlink(path) < 0) {
		check("six-arguments", 0, "mkstemp");
		return 1;
	}
	char *buf = malloc((size_t)page);
	memset(buf, 'a', (size_t)page);
	if (write(fd, buf, (size_t)page) != page) {
		check("six-arguments", 0, "write");
		return 1;
	}
	memset(buf, 'b', (size_t)page);
	if (write(fd, buf, (size_t)page) != page) {
		check("six-arguments", 0, "write");
		return 1;
	}
	six_arguments(fd, page);
	free(buf);
	close(fd);
	return failed;
}
