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
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static void usage(void)
{
	fputs("Usage: rtrun [OPTIONS] [--] COMMAND [ARG...]\n"
	      "       rtrun --check [OPTIONS]\n"
	      "       rtrun --pid ID -p N [-a] [OPTIONS]\n"
	      "       rtrun --status [PID]\n"
	      "\n"
	      "Run COMMAND with librtshim.so preloaded, so that its own requests for realtime\n"
	      "scheduling (SCHED_FIFO/SCHED_RR) succeed through rtkit-daemon when the kernel\n"
	      "refuses them.\n"
	      "\n"
	      "Options:\n"
	      "  -p, --priority N     also make COMMAND's main thread realtime at priority N (1..99)\n"
	      "                       before it starts, like chrt -r N; with --pid: the priority\n"
	      "                       (unlike chrt, taskset and renice, -p is never a PID here)\n"
	      "      --require-rt     with -p: if the main thread cannot be made realtime, fail\n"
	      "                       (exit 125) instead of running COMMAND without it\n"
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
	      "                       default 99)\n"
	      "      --runaway demote|kill\n"
	      "                       a realtime thread that never blocks: demote (default) to\n"
	      "                       SCHED_OTHER at 80% of RLIMIT_RTTIME, or killed by the kernel\n"
	      "      --inherit        threads created by a realtime thread get realtime too\n"
	      "  -v, --verbose        the shim (and rtrun) say what they do; twice: debug\n"
	      "  -q, --quiet          no warnings from the shim or rtrun\n"
	      "      --trace          the shim logs where each request comes from\n"
	      "      --only PATTERN[,PATTERN...]\n"
	      "                       forward only requests made from a library whose file\n"
	      "                       name matches (e.g. 'libjack*'); others are left as they are\n"
	      "      --nice-fallback[=always|refused|off]\n"
	      "                       a thread that gets no realtime gets rtkit's best nice level\n"
	      "                       instead: always (the default of this option: never ask\n"
	      "                       for realtime), refused (the shim's default: when rtkit\n"
	      "                       refuses realtime), off; the program's call still fails\n"
	      "      --check          tell whether programs started with rtrun get realtime here,\n"
	      "                       and what to fix if not (exit status 0 yes, 1 no)\n"
	      "      --pid ID         make a running thread realtime at priority -p N, like\n"
	      "                       chrt -p: process ID's main thread, or thread ID\n"
	      "  -a, --all-tasks      with --pid: every thread of the process, like chrt -a\n"
	      "      --status [PID]   which of your processes run with the shim, and each thread's\n"
	      "                       policy, priority, nice level and state (realtime,\n"
	      "                       realtime-ended, nice-instead, normal), as key=value lines\n"
	      "  -h, --help           show this help and exit\n"
	      "  -V, --version        show the version and exit\n"
	      "\n"
	      "Exit status: COMMAND's own; 125 if rtrun itself fails, 126 if COMMAND cannot be\n"
	      "executed, 127 if it is not found.\n"
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
	vars = rtshim_config_vars(&n);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(vars[i].name, var)) {
			fprintf(stderr, "rtrun: invalid %s value '%s': expected %s\n", option, value,
				vars[i].accepted);
			return -1;
		}
	fprintf(stderr, "rtrun: invalid %s value '%s'\n", option, value);
	return -1;
}

int main(int argc, char **argv)
{
	struct rtrun_options o = { .policy = -1, .reset_on_fork = -1 };
	long long v;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:p:avqhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (rtrun_parse_int(optarg, 1, 99, &v) < 0)
				return usage_error("invalid priority '%s': expected 1..99", optarg);
			o.priority = (int)v;
			break;
		case OPT_POLICY:
			o.policy = rtrun_parse_policy(optarg);
			if (o.policy < 0)
				return usage_error("invalid policy '%s': expected rr or fifo", optarg);
			break;
		case OPT_RTTIME:
			if (check_shim_value("--rttime", "RTSHIM_RTTIME_US", optarg) < 0)
				return RTRUN_EXIT_ERROR;
			rtrun_parse_int(optarg, 1, INT64_MAX, &v);
			o.rttime_text = optarg;
			o.rttime_us = v;
			break;
		case OPT_TIMEOUT:
			if (check_shim_value("--timeout", "RTSHIM_TIMEOUT_MS", optarg) < 0)
				return RTRUN_EXIT_ERROR;
			rtrun_parse_int(optarg, 1, INT32_MAX, &v);
			o.timeout_text = optarg;
			o.timeout_ms = (int)v;
			break;
		case OPT_NO_RESET:
			o.reset_on_fork = 0;
			break;
		case OPT_RESET:
			o.reset_on_fork = 1;
			break;
		case OPT_STRICT:
			o.strict = true;
			break;
		case 'v':
			o.verbose = o.verbose < 0 ? 1 : o.verbose + 1;
			break;
		case 'q':
			o.verbose = -1;
			break;
		case OPT_TRACE:
			o.trace = true;
			break;
		case OPT_CHECK:
			o.check = true;
			break;
		case OPT_MAP:
			if (check_shim_value("--map", "RTSHIM_PRIO_MAP", optarg) < 0)
				return RTRUN_EXIT_ERROR;
			o.map_text = optarg;
			break;
		case OPT_TOP:
			if (check_shim_value("--top", "RTSHIM_TOP", optarg) < 0)
				return RTRUN_EXIT_ERROR;
			o.top_text = optarg;
			break;
		case OPT_RUNAWAY:
			if (check_shim_value("--runaway", "RTSHIM_RUNAWAY", optarg) < 0)
				return RTRUN_EXIT_ERROR;
			o.runaway_text = optarg;
			break;
		case OPT_INHERIT:
			o.inherit = true;
			break;
		case OPT_NICE_FALLBACK:
			if (!optarg)
				optarg = "always";
			if (check_shim_value("--nice-fallback", "RTSHIM_NICE_FALLBACK", optarg) < 0)
				return RTRUN_EXIT_ERROR;
			o.nice_fallback_text = optarg;
			break;
		case OPT_ONLY:
			if (check_shim_value("--only", "RTSHIM_ONLY", optarg) < 0)
				return RTRUN_EXIT_ERROR;
			o.only_text = optarg;
			break;
		case OPT_PID:
			if (rtrun_parse_int(optarg, 1, INT32_MAX, &v) < 0)
				return usage_error("invalid PID '%s'", optarg);
			o.pid = (pid_t)v;
			break;
		case 'a':
			o.all_tasks = true;
			break;
		case OPT_REQUIRE_RT:
			o.require_rt = true;
			break;
		case OPT_STATUS:
			o.status = true;
			break;
		case 'h':
			usage();
			return 0;
		case 'V':
			printf("rtrun (rtshim) %s\n", RTSHIM_VERSION);
			return 0;
		case ':':
			return usage_error("option '%s' requires an argument", argv[optind - 1]);
		default:
			if (optopt) {
				char opt[2] = { (char)optopt, '\0' };

				return usage_error("invalid option -- '%s'", opt);
			}
			return usage_error("unrecognized or ambiguous option '%s'", argv[optind - 1]);
		}
	}
	rtrun_set_verbosity(o.verbose);

	if (o.status) {
		if (o.check || o.pid)
			return usage_error("%s", "--status goes alone (with an optional PID)");
		if (optind < argc) {
			if (optind + 1 < argc || rtrun_parse_int(argv[optind], 1, INT32_MAX, &v) < 0)
				return usage_error("--status takes one PID, not '%s'", argv[optind]);
			o.status_pid = (pid_t)v;
		}
		return rtrun_status(&o);
	}
	if (o.check && o.pid)
		return usage_error("%s", "--check and --pid cannot be combined");
	if (o.pid && !o.priority)
		return usage_error("%s", "--pid needs -p N, the priority (rtkit allows 1..20 by default)");
	if (o.all_tasks && !o.pid)
		return usage_error("%s", "-a (--all-tasks) goes with --pid");
	if (o.require_rt && !o.priority)
		return usage_error("%s", "--require-rt goes with -p N");
	if (o.top_text && strcmp(o.map_text ? o.map_text
			 : getenv("RTSHIM_PRIO_MAP") ? getenv("RTSHIM_PRIO_MAP") : "clamp", "offset"))
		rtrun_log(RTRUN_WARNING, "--top %s has an effect only with --map offset", o.top_text);
	if ((o.check || o.pid) && optind < argc)
		return usage_error("%s takes no command", o.check ? "--check" : "--pid");
	if (o.check)
		return rtrun_check(&o);
	if (o.pid)
		return rtrun_pid(&o);
	if (optind >= argc)
		return usage_error("%s", "no command given");
	return rtrun_run(&o, argv + optind);
}
