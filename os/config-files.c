/* config-files.c — see config-files.h. */
#include "config-files.h"

#include <fcntl.h>
#include <stddef.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "format.h"

/* The file at path into f (parsed): false when it is absent, unreadable or not a regular file
 * (a FIFO there must not block the program: O_NONBLOCK). */
static bool read_one(struct rtshim_conf_file *f, const char *path, rtshim_conf_bad_fn *bad,
		     void *ctx)
{
	struct stat st;
	size_t len = 0;
	ssize_t n;
	int fd;

	f->path = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return false;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return false;
	}
	while (len < sizeof f->text && (n = read(fd, f->text + len, sizeof f->text - len)) > 0)
		len += (size_t)n;
	close(fd);
	f->path = path;
	if (len >= sizeof f->text) {
		if (bad)
			bad(ctx, path, 0, "is longer than 4095 bytes: not read", NULL);
		f->path = NULL;
		return false;
	}
	rtshim_conf_parse(f, len, bad, ctx);
	return true;
}

void rtshim_conf_files_read(struct rtshim_conf_files *fs, char *(*get)(const char *name),
			    rtshim_conf_bad_fn *bad, void *ctx)
{
	const char *xdg = get("XDG_CONFIG_HOME"), *home = get("HOME"), *use = get("RTSHIM_CONFIG_FILES");
	bool want = true;

	fs->user.path = NULL;
	fs->system.path = NULL;
	if (use && rtshim_parse_bool(use, &want) == 0 && !want)
		return;
	/* the XDG base directory rule: a relative XDG_CONFIG_HOME is ignored */
	fs->user_path[0] = '\0';
	if (xdg && xdg[0] == '/')
		rtshim_format(fs->user_path, sizeof fs->user_path, "%s/rtshim/rtshim.conf", xdg);
	else if (home && home[0] == '/')
		rtshim_format(fs->user_path, sizeof fs->user_path, "%s/.config/rtshim/rtshim.conf", home);
	if (fs->user_path[0])
		read_one(&fs->user, fs->user_path, bad, ctx);
	read_one(&fs->system, RTSHIM_SYSTEM_CONF, bad, ctx);
}
