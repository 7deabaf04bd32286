/* settings.c — the configuration rtrun and its command use: rtrun's options (set as RTSHIM_*
 * variables), the environment, the user's configuration file, the system's, in that order
 * (os/config-files.h).  Each bad value, bad line and unknown RTSHIM_* variable is said once,
 * here; the files' valid settings go into the command's environment, with
 * RTSHIM_CONFIG_FILES=0, so the shim in the command (and in what it execs) uses the same and
 * says nothing again. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config-files.h"
#include "config.h"
#include "rtrun.h"

static struct rtshim_conf_files files;
static const char *last_from;
static int file_bad_lines;

/* The environment, else the user's file, else the system's. */
static char *lookup(const char *name)
{
	const struct rtshim_conf_file *list[2];

	rtshim_conf_files_list(&files, list);
	return (char *)rtshim_conf_lookup(getenv, list, 2, name, &last_from);
}

struct say {
	rtrun_config_say_fn *fn;
	void *ctx;
	bool command; /* for rtrun's command: "the shim will use"; --check: "the shim uses" */
};

static void say_value(void *ctx, const struct rtshim_config_var *var, const char *value)
{
	const struct say *s = ctx;
	char text[512];

	snprintf(text, sizeof text, "%s=\"%.64s%s\"%s%s is not valid (accepted: %s): the shim %s %s",
		 var->name, value, strlen(value) > 64 ? "..." : "", last_from ? " in " : "",
		 last_from ? last_from : "", var->accepted, s->command ? "will use" : "uses",
		 var->default_text);
	s->fn(s->ctx, text);
	/* the command's shim takes the default without saying it again */
	if (s->command && !last_from)
		unsetenv(var->name);
}

static void say_line(void *ctx, const char *path, int line, const char *text, const char *meant)
{
	const struct say *s = ctx;
	char out[512];

	file_bad_lines++;
	if (!line)
		snprintf(out, sizeof out, "%s %s", path, text);
	else if (meant)
		snprintf(out, sizeof out, "%s:%d: unknown setting %.64s%s%s%s: ignored", path, line,
			 text, *meant ? " (did you mean " : "", meant, *meant ? "?)" : "");
	else
		snprintf(out, sizeof out, "%s:%d: \"%.64s\" is no NAME=VALUE line of a known RTSHIM_* "
			 "setting: ignored", path, line, text);
	s->fn(s->ctx, out);
}

/* RTSHIM_* variables that are none of rtshim's but near one, with what they probably meant. */
static void say_unknown_variables(const struct say *s)
{
	char out[256];

	for (char **e = environ; e && *e; e++) {
		const char *meant = rtshim_config_misspelt(*e);
		int len = (int)strcspn(*e, "=");

		if (!meant)
			continue;
		snprintf(out, sizeof out, "%.*s is not a variable of rtshim's (did you mean %s?): ignored",
			 len > 64 ? 64 : len, *e, meant);
		s->fn(s->ctx, out);
		if (s->command) { /* said here: not again by the command's shim */
			char name[128];

			snprintf(name, sizeof name, "%.*s", len, *e);
			unsetenv(name);
			e--; /* unsetenv moved the next entry here */
		}
	}
}

static void quiet(void *ctx, const char *text)
{
	(void)ctx;
	(void)text;
}

int rtrun_config_load(struct rtshim_config *cfg, rtrun_config_say_fn *fn, void *ctx, bool command)
{
	struct say s = { fn ? fn : quiet, ctx, command };

	rtshim_conf_files_read(&files, getenv, say_line, &s);
	int bad = rtshim_config_load(cfg, lookup, say_value, &s);
	say_unknown_variables(&s);
	return bad;
}

const char *rtrun_config_off_source(void)
{
	const char *from;
	const struct rtshim_conf_file *list[2];

	rtshim_conf_files_list(&files, list);
	rtshim_conf_lookup(getenv, list, 2, "RTSHIM_DISABLE", &from);
	return from ? from : "the environment";
}

int rtrun_config_to_env(void)
{
	size_t n;
	const struct rtshim_config_var *vars = rtshim_config_vars(&n);
	struct rtshim_config scratch;

	bool from_files = file_bad_lines > 0;

	rtshim_config_defaults(&scratch);
	for (size_t i = 0; i < n; i++) {
		const char *v = lookup(vars[i].name);

		from_files |= v && last_from;
		/* a file's valid setting that the environment does not override */
		if (v && last_from && rtshim_config_set(&scratch, vars[i].name, v) == 0 &&
		    setenv(vars[i].name, v, 1) < 0)
			return -1;
	}
	/* files that say nothing (none, or comments only) leave the environment as it is */
	return from_files ? setenv("RTSHIM_CONFIG_FILES", "0", 1) : 0;
}
