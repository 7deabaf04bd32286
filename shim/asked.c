/* asked.c — see asked.h. */
#include "asked.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "asked-line.h"
#include "file-size.h"
#include "procfs.h"

#define ASKED_FILE_MAX (64 * 1024)

void rtshim_asked_record(pid_t tid, int policy, int prio)
{
	const char *dir = secure_getenv("XDG_RUNTIME_DIR");
	struct rtshim_asked a = { .tid = tid, .policy = policy, .prio = prio };
	char path[256], line[96];
	struct stat st;

	if (!dir || rtshim_proc_start_time(0, &a.start) < 0)
		return;
	/* the directory: the user's own, closed to others */
	if (!rtshim_asked_dir(dir, path, sizeof path) || (mkdir(path, 0700) < 0 && errno != EEXIST))
		return;
	if (!rtshim_asked_path(dir, getpid(), path, sizeof path))
		return;
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);
	if (fd < 0)
		return;
	/* a program that closed a standard descriptor writes there expecting EBADF: never let
	 * its write land in the record */
	if (fd <= 2) {
		close(fd);
		return;
	}
	if (fstat(fd, &st) == 0 && st.st_size > ASKED_FILE_MAX && ftruncate(fd, 0) < 0) {
		close(fd);
		return;
	}
	/* one write of a short line with O_APPEND: whole, between other threads' lines */
	size_t n = rtshim_asked_format(&a, line, sizeof line);
	if (rtshim_write_cannot_signal(fd) && write(fd, line, n) < 0) {
		/* nothing to do: the record is for people */
	}
	close(fd);
}
