/* run.c — `rtrun [OPTIONS] COMMAND [ARG...]`: preload the shim, pass the options on as RTSHIM_*
 * variables, warn when the shim cannot work for COMMAND, make the main thread realtime for -p,
 * and exec COMMAND in place (no extra process). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "rtrun.h"

int rtrun_resolve_command(const char *cmd, char *path, size_t size)
{
	const char *dirs, *p;
	int err = -ENOENT;

	if (!*cmd)
		return -ENOENT;
	if (strchr(cmd, '/')) {
		struct stat st;

		if (snprintf(path, size, "%s", cmd) >= (int)size)
			return -ENAMETOOLONG;
		/* what execve will say: a directory, or a file without the execute bit, is EACCES */
		if (stat(cmd, &st) < 0)
			return -errno;
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		return access(cmd, X_OK) == 0 ? 0 : -EACCES;
	}
	/* execvp's search: PATH, or glibc's default; an empty element is the current directory. */
	dirs = getenv("PATH");
	if (!dirs)
		dirs = "/bin:/usr/bin";
	for (p = dirs;; p++) {
		size_t len = strcspn(p, ":");
		struct stat st;
		int n = len ? snprintf(path, size, "%.*s/%s", (int)len, p, cmd)
			    : snprintf(path, size, "%s", cmd);

		if (n > 0 && (size_t)n < size && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			if (access(path, X_OK) == 0)
				return 0;
			err = -EACCES;
		}
		p += len;
		if (!*p)
			break;
	}
	return err;
}

int rtrun_priority_policy(const struct rtrun_options *o)
{
	if (o->priority_policy >= 0)
		return o->priority_policy;
	return o->policy >= 0 ? o->policy : SCHED_RR;
}

static int set(const char *name, const char *value)
{
	if (setenv(name, value, 1) == 0)
		return 0;
	rtrun_log(RTRUN_ERROR, "setenv(%s) failed: %s", name, strerror(errno));
	return -1;
}

/* The RTSHIM_* variables from the options; what is not given stays as the environment has it. */
int rtrun_options_to_env(const struct rtrun_options *o)
{
	if (o->verbose < 0 && set("RTSHIM_LOG", "quiet") < 0)
		return -1;
	if (o->verbose == 1 && set("RTSHIM_LOG", "info") < 0)
		return -1;
	if (o->verbose >= 2 && set("RTSHIM_LOG", "debug") < 0)
		return -1;
	if (o->timeout_text && set("RTSHIM_TIMEOUT_MS", o->timeout_text) < 0)
		return -1;
	if (o->rttime_text && set("RTSHIM_RTTIME_US", o->rttime_text) < 0)
		return -1;
	if (o->reset_on_fork >= 0 && set("RTSHIM_RESET_ON_FORK", o->reset_on_fork ? "1" : "0") < 0)
		return -1;
	if (o->strict && set("RTSHIM_STRICT", "1") < 0)
		return -1;
	if (o->policy >= 0 && set("RTSHIM_POLICY", o->policy == SCHED_FIFO ? "fifo" : "rr") < 0)
		return -1;
	if (o->trace && set("RTSHIM_TRACE", "1") < 0)
		return -1;
	if (o->map_text && set("RTSHIM_PRIO_MAP", o->map_text) < 0)
		return -1;
	if (o->top_text && set("RTSHIM_TOP", o->top_text) < 0)
		return -1;
	if (o->runaway_text && set("RTSHIM_RUNAWAY", o->runaway_text) < 0)
		return -1;
	if (o->inherit && set("RTSHIM_INHERIT", "1") < 0)
		return -1;
	if (o->nice_fallback_text && set("RTSHIM_NICE_FALLBACK", o->nice_fallback_text) < 0)
		return -1;
	if (o->only_text && set("RTSHIM_ONLY", o->only_text) < 0)
		return -1;
	if (o->no_keep && set("RTSHIM_KEEP", "0") < 0)
		return -1;
	return 0;
}

static void warn_line(void *ctx, const char *text)
{
	(void)ctx;
	rtrun_log(RTRUN_WARNING, "%s", text);
}

int rtrun_options_config(const struct rtrun_options *o, struct rtshim_config *cfg)
{
	if (rtrun_options_to_env(o) < 0)
		return -1;
	rtrun_config_load(cfg, warn_line, NULL, true);
	return 0;
}

/* Tell, before exec, when the dynamic loader will not load the shim into COMMAND. */
static void warn_about_command(const struct rtrun_command *c, const struct rtrun_shim *shim,
			       const struct rtrun_options *o)
{
	const char *hint = o->priority
		? "only its main thread gets realtime (from -p); use rtrun --pid PID for its other "
		  "threads once it runs"
		: "use rtrun -p N to make its main thread realtime, or rtrun --pid PID once it runs";
	char text[2 * PATH_MAX + 256];

	rtrun_reach_text(c, shim, text, sizeof text);
	if (c->first_library[0])
		rtrun_log(RTRUN_INFO, "%s", text);
	else if (c->reach == RTRUN_REACH_YES || c->reach == RTRUN_REACH_UNKNOWN)
		rtrun_log(RTRUN_DEBUG, "%s", text);
	else
		rtrun_log(RTRUN_WARNING, "%s; %s", text, hint);
}

/* -p N: make this (the main) thread realtime; exec keeps the thread and its policy.  false
 * when it is not (said). */
static bool main_thread_realtime(const struct rtrun_options *o, const struct rtshim_config *cfg,
				 const char *cmd)
{
	struct rtrun_rt_request req = {
		.pid = 0,
		.tid = gettid(),
		.priority = o->priority,
		.policy = rtrun_priority_policy(o),
		.cfg = cfg,
		.guard_in_command = false,
	};
	struct rtrun_rt_result res;
	char pol[64], why[400];
	int policy, prio, r;

	rtrun_client_set_timeout_ms(cfg->timeout_ms);
	r = rtrun_make_realtime(&req, &res);
	if (r < 0) {
		enum rtrun_level level = o->require_rt ? RTRUN_ERROR : RTRUN_WARNING;
		const char *then = o->require_rt ? "not running" : "running";

		if (res.d.why == RTSHIM_WHY_STRICT)
			rtrun_log(level, "priority %d is above rtkit's maximum %d and --strict "
				  "forbids another one: %s %s without realtime", o->priority,
				  res.rtkit_max, then, cmd);
		else
			rtrun_log(level, "cannot make the main thread realtime: %s; %s %s without "
				  "it%s (rtrun --check tells why)",
				  rtrun_rt_error_text(&res, why, sizeof why), then, cmd,
				  res.nice && !o->require_rt ? ", at a nice level from rtkit instead" : "");
		return false;
	}
	if (res.d.prio_changed && o->priority > res.rtkit_max)
		rtrun_log(RTRUN_WARNING, "priority %d is above rtkit's maximum %d: the main thread got %d",
			  o->priority, res.rtkit_max, res.priority);
	else if (res.d.prio_changed)
		rtrun_log(RTRUN_INFO, "priority %d mapped into rtkit's 1..%d: the main thread got %d",
			  o->priority, res.rtkit_max, res.priority);
	if (rtrun_thread_sched(req.tid, &policy, &prio) == 0)
		rtrun_log(RTRUN_INFO, "main thread: %s %d, %s",
			  rtrun_policy_text(policy, pol, sizeof pol), prio, res.how);
	return true;
}

static int run_switched_off(const struct rtrun_options *o, const struct rtshim_config *cfg,
			    char **argv);
static int exec_command(char **argv);
/* Find the shim, or say why it cannot be preloaded: 0 or -1. */
static int locate_shim_or_say(struct rtrun_shim *shim)
{
	int r = rtrun_locate_shim(shim);

	if (r == -ENOENT) {
		rtrun_log(RTRUN_ERROR, "cannot find %s (looked for %s%s%s)", RTRUN_SHIM_FILE,
			  shim->tried[0][0] ? shim->tried[0] : "", shim->tried[0][0] && shim->tried[1][0]
			  ? " and " : "", shim->tried[1]);
		return -1;
	}
	if (r < 0) {
		rtrun_log(RTRUN_ERROR, "the path of %s (%s) contains a space or a colon, which "
			  "LD_PRELOAD cannot carry: install rtshim under another prefix", RTRUN_SHIM_FILE,
			  shim->value);
		return -1;
	}
	return 0;
}

int rtrun_print_preload(void)
{
	struct rtrun_shim shim;

	if (locate_shim_or_say(&shim) < 0)
		return RTRUN_EXIT_ERROR;
	return printf("%s\n", shim.value) < 0 || fflush(stdout) ? RTRUN_EXIT_ERROR : 0;
}

int rtrun_run(const struct rtrun_options *o, char **argv)
{
	struct rtrun_shim shim;
	struct rtrun_command command = { 0 };
	struct rtshim_config cfg;
	char path[PATH_MAX], *preload;
	int r, resolved;

	/* What the shim will read: the options set as RTSHIM_* variables, what the environment
	 * had, and the configuration files. */
	if (rtrun_options_config(o, &cfg) < 0)
		return RTRUN_EXIT_ERROR;
	if (cfg.disabled)
		return run_switched_off(o, &cfg, argv);

	if (locate_shim_or_say(&shim) < 0)
		return RTRUN_EXIT_ERROR;

	resolved = rtrun_resolve_command(argv[0], path, sizeof path);
	if (resolved == 0)
		rtrun_command_reach(argv[0], path, &shim, &command);
	preload = rtrun_compose_preload(shim.value, getenv("LD_PRELOAD"));
	if (preload && command.first_library[0]) {
		/* a sanitizer runtime that must be loaded first: before the shim */
		char *both;

		if (asprintf(&both, "%s:%s", command.first_library, preload) < 0)
			both = NULL;
		free(preload);
		preload = both;
	}
	if (!preload) {
		rtrun_log(RTRUN_ERROR, "out of memory");
		return RTRUN_EXIT_ERROR;
	}
	r = set("LD_PRELOAD", preload);
	rtrun_log(RTRUN_INFO, "LD_PRELOAD=%s", preload);
	free(preload);
	/* the command a person named (exec keeps the PID): its requests about another process's
	 * threads are theirs (rtshim(7) rule 22) */
	char me[24];
	snprintf(me, sizeof me, "%d", (int)getpid());
	if (r == 0)
		r = set("RTRUN_COMMAND_PID", me);
	if (r == 0 && rtrun_config_to_env() < 0) {
		rtrun_log(RTRUN_ERROR, "setenv failed: %s", strerror(errno));
		r = -1;
	}
	if (r < 0)
		return RTRUN_EXIT_ERROR;

	if (resolved == 0) {
		warn_about_command(&command, &shim, o);
		if (o->priority && !main_thread_realtime(o, &cfg, argv[0]) && o->require_rt)
			return RTRUN_EXIT_NO_RT;
		rtrun_keeper_start(&cfg);
	}

	return exec_command(argv);
}

/* RTSHIM_DISABLE: COMMAND as it is, without the shim; -p N is the direct call only (the
 * decision core under the switch), as chrt would make it. */
static int run_switched_off(const struct rtrun_options *o, const struct rtshim_config *cfg,
			    char **argv)
{
	char path[PATH_MAX];

	rtrun_log(RTRUN_INFO, "rtshim is switched off (RTSHIM_DISABLE in %s): running %s without "
		  "librtshim.so", rtrun_config_off_source(), argv[0]);
	if (o->priority && rtrun_resolve_command(argv[0], path, sizeof path) == 0 &&
	    !main_thread_realtime(o, cfg, argv[0]) && o->require_rt)
		return RTRUN_EXIT_NO_RT;
	return exec_command(argv);
}

static int exec_command(char **argv)
{
	int r;

	fflush(NULL);
	execvp(argv[0], argv);
	r = errno;
	if (r == ENOENT && rtrun_parse_int(argv[0], 1, INT32_MAX, &(long long){ 0 }) == 0)
		/* chrt's habit `-p N PID`: here -p is the priority of a command */
		rtrun_log(RTRUN_ERROR, "failed to execute '%s': %s (for a running process: rtrun "
			  "--pid %s -p N)", argv[0], strerror(r), argv[0]);
	else
		rtrun_log(RTRUN_ERROR, "failed to execute '%s': %s", argv[0], strerror(r));
	return r == ENOENT ? RTRUN_EXIT_NOT_FOUND : RTRUN_EXIT_CANNOT_EXEC;
}
