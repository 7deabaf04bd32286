/* hooks-exec.c — what crosses an exec is what rtkit alone would leave (runaway.c).
 *
 * A thread rtkit made realtime stays realtime across execve, and so does the process's
 * RLIMIT_RTTIME; the runaway guard (a handler, a lowered soft limit) does not: a new image
 * without the shim, realtime under the guard's soft limit, is killed by SIGXCPU where it would
 * have run.  So each exec function of the C library (glibc's call its internal __execve, hence
 * one interposer each; execveat too) first asks runaway.c to put the program's own soft limit
 * back and, when the new image will not have the guard, to demote the calling thread.  The new image has the
 * guard when its environment preloads the shim and the file is neither set-user/group-ID (the
 * loader ignores the preload there) nor statically linked.  rtrun -p (and a program that re-execs
 * itself with its environment) keeps crossing exec realtime.  Before the guard is armed: one
 * load, then the real function. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client.h"
#include "hooks.h"
#include "runaway.h"
#include "seccomp.h"

extern char **environ;

void rtshim_resolve_exec(void)
{
	next_execve();
	next_execvpe();
	next_fexecve();
	next_execveat();
}

/* Does the environment preload the shim? */
static bool preloads_shim(char *const envp[])
{
	for (char *const *e = envp; e && *e; e++)
		if (!strncmp(*e, "LD_PRELOAD=", 11) && strstr(*e + 11, "librtshim"))
			return true;
	return false;
}

/* Will the program in this open file load the preload: not set-user/group-ID, and dynamically
 * linked (a PT_INTERP header) or not ELF at all (a script: its interpreter is)? */
static bool loads_preload(int fd)
{
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || (st.st_mode & (S_ISUID | S_ISGID)))
		return false;
	union {
		Elf64_Ehdr e64;
		Elf32_Ehdr e32;
	} h;
	if (pread(fd, &h, sizeof h, 0) < (ssize_t)sizeof h.e32 || memcmp(h.e64.e_ident, ELFMAG, SELFMAG))
		return true;
	bool wide = h.e64.e_ident[EI_CLASS] == ELFCLASS64;
	uint64_t off = wide ? h.e64.e_phoff : h.e32.e_phoff;
	unsigned n = wide ? h.e64.e_phnum : h.e32.e_phnum;
	unsigned sz = wide ? h.e64.e_phentsize : h.e32.e_phentsize;
	for (unsigned i = 0; i < n && i < 64; i++) {
		uint32_t type;
		if (pread(fd, &type, sizeof type, (off_t)(off + (uint64_t)i * sz)) != sizeof type)
			return false;
		if (type == PT_INTERP)
			return true;
	}
	return false;
}

/* Will the new image execveat(dirfd, path, ..., flags) runs have the guard?  -1: no such
 * executable file (the exec will fail: nothing to do).  An empty path with AT_EMPTY_PATH: the
 * file dirfd is open on (fexecve). */
static int guard_follows_at(int dirfd, const char *path, char *const envp[], int flags)
{
	struct stat st;
	if (path && !*path && (flags & AT_EMPTY_PATH))
		return preloads_shim(envp) && loads_preload(dirfd);
	if (fstatat(dirfd, path, &st, flags & AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) ||
	    faccessat(dirfd, path, X_OK, 0) < 0)
		return -1;
	if (!preloads_shim(envp) || (st.st_mode & (S_ISUID | S_ISGID)))
		return 0;
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1; /* executable, not readable: cannot tell; the loader runs it with the preload */
	bool r = loads_preload(fd);
	close(fd);
	return r;
}

/* The exec failed: the guard's soft limit back, and realtime again if it was demoted (rtkit asked
 * directly, for the priority it had granted: not mapped again as a request of the program). */
static void exec_failed(const struct rtshim_exec_undo *undo)
{
	int saved = errno;
	rtshim_runaway_exec_failed(undo);
	/* rtshim(7) rule 21: no client in a sandbox */
	if (undo->demoted && !rtshim_seccomp_filtered()) {
		const struct rtshim_client_v1 *c = rtshim_client_get(rtshim_cfg()->timeout_ms);
		if (c)
			c->make_realtime(0, gettid(), undo->prio);
	}
	errno = saved;
}

/* execvp's search: the first executable regular file named `file` on PATH. */
static const char *search_path(const char *file, char *buf, size_t size)
{
	if (strchr(file, '/'))
		return file;
	const char *path = getenv("PATH");
	if (!path)
		path = "/bin:/usr/bin";
	for (const char *p = path;; p++) {
		const char *end = strchrnul(p, ':');
		size_t dir = (size_t)(end - p);
		if (dir + 1 + strlen(file) + 1 <= size) {
			memcpy(buf, p, dir);
			buf[dir] = '/';
			strcpy(buf + dir + 1, file);
			struct stat st;
			if (access(buf, X_OK) == 0 && stat(buf, &st) == 0 && S_ISREG(st.st_mode))
				return buf;
		}
		if (!*end)
			return NULL;
		p = end;
	}
}

RTSHIM_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	struct rtshim_exec_undo undo;
	if (!rtshim_runaway_armed())
		return next_execve()(path, argv, envp);
	int follows = guard_follows_at(AT_FDCWD, path, envp, 0);
	if (follows < 0)
		return next_execve()(path, argv, envp);
	rtshim_runaway_before_exec(follows, &undo);
	int r = next_execve()(path, argv, envp);
	exec_failed(&undo);
	return r;
}

RTSHIM_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	struct rtshim_exec_undo undo;
	char buf[PATH_MAX];
	const char *path;
	if (!rtshim_runaway_armed() || !(path = search_path(file, buf, sizeof buf)))
		return next_execvpe()(file, argv, envp);
	int follows = guard_follows_at(AT_FDCWD, path, envp, 0);
	if (follows < 0)
		return next_execvpe()(file, argv, envp);
	rtshim_runaway_before_exec(follows, &undo);
	int r = next_execvpe()(file, argv, envp);
	exec_failed(&undo);
	return r;
}

RTSHIM_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	struct rtshim_exec_undo undo;
	if (!rtshim_runaway_armed())
		return next_fexecve()(fd, argv, envp);
	rtshim_runaway_before_exec(preloads_shim(envp) && loads_preload(fd), &undo);
	int r = next_fexecve()(fd, argv, envp);
	exec_failed(&undo);
	return r;
}

/* glibc's own fexecve makes this system call, not this function: fexecve has its interposer above */
RTSHIM_EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags)
{
	struct rtshim_exec_undo undo;
	if (!rtshim_runaway_armed())
		return next_execveat()(dirfd, path, argv, envp, flags);
	int follows = guard_follows_at(dirfd, path, envp, flags);
	if (follows < 0)
		return next_execveat()(dirfd, path, argv, envp, flags);
	rtshim_runaway_before_exec(follows, &undo);
	int r = next_execveat()(dirfd, path, argv, envp, flags);
	exec_failed(&undo);
	return r;
}

RTSHIM_EXPORT int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

RTSHIM_EXPORT int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

/* execl, execlp, execle: their arguments as an array on this stack, then the v form. */
#define COLLECT_ARGS(argv, arg0, last, after)                              \
	size_t n_ = 1;                                                      \
	va_list ap_;                                                        \
	va_start(ap_, last);                                                \
	while (va_arg(ap_, char *))                                         \
		n_++;                                                       \
	va_end(ap_);                                                        \
	char *argv[n_ + 1];                                                 \
	argv[0] = (char *)(arg0);                                           \
	va_start(ap_, last);                                                \
	for (size_t i_ = 1; i_ <= n_; i_++)                                 \
		argv[i_] = va_arg(ap_, char *);                             \
	after;                                                              \
	va_end(ap_)

RTSHIM_EXPORT int execl(const char *path, const char *arg, ...)
{
	COLLECT_ARGS(argv, arg, arg, (void)0);
	return execve(path, argv, environ);
}

RTSHIM_EXPORT int execlp(const char *file, const char *arg, ...)
{
	COLLECT_ARGS(argv, arg, arg, (void)0);
	return execvpe(file, argv, environ);
}

RTSHIM_EXPORT int execle(const char *path, const char *arg, ...)
{
	char *const *envp;
	COLLECT_ARGS(argv, arg, arg, envp = va_arg(ap_, char *const *));
	return execve(path, argv, envp);
}
