/* config-file.c — see config-file.h. */
#include "config-file.h"

#include <string.h>

#include "config.h"

static char *trim(char *s)
{
	char *end = s + strlen(s);
	while (*s == ' ' || *s == '\t')
		s++;
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = '\0';
	return s;
}

/* The table index of a variable name, or -1. */
static int var_index(const char *name)
{
	size_t n;
	const struct rtshim_config_var *vars = rtshim_config_vars(&n);
	for (size_t i = 0; i < n && i < RTSHIM_CONF_VARS_MAX; i++)
		if (!strcmp(vars[i].name, name))
			return (int)i;
	return -1;
}

/* One line: a setting (0), blank or comment (0), or no setting (-1, said). */
static int parse_line(struct rtshim_conf_file *f, char *line, int number, rtshim_conf_bad_fn *bad,
		      void *ctx)
{
	char *s = trim(line), *eq, *name, *value;
	size_t vlen;
	int i;

	if (!*s || *s == '#')
		return 0;
	eq = strchr(s, '=');
	if (!eq) {
		if (bad)
			bad(ctx, f->path, number, s, NULL);
		return -1;
	}
	*eq = '\0';
	name = trim(s);
	value = trim(eq + 1);
	/* a value in matching quotes, as a shell or an environment file writes it */
	vlen = strlen(value);
	if (vlen >= 2 && (value[0] == '"' || value[0] == '\'') && value[vlen - 1] == value[0]) {
		value[vlen - 1] = '\0';
		value++;
	}
	i = var_index(name);
	if (i < 0) {
		if (bad)
			bad(ctx, f->path, number, name, rtshim_config_suggest(name) ?: "");
		return -1;
	}
	f->value[i] = value;
	return 0;
}

int rtshim_conf_parse(struct rtshim_conf_file *f, size_t len, rtshim_conf_bad_fn *bad, void *ctx)
{
	int bad_lines = 0, number = 0;
	char *line = f->text;

	for (size_t i = 0; i < RTSHIM_CONF_VARS_MAX; i++)
		f->value[i] = NULL;
	if (len >= sizeof f->text)
		len = sizeof f->text - 1;
	f->text[len] = '\0';
	/* a NUL inside the file ends it, as for any C string */
	while (line) {
		char *next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		number++;
		if (parse_line(f, line, number, bad, ctx) < 0)
			bad_lines++;
		line = next;
	}
	return bad_lines;
}

const char *rtshim_conf_lookup(char *(*get)(const char *name),
			       const struct rtshim_conf_file *const *files, size_t nfiles,
			       const char *name, const char **from)
{
	const char *v = get ? get(name) : NULL;
	int i;

	*from = NULL;
	if (v || (i = var_index(name)) < 0)
		return v;
	for (size_t k = 0; k < nfiles; k++)
		if (files[k] && files[k]->path && files[k]->value[i]) {
			*from = files[k]->path;
			return files[k]->value[i];
		}
	return NULL;
}
