/* file-size.c — see file-size.h. */
#include "file-size.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "raw-rlimit.h"

bool rtshim_write_cannot_signal(int fd)
{
	struct rlimit lim;
	struct stat st;
	off_t pos;
	int flags;

	/* the raw call: the shim's getrlimit is the program's interposer */
	if (rtshim_raw_prlimit(0, RLIMIT_FSIZE, NULL, &lim) < 0 || lim.rlim_cur == RLIM_INFINITY)
		return true;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return true; /* the limit is for regular files only */
	flags = fcntl(fd, F_GETFL);
	pos = flags >= 0 && (flags & O_APPEND) ? st.st_size : lseek(fd, 0, SEEK_CUR);
	return pos >= 0 && (unsigned long long)pos < (unsigned long long)lim.rlim_cur;
}
