/* settings.c — the shim's configuration: loaded once from the environment (secure_getenv) and
 * the configuration files (os/config-files.h; the environment wins), each bad value, bad line
 * and unknown RTSHIM_* variable said once per process, the log level set from it. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "config-files.h"
#include "decide.h"
#include "log.h"
#include "settings.h"
#include "raw-syscall.h"

static pthread_once_t cfg_once = PTHREAD_ONCE_INIT;
static struct rtshim_config cfg;
/* Loaded, and nothing configured that a request the kernel grants acts upon: rtshim(7) rule 1 sends
 * it as it is, no trace, no RTSHIM_ONLY, no line at "info" (the privileged path's one test,
 * rtshim_cfg_plain).  Set with release after the load: true says the configuration is there. */
bool rtshim_cfg_is_plain;

/* True while rtshim_cfg_at_start reads: for a program that started realtime. */
static bool in_constructor;

/* A bad value is said once per process, not again by each program it execs.  A program that
 * starts realtime with SCHED_RESET_ON_FORK was made realtime by an earlier program of this same
 * process (the flag never passes to a child): by rtrun -p, which reports bad values itself
 * and removes them, or by this shim, which said them when it read them for that grant. */
static bool said_before_exec(void)
{
	long pol;

	if (!__atomic_load_n(&in_constructor, __ATOMIC_RELAXED))
		return false;
	pol = rtshim_raw_syscall(SYS_sched_getscheduler, 0L);
	return pol >= 0 && (pol & SCHED_RESET_ON_FORK) && rtshim_is_rt((int)pol);
}

/* The files, read once (under cfg_once), and the source of the value looked up last. */
static struct rtshim_conf_files files;
static const char *last_from;

/* The environment, else the user's file, else the system's. */
static char *lookup(const char *name)
{
	const struct rtshim_conf_file *list[2];
	rtshim_conf_files_list(&files, list);
	return (char *)rtshim_conf_lookup(secure_getenv, list, 2, name, &last_from);
}

/* A value for the log: printable, its start only. */
static const char *shown(const char *value, char *buf, size_t size)
{
	size_t i;
	for (i = 0; i < size - 4 && value[i]; i++)
		buf[i] = (value[i] >= 0x20 && value[i] < 0x7f) ? value[i] : '?';
	if (value[i])
		memcpy(buf + i, "...", 4);
	else
		buf[i] = '\0';
	return buf;
}

static bool warnings_wanted(const struct rtshim_config *c)
{
	return c->log_level >= RTSHIM_LOG_WARN && !said_before_exec();
}

static void cfg_warn(void *ctx, const struct rtshim_config_var *var, const char *value)
{
	char buf[48];
	if (!warnings_wanted(ctx))
		return;
	rtshim_log(RTSHIM_LOG_WARN, "%s=\"%s\"%s%s is not valid (expected %s): using the default %s",
		   var->name, shown(value, buf, sizeof buf), last_from ? " in " : "",
		   last_from ? last_from : "", var->accepted, var->default_text);
}

/* The files' bad lines, kept until the log level is known (the first few). */
static struct {
	const char *path, *meant;
	int line;
	char text[48];
} bad_lines[4];
static unsigned bad_line_count;

static void keep_bad_line(void *ctx, const char *path, int line, const char *text, const char *meant)
{
	(void)ctx;
	if (bad_line_count >= sizeof bad_lines / sizeof bad_lines[0])
		return;
	bad_lines[bad_line_count].path = path;
	bad_lines[bad_line_count].line = line;
	bad_lines[bad_line_count].meant = meant;
	shown(text, bad_lines[bad_line_count].text, sizeof bad_lines[0].text);
	bad_line_count++;
}

static void say_bad_lines(void)
{
	for (unsigned i = 0; i < bad_line_count; i++) {
		if (!bad_lines[i].line)
			rtshim_log(RTSHIM_LOG_WARN, "%s %s", bad_lines[i].path, bad_lines[i].text);
		else if (bad_lines[i].meant)
			rtshim_log(RTSHIM_LOG_WARN, "%s:%d: unknown setting %s%s%s%s: ignored",
				   bad_lines[i].path, bad_lines[i].line, bad_lines[i].text,
				   *bad_lines[i].meant ? " (did you mean " : "", bad_lines[i].meant,
				   *bad_lines[i].meant ? "?)" : "");
		else
			rtshim_log(RTSHIM_LOG_WARN, "%s:%d: \"%s\" is no NAME=VALUE line of a known RTSHIM_* "
				   "setting: ignored", bad_lines[i].path, bad_lines[i].line, bad_lines[i].text);
	}
}

/* An RTSHIM_* variable that is none of rtshim's but near one: probably a misspelt one. */
static void say_unknown_variables(void)
{
	for (char **e = environ; e && *e; e++) {
		const char *meant = rtshim_config_misspelt(*e);
		int len = (int)strcspn(*e, "=");
		if (meant)
			rtshim_log(RTSHIM_LOG_WARN, "%.*s is not a variable of rtshim's (did you mean %s?): ignored",
				   len > 40 ? 40 : len, *e, meant);
	}
}

static void cfg_load(void)
{
	rtshim_conf_files_read(&files, secure_getenv, keep_bad_line, NULL);
	rtshim_config_load(&cfg, lookup, cfg_warn, &cfg);
	if (warnings_wanted(&cfg)) {
		say_bad_lines();
		say_unknown_variables();
	}
	if (cfg.disabled) /* switched off (a file said so): every later call goes as it is */
		__atomic_store_n(&rtshim_secure_mode, 1, __ATOMIC_RELAXED);
	rtshim_log_set_level(cfg.log_level);
	if (cfg.trace && cfg.log_level < RTSHIM_LOG_INFO)
		rtshim_log_set_level(RTSHIM_LOG_INFO); /* the decisions go with the traces */
	__atomic_store_n(&rtshim_cfg_is_plain,
			 rtshim_direct_is_as_asked(&cfg) && !rtshim_trace_wanted_by(&cfg) &&
				 !rtshim_log_enabled(RTSHIM_LOG_INFO),
			 __ATOMIC_RELEASE);
}

/* &cfg once loaded, read inline by rtshim_cfg (settings.h): every request reads it,
 * pthread_once would cost the privileged path 20 more instructions each time */
const struct rtshim_config *rtshim_cfg_loaded;

const struct rtshim_config *rtshim_cfg_load(void)
{
	pthread_once(&cfg_once, cfg_load);
	__atomic_store_n(&rtshim_cfg_loaded, &cfg, __ATOMIC_RELEASE);
	return &cfg;
}

const struct rtshim_config *rtshim_cfg_at_start(void)
{
	__atomic_store_n(&in_constructor, true, __ATOMIC_RELAXED);
	const struct rtshim_config *c = rtshim_cfg();
	__atomic_store_n(&in_constructor, false, __ATOMIC_RELAXED);
	return c;
}
