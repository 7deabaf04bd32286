/* main.c — rtrun's command line: options, their validation, and the three modes
 * (run COMMAND, --check, --pid).  Exit status like env(1)/chrt(1): 125 for rtrun's own
 * errors, 126 COMMAND not executable, 127 COMMAND not found, else COMMAND's own. */
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "rtrun.h"

#ifndef RTSHIM_VERSION
#define RTSHIM_VERSION "unknown"
#endif

enum {
	OPT_POLICY = 256,
	OPT_RTTIME,
	OPT_TIMEOUT,
	OPT_NO_RESET,
	OPT_RESET,
	OPT_STRICT,
	OPT_TRACE,
	OPT_CHECK,
	OPT_PID,
	OPT_MAP,
	OPT_TOP,
	OPT_RUNAWAY,
	OPT_INHERIT,
	OPT_NICE_FALLBACK,
	OPT_ONLY,
	OPT_REQUIRE_RT,
	OPT_STATUS,
	OPT_PAIRS,
	OPT_PRINT_PRELOAD,
	OPT_NO_KEEP,
};

static const struct option longopts[] = {
	{ "priority", required_argument, NULL, 'p' },
	{ "policy", required_argument, NULL, OPT_POLICY },
	{ "rttime", required_argument, NULL, OPT_RTTIME },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "no-reset-on-fork", no_argument, NULL, OPT_NO_RESET },
	{ "reset-on-fork", no_argument, NULL, OPT_RESET },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "trace", no_argument, NULL, OPT_TRACE },
	{ "check", no_argument, NULL, OPT_CHECK },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "map", required_argument, NULL, OPT_MAP },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "runaway", required_argument, NULL, OPT_RUNAWAY },
	{ "inherit", no_argument, NULL, OPT_INHERIT },
	{ "nice-fallback", optional_argument, NULL, OPT_NICE_FALLBACK },
	{ "only", required_argument, NULL, OPT_ONLY },
	{ "all-tasks", no_argument, NULL, 'a' },
	{ "require-rt", no_argument, NULL, OPT_REQUIRE_RT },
	{ "status", no_argument, NULL, OPT_STATUS },
	{ "pairs", no_argument, NULL, OPT_PAIRS },
	{ "print-preload", no_argument, NULL, OPT_PRINT_PRELOAD },
	{ "no-keep", no_argument, NULL, OPT_NO_KEEP },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static void usage(void)
{
	fputs("Usage: rtrun [OPTIONS] [--] COMMAND [ARG...]\n"
	      "       rtrun --check [OPTIONS] [PROGRAM]\n"
	      "       rtrun --pid ID -p N [-a] [OPTIONS]\n"
	      "       rtrun --status [--pairs] [PID]     (or: rtrun --pid PID)\n"
	      "       rtrun --print-preload\n"
	      "\n"
	      "Run COMMAND with librtshim.so preloaded, so that its own requests for realtime\n"
	      "scheduling (SCHED_FIFO/SCHED_RR) succeed through rtkit-daemon when the kernel\n"
	      "refuses them.\n"
	      "\n"
	      "Options:\n"
	      "  -p, --priority N     also make COMMAND's main thread realtime at priority N (1..99)\n"
	      "                       before it starts, like chrt -r N; with --pid: the priority\n"
	      "                       (unlike chrt, taskset and renice, -p is never a PID here)\n"
	      "  -f N, -r N           chrt's forms: -p N with SCHED_FIFO or SCHED_RR for the\n"
	      "                       direct call (rtkit always grants SCHED_RR); a bare -f or\n"
	      "                       -r sets the policy of -p N (rtrun -f --pid ID -p N)\n"
	      "      --require-rt     with -p: if the main thread cannot be made realtime, fail\n"
	      "                       (exit 123) instead of running COMMAND without it\n"
	      "      --policy rr|fifo policy asked for when the direct call is allowed\n"
	      "                       (default asked: the program's own)\n"
	      "      --rttime USEC    RLIMIT_RTTIME to set before asking rtkit (1..3600000000;\n"
	      "                       never above rtkit's RTTimeUSecMax; default 200000)\n"
	      "      --timeout MS     D-Bus timeout for each request to rtkit (1..60000;\n"
	      "                       default 500)\n"
	      "      --reset-on-fork  add SCHED_RESET_ON_FORK to what the direct call grants (a\n"
	      "                       user with RLIMIT_RTPRIO), so children never inherit it;\n"
	      "                       by default the call is exactly the program's (what rtkit\n"
	      "                       grants always carries it); --no-reset-on-fork: the default\n"
	      "      --strict         never a substitute: a priority above rtkit's maximum fails\n"
	      "                       (EPERM) instead of being lowered, and an explicit-RT\n"
	      "                       pthread_create that gets no realtime fails instead of\n"
	      "                       running SCHED_OTHER\n"
	      "      --map clamp|scale|offset\n"
	      "                       how priorities above rtkit's maximum are mapped: clamp\n"
	      "                       (default), scale (1..99 onto 1..max, order kept), offset\n"
	      "                       (--top N becomes the maximum, N-k the maximum-k)\n"
	      "      --top N          the program's highest priority, for --map offset (1..99;\n"
	      "                       default none); --map offset without it: the clamp, warned\n"
	      "      --runaway demote|kill\n"
	      "                       a realtime thread that never blocks: demote (default) to\n"
	      "                       SCHED_OTHER at 80% of RLIMIT_RTTIME, or killed by the kernel\n"
	      "      --inherit        threads created by a realtime thread get realtime too\n"
	      "      --no-keep        no rtshim-keeper: what rtkit takes away later (its canary\n"
	      "                       after a suspend, its restart) is not asked for again\n"
	      "  -v, --verbose        the shim (and rtrun) say what they do; twice: debug\n"
	      "  -q, --quiet          no warnings from the shim or rtrun\n"
	      "      --trace          the shim logs where each request comes from\n"
	      "      --only PATTERN[,PATTERN...]\n"
	      "                       forward only requests made from a library whose file\n"
	      "                       name matches (e.g. 'libjack*'); others are left as they are\n"
	      "      --nice-fallback [always|refused|off]\n"
	      "                       a thread that gets no realtime gets rtkit's best nice level\n"
	      "                       instead: always (the default of this option: never ask\n"
	      "                       for realtime), refused (the shim's default: when rtkit\n"
	      "                       refuses realtime), off; the program's call still fails;\n"
	      "                       the value may follow as the next word or after =\n"
	      "      --check [PROGRAM]\n"
	      "                       tell whether programs (or PROGRAM) started with rtrun get\n"
	      "                       realtime here, and what to fix if not (exit status 0 yes,\n"
	      "                       1 no)\n"
	      "      --pid ID         make a running thread realtime at priority -p N, like\n"
	      "                       chrt -p: process ID's main thread, or thread ID;\n"
	      "                       without -p: show it, as --status ID does (chrt -p ID)\n"
	      "  -a, --all-tasks      with --pid: every thread of the process, like chrt -a\n"
	      "      --status [PID]   which of your processes (as root: all) run with the shim,\n"
	      "                       and each thread's policy, priority, nice level and state\n"
	      "                       (realtime, realtime-ended, nice-instead, normal), a table\n"
	      "      --pairs          with --status: key=value lines, for scripts\n"
	      "      --print-preload  print the LD_PRELOAD entry rtrun adds (for launchers that\n"
	      "                       set LD_PRELOAD themselves) and exit\n"
	      "  -h, --help           show this help and exit\n"
	      "  -V, --version        show the version and exit\n"
	      "\n"
	      "Exit status: COMMAND's own; 123 if --require-rt got no realtime, 125 if rtrun\n"
	      "itself fails, 126 if COMMAND cannot be executed, 127 if it is not found.\n"
	      "\n"
	      "See rtrun(1) and rtshim(7).\n",
	      stdout);
}

static int usage_error(const char *fmt, const char *arg)
{
	fputs("rtrun: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\nTry 'rtrun --help' for more information.\n", stderr);
	return RTRUN_EXIT_ERROR;
}

/* Validate one RTSHIM_* value exactly as the shim will parse it. */
static int check_shim_value(const char *option, const char *var, const char *value)
{
	struct rtshim_config cfg;
	const struct rtshim_config_var *vars;
	size_t n;

	rtshim_config_defaults(&cfg);
	if (rtshim_config_set(&cfg, var, value) == 0)
		return 0;
	/* a long value is shown by its start: the message stays one line */
	int shown = strlen(value) > 64 ? 64 : (int)strlen(value);
	const char *more = strlen(value) > 64 ? "..." : "";

	vars = rtshim_config_vars(&n);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(vars[i].name, var)) {
			fprintf(stderr, "rtrun: invalid %s value '%.*s%s': expected %s\n", option,
				shown, value, more, vars[i].accepted);
			return -1;
		}
	fprintf(stderr, "rtrun: invalid %s value '%.*s%s'\n", option, shown, value, more);
	return -1;
}

static int priority_option(struct rtrun_options *o, const char *arg)
{
	long long v;

	if (rtrun_parse_int(arg, 1, 99, &v) < 0)
		return usage_error("invalid priority '%s': expected 1..99", arg);
	o->priority = (int)v;
	return 0;
}

/* chrt's policy options: `-f N` / `-r N` (chrt -f N COMMAND) ask for priority N with that
 * policy for the main thread, as -p N does; a bare -f / -r (chrt -f -p N PID) sets the policy
 * of -p's request.  A number is taken only when it comes right after. */
static int chrt_policy(struct rtrun_options *o, int policy, int argc, char **argv)
{
	long long v;

	o->priority_policy = policy;
	if (optind < argc && rtrun_parse_int(argv[optind], -1000000, 1000000, &v) == 0)
		return priority_option(o, argv[optind++]);
	return 0;
}

/* --nice-fallback's value is optional: `--nice-fallback always CMD` takes the next word when it
 * is one of the values (getopt would take it for the command), as a user of env and chrt would
 * expect; any other word is the command. */
static const char *nice_fallback_value(const char *optarg_, int argc, char **argv)
{
	static const char *const words[] = { "always", "refused", "off" };

	if (optarg_)
		return optarg_;
	char path[PATH_MAX];

	for (size_t i = 0; optind < argc && i < sizeof words / sizeof *words; i++)
		if (!strcmp(argv[optind], words[i]))
			return argv[optind++];
	/* a next word that is no command is a mistyped value, said as such, not run */
	if (optind < argc && argv[optind][0] != '-' &&
	    rtrun_resolve_command(argv[optind], path, sizeof path) == -ENOENT)
		return argv[optind++];
	return "always";
}

/* An option that the shim reads as an RTSHIM_* variable: validated here, set by run.c. */
static int shim_option(int c, const char *arg, struct rtrun_options *o)
{
	static const struct { int c; const char *option, *var; } table[] = {
		{ OPT_RTTIME, "--rttime", "RTSHIM_RTTIME_US" },
		{ OPT_TIMEOUT, "--timeout", "RTSHIM_TIMEOUT_MS" },
		{ OPT_MAP, "--map", "RTSHIM_PRIO_MAP" },
		{ OPT_TOP, "--top", "RTSHIM_TOP" },
		{ OPT_RUNAWAY, "--runaway", "RTSHIM_RUNAWAY" },
		{ OPT_NICE_FALLBACK, "--nice-fallback", "RTSHIM_NICE_FALLBACK" },
		{ OPT_ONLY, "--only", "RTSHIM_ONLY" },
	};
	long long v = 0;

	for (size_t i = 0; i < sizeof table / sizeof *table; i++)
		if (table[i].c == c && check_shim_value(table[i].option, table[i].var, arg) < 0)
			return RTRUN_EXIT_ERROR;
	switch (c) {
	case OPT_RTTIME:
		rtrun_parse_int(arg, 1, INT64_MAX, &v);
		o->rttime_text = arg;
		o->rttime_us = v;
		break;
	case OPT_TIMEOUT:
		rtrun_parse_int(arg, 1, INT32_MAX, &v);
		o->timeout_text = arg;
		o->timeout_ms = (int)v;
		break;
	case OPT_MAP: o->map_text = arg; break;
	case OPT_TOP: o->top_text = arg; break;
	case OPT_RUNAWAY: o->runaway_text = arg; break;
	case OPT_NICE_FALLBACK: o->nice_fallback_text = arg; break;
	case OPT_ONLY: o->only_text = arg; break;
	}
	return 0;
}

/* An option getopt did not accept, with what a user of chrt probably meant. */
static int bad_option(char **argv)
{
	char opt[2] = { (char)optopt, '\0' };

	if (!optopt) /* a long option */
		return usage_error("unrecognized or ambiguous option '%s'", argv[optind - 1]);
	if (strchr("bdimoe", optopt))
		return usage_error("invalid option -- '%s' (rtrun makes threads realtime only: "
				   "-p N, -f N or -r N; for other policies use chrt)", opt);
	return usage_error("invalid option -- '%s'", opt);
}

/* One option; -1 to go on, else the exit status. */
static int one_option(int c, int argc, char **argv, struct rtrun_options *o)
{
	long long v;

	switch (c) {
	case 'p':
		return priority_option(o, optarg) ? RTRUN_EXIT_ERROR : -1;
	case 'f':
	case 'r':
		return chrt_policy(o, c == 'f' ? SCHED_FIFO : SCHED_RR, argc, argv) ? RTRUN_EXIT_ERROR
										      : -1;
	case OPT_POLICY:
		o->policy = rtrun_parse_policy(optarg);
		if (o->policy < 0)
			return usage_error("invalid policy '%s': expected rr or fifo", optarg);
		return -1;
	case OPT_NICE_FALLBACK:
		return shim_option(c, nice_fallback_value(optarg, argc, argv), o) ? RTRUN_EXIT_ERROR : -1;
	case OPT_RTTIME: case OPT_TIMEOUT: case OPT_MAP: case OPT_TOP: case OPT_RUNAWAY:
	case OPT_ONLY:
		return shim_option(c, optarg, o) ? RTRUN_EXIT_ERROR : -1;
	case OPT_PID:
		if (rtrun_parse_int(optarg, 1, INT32_MAX, &v) < 0)
			return usage_error("invalid PID '%s'", optarg);
		o->pid = (pid_t)v;
		return -1;
	case OPT_NO_RESET: o->reset_on_fork = 0; return -1;
	case OPT_RESET: o->reset_on_fork = 1; return -1;
	case OPT_STRICT: o->strict = true; return -1;
	case 'v': o->verbose = o->verbose < 0 ? 1 : o->verbose + 1; return -1;
	case 'q': o->verbose = -1; return -1;
	case OPT_TRACE: o->trace = true; return -1;
	case OPT_CHECK: o->check = true; return -1;
	case OPT_INHERIT: o->inherit = true; return -1;
	case 'a': o->all_tasks = true; return -1;
	case OPT_REQUIRE_RT: o->require_rt = true; return -1;
	case OPT_STATUS: o->status = true; return -1;
	case OPT_PAIRS: o->status_pairs = true; return -1;
	case OPT_PRINT_PRELOAD: o->print_preload = true; return -1;
	case OPT_NO_KEEP: o->no_keep = true; return -1;
	case 'h': usage(); return 0;
	case 'V': printf("rtrun (rtshim) %s\n", RTSHIM_VERSION); return 0;
	case ':': return usage_error("option '%s' requires an argument", argv[optind - 1]);
	default: return bad_option(argv);
	}
}

/* -1 when the options are read (optind at the command), else the exit status. */
static int parse_options(int argc, char **argv, struct rtrun_options *o)
{
	int c, status;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:p:fravqhV", longopts, NULL)) != -1)
		if ((status = one_option(c, argc, argv, o)) >= 0)
			return status;
	return -1;
}

/* The mapping in effect: --map, else RTSHIM_PRIO_MAP, else the clamp; likewise the top (a
 * RTSHIM_TOP that is not valid counts as none: it is warned about as itself). */
static void check_mapping(struct rtrun_options *o)
{
	const char *map = o->map_text ? o->map_text : getenv("RTSHIM_PRIO_MAP");
	const char *top = getenv("RTSHIM_TOP");
	struct rtshim_config scratch;
	bool offset = map && !strcmp(map, "offset");

	rtshim_config_defaults(&scratch);
	if (top && rtshim_config_set(&scratch, "RTSHIM_TOP", top) < 0)
		top = NULL;

	if (o->top_text && !offset)
		rtrun_log(RTRUN_WARNING, "--top %s has an effect only with --map offset", o->top_text);
	/* offset anchors the program's top priority at rtkit's maximum: without --top, 70 and
	 * 65 would both become 1.  Said in the terms the user typed, and the clamp instead. */
	if (o->map_text && offset && !o->top_text && !top) {
		rtrun_log(RTRUN_WARNING, "--map offset needs --top N, the program's highest priority "
			  "(e.g. jackd's -P value): using --map clamp");
		o->map_text = "clamp";
	}
}

/* --status [PID], and chrt's query form --pid PID (no -p): what the thread has. */
static int status_mode(struct rtrun_options *o, int argc, char **argv)
{
	long long v;

	if (o->check || (o->status && o->pid))
		return usage_error("%s", "--status goes alone (with an optional PID)");
	if (o->pid) {
		if (optind < argc)
			return usage_error("--pid PID without -p shows the process (as --status PID "
					   "does) and takes no command, not '%s'", argv[optind]);
		o->status_pid = o->pid;
		return rtrun_status(o);
	}
	if (optind < argc) {
		if (rtrun_parse_int(argv[optind], 1, INT32_MAX, &v) < 0)
			return usage_error("--status takes a PID, not '%s'", argv[optind]);
		if (optind + 1 < argc)
			return usage_error("--status takes one PID: unexpected '%s'", argv[optind + 1]);
		o->status_pid = (pid_t)v;
	}
	return rtrun_status(o);
}

int main(int argc, char **argv)
{
	struct rtrun_options o = { .policy = -1, .priority_policy = -1, .reset_on_fork = -1 };
	int status = parse_options(argc, argv, &o);

	if (status >= 0)
		return status;
	rtrun_set_verbosity(o.verbose);
	if (o.print_preload) {
		if (argc != 2)
			return usage_error("%s", "--print-preload goes alone");
		return rtrun_print_preload();
	}
	if (o.status || (o.pid && !o.priority && !o.check))
		return status_mode(&o, argc, argv);
	if (o.status_pairs)
		return usage_error("%s", "--pairs goes with --status");
	if (o.check && o.pid)
		return usage_error("%s", "--check and --pid cannot be combined");
	if (o.all_tasks && !o.pid)
		return usage_error("%s", "-a (--all-tasks) goes with --pid");
	if (o.require_rt && !o.priority)
		return usage_error("%s", "--require-rt goes with -p N");
	if (o.priority_policy >= 0 && !o.priority)
		return usage_error("%s", "-f and -r need a priority, as for chrt: rtrun -r N COMMAND, "
				   "or rtrun -r --pid PID -p N");
	check_mapping(&o);
	if (o.pid && optind < argc)
		return usage_error("%s", "--pid takes no command");
	if (o.check)
		return rtrun_check(&o, argv + optind);
	if (o.pid)
		return rtrun_pid(&o);
	if (optind >= argc)
		return usage_error("%s", "no command given");
	return rtrun_run(&o, argv + optind);
}
