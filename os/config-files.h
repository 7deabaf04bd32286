/* config-files.h — finding and reading rtshim's two configuration files, the user's and the
 * system's (core/config-file.h parses them).  No stdio, no allocation: the shim reads them on
 * its first request. */
#ifndef RTSHIM_CONFIG_FILES_H
#define RTSHIM_CONFIG_FILES_H

#include <limits.h>
#include <stdbool.h>

#include "config-file.h"

#ifndef RTSHIM_SYSTEM_CONF
#define RTSHIM_SYSTEM_CONF "/etc/rtshim.conf"
#endif

struct rtshim_conf_files {
	struct rtshim_conf_file user;   /* $XDG_CONFIG_HOME/rtshim/rtshim.conf */
	struct rtshim_conf_file system; /* RTSHIM_SYSTEM_CONF */
	char user_path[PATH_MAX];
};

/* Read both files, unless RTSHIM_CONFIG_FILES (through `get`) is false.  An absent or
 * unreadable file is not read (its path stays NULL); its bad lines go to `bad`.  `get` is
 * getenv or secure_getenv: it also gives XDG_CONFIG_HOME and HOME. */
void rtshim_conf_files_read(struct rtshim_conf_files *fs, char *(*get)(const char *name),
			    rtshim_conf_bad_fn *bad, void *ctx);

/* Both files, the user's first (its settings win): for rtshim_conf_lookup. */
static inline void rtshim_conf_files_list(const struct rtshim_conf_files *fs,
					  const struct rtshim_conf_file *out[2])
{
	out[0] = &fs->user;
	out[1] = &fs->system;
}

#endif
