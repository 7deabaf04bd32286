/* config-file.h — rtshim's configuration files (rtshim(7) FILES): lines NAME=VALUE with the
 * names of the RTSHIM_* variables, blank lines and # comments.  Pure: the text is given, and
 * parsed in place (no allocation), so the shim can use it on its first request. */
#ifndef RTSHIM_CONFIG_FILE_H
#define RTSHIM_CONFIG_FILE_H

#include <stddef.h>

#define RTSHIM_CONF_TEXT_MAX 4096 /* a longer file is not read (warned) */
#define RTSHIM_CONF_VARS_MAX 16   /* at least the number of RTSHIM_* variables */

struct rtshim_conf_file {
	const char *path;                          /* NULL: not read (absent or unreadable) */
	char text[RTSHIM_CONF_TEXT_MAX];           /* the file, its lines cut in place */
	const char *value[RTSHIM_CONF_VARS_MAX];   /* by the table's order; NULL: not set */
};

/* A line that is no setting: its number (0: the file itself, e.g. too long), what it says
 * (for an unknown name: the name), and for an unknown name the variable it probably meant
 * ("" when none is near; NULL: the line is no NAME=VALUE). */
typedef void rtshim_conf_bad_fn(void *ctx, const char *path, int line, const char *text,
				const char *meant);

/* Parse f->text[0..len) (len < RTSHIM_CONF_TEXT_MAX) in place into f->value; the last line
 * that sets a name wins.  `bad` (may be NULL) is called for each line that is no setting.
 * Returns the number of such lines. */
int rtshim_conf_parse(struct rtshim_conf_file *f, size_t len, rtshim_conf_bad_fn *bad, void *ctx);

/* The value of variable `name`: the environment's (get, may be NULL), else the first of the
 * files (highest precedence first; NULL entries skipped) that sets it.  *from: NULL for the
 * environment, else the file's path.  NULL when none sets it. */
const char *rtshim_conf_lookup(char *(*get)(const char *name),
			       const struct rtshim_conf_file *const *files, size_t nfiles,
			       const char *name, const char **from);

#endif
