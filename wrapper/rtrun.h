/* rtrun.h — what the files of wrapper/ share.
 *
 * rtrun runs a command with librtshim.so preloaded (run.c), diagnoses the current user's
 * realtime situation (check.c), and makes a running process realtime (pid.c).  Pure helpers
 * (util.c, preload.c, elf.c) have no global state and are unit-tested directly
 * (tests/unit/test-rtrun-*.c).  Functions return 0 or a negative errno unless said otherwise.
 */
#ifndef RTSHIM_RTRUN_H
#define RTSHIM_RTRUN_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "decide.h"

/* Exit statuses, as env(1) and chrt(1) use them. */
#define RTRUN_EXIT_NO_RT 123      /* --require-rt: -p got no realtime, COMMAND not run (env's
				     125-127 are taken, timeout's 124 too) */
#define RTRUN_EXIT_ERROR 125      /* rtrun's own error: bad option, shim not found, ... */
#define RTRUN_EXIT_CANNOT_EXEC 126 /* COMMAND found but could not be executed */
#define RTRUN_EXIT_NOT_FOUND 127  /* COMMAND not found */

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif

#define RTRUN_SHIM_FILE "librtshim.so"
/* --check: where Debian installs rtkit-daemon, and the RLIMIT_MEMLOCK below which it warns
 * (jackd locks its memory; 64 MiB holds a JACK server and a few clients). */
#define RTRUN_RTKIT_DAEMON "/usr/libexec/rtkit-daemon"
#define RTRUN_MEMLOCK_WANTED (64ULL << 20)

struct rtrun_options {
	int priority;          /* -p N: 1..99; 0 = not given */
	int policy;            /* --policy: SCHED_RR or SCHED_FIFO; -1 = not given */
	int priority_policy;   /* chrt's -f / -r: the policy of -p's request only; -1 = not given */
	const char *rttime_text; /* --rttime USEC as given (validated); NULL = not given */
	int64_t rttime_us;     /* its value; 0 = not given */
	const char *timeout_text;
	int timeout_ms;        /* --timeout MS; 0 = not given */
	int reset_on_fork;     /* --reset-on-fork 1, --no-reset-on-fork 0; -1 = not given */
	bool strict;
	bool trace;
	int verbose;           /* -v count; -1 = --quiet */
	bool check;            /* --check */
	bool status;           /* --status */
	pid_t status_pid;      /* --status PID; 0 = every process of the user with the shim */
	bool status_pairs;     /* --pairs: --status as key=value lines, for scripts */
	bool print_preload;    /* --print-preload */
	pid_t pid;             /* --pid ID (a process or one of its threads); 0 = not given */
	bool all_tasks;        /* -a: --pid acts on every thread of the process */
	bool require_rt;       /* --require-rt: a failed -p is an error, COMMAND does not run */
	const char *map_text;  /* --map clamp|scale|offset (validated); NULL = not given */
	const char *top_text;  /* --top N (validated); NULL = not given */
	const char *runaway_text; /* --runaway demote|kill (validated); NULL = not given */
	bool inherit;          /* --inherit */
	const char *nice_fallback_text; /* --nice-fallback[=WHEN] (validated); NULL = not given */
	bool no_keep;          /* --no-keep */
	const char *only_text; /* --only PATTERNS (validated); NULL = not given */
};

/* log.c — "rtrun: " messages on stderr.  Errors always; warnings unless --quiet; info with
 * -v, debug with -vv. */
enum rtrun_level { RTRUN_ERROR, RTRUN_WARNING, RTRUN_INFO, RTRUN_DEBUG };
void rtrun_set_verbosity(int verbose);
void rtrun_log(enum rtrun_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* util.c — pure helpers. */

/* Strict decimal integer in [min, max]: optional leading '-' only when min < 0, digits only,
 * no blanks, no overflow.  0 or -EINVAL / -ERANGE. */
int rtrun_parse_int(const char *s, long long min, long long max, long long *out);
/* "rr"/"fifo" (any case) → SCHED_RR/SCHED_FIFO; -EINVAL otherwise. */
int rtrun_parse_policy(const char *s);
/* "SCHED_RR|SCHED_RESET_ON_FORK" etc. into buf. */
const char *rtrun_policy_text(int policy, char *buf, size_t size);
/* A limit for humans: "unlimited" or the number. */
const char *rtrun_rlim_text(unsigned long long v, char *buf, size_t size);

/* preload.c — where the shim is, and the LD_PRELOAD value. */

struct rtrun_shim {
	char native[PATH_MAX];   /* absolute path of this architecture's librtshim.so */
	char prefix[PATH_MAX];   /* <prefix> ("" for /) when `layout` */
	bool layout;             /* native is <prefix>/lib/<multiarch>/rtshim/librtshim.so */
	char value[PATH_MAX];    /* the entry rtrun puts in LD_PRELOAD ($LIB form or `native`) */
	bool lib_token;          /* value uses the dynamic loader's $LIB token */
	char tried[2][PATH_MAX]; /* where it looked, for the error message */
};

/* Find librtshim.so: beside rtrun's own executable (<exe dir>/../lib/<multiarch>/rtshim/),
 * else in the compiled-in RTSHIM_PKGLIBDIR; never relative to the current directory.
 * -ENOENT (not found: see shim->tried), -EINVAL (its path cannot be carried by LD_PRELOAD). */
int rtrun_locate_shim(struct rtrun_shim *shim);

/* If `libdir` ends in "/lib/<multiarch>/rtshim", write the prefix before "/lib" into out
 * (size bytes) and return 0; -EINVAL otherwise.  Pure. */
int rtrun_prefix_of_pkglibdir(const char *libdir, const char *multiarch, char *out, size_t size);

/* A path ld.so can carry as one LD_PRELOAD entry (absolute, no space or colon)? */
bool rtrun_preload_entry_ok(const char *path);

/* The new LD_PRELOAD: `entry` first, then the entries of `old` (split on spaces and colons as
 * ld.so does, empty ones dropped) minus every one whose file name is librtshim.so, joined by
 * ':'.  malloc'd; NULL on ENOMEM.  Pure. */
char *rtrun_compose_preload(const char *entry, const char *old);

/* elf.c — what the dynamic loader will make of a command. */

struct rtrun_elf {
	bool is_elf;
	bool is_script;          /* starts with "#!" */
	char interpreter[PATH_MAX]; /* the script's interpreter (first word after #!) */
	int elf_class;           /* ELFCLASS32 / ELFCLASS64 */
	int machine;             /* e_machine */
	bool native_endian;
	bool has_interp;         /* PT_INTERP present: dynamically linked */
	bool go;                 /* a Go program (its build ID note): raw system calls */
	char first_library[64];  /* a DT_NEEDED sanitizer runtime that must be loaded first
				    ("libasan.so.8"), or empty */
};

/* Read the ELF header and program headers (or a "#!" line) from fd.  0, or -ENOEXEC (neither
 * ELF nor script, or a truncated/corrupt ELF), or -errno of the read. */
int rtrun_elf_inspect(int fd, struct rtrun_elf *out);

/* Debian multiarch tuple of an ELF class/machine ("i386-linux-gnu"), or NULL if unknown. */
const char *rtrun_elf_multiarch(int elf_class, int machine);

/* command.c — will the dynamic loader load librtshim.so into a command? */
enum rtrun_reach {
	RTRUN_REACH_YES = 0,          /* dynamically linked, for an architecture with a shim */
	RTRUN_REACH_UNKNOWN,          /* cannot be read (execute-only): the loader may load it */
	RTRUN_REACH_SETUID,           /* secure execution: the loader ignores LD_PRELOAD */
	RTRUN_REACH_SETGID,
	RTRUN_REACH_FILE_CAPS,
	RTRUN_REACH_STATIC,           /* no PT_INTERP: no loader at all */
	RTRUN_REACH_GO,               /* Go makes its system calls itself */
	RTRUN_REACH_NO_SHIM_FOR_ARCH, /* another architecture, whose librtshim.so is not installed */
	RTRUN_REACH_OTHER_ARCH,       /* an architecture rtrun knows no shim for */
};
struct rtrun_command {
	enum rtrun_reach reach;
	char name[PATH_MAX];          /* the command, or the interpreter of a script */
	int err;                      /* UNKNOWN: why it could not be opened */
	const char *multiarch;        /* another architecture's tuple, when known */
	char other_shim[PATH_MAX + 64]; /* YES: that architecture's librtshim.so */
	char first_library[64];       /* YES: a sanitizer runtime to preload before the shim */
};
/* COMMAND as given and `path`, where rtrun_resolve_command found it. */
void rtrun_command_reach(const char *cmd, const char *path, const struct rtrun_shim *shim,
			 struct rtrun_command *out);
/* The answer in one clause ("X is statically linked: LD_PRELOAD has no effect on it, ..."). */
const char *rtrun_reach_text(const struct rtrun_command *c, const struct rtrun_shim *shim,
			     char *buf, size_t size);

/* run.c */

/* Resolve COMMAND as execvp(3) would (PATH search when it has no '/').  0 and the path, or
 * -ENOENT / -EACCES (not executable) / -EISDIR. */
int rtrun_resolve_command(const char *cmd, char *path, size_t size);

/* The options as RTSHIM_* variables in the environment (what the command's shim reads); and
 * with the configuration they make (warning once about each bad value).  -1 on failure (said). */
struct rtshim_config;
int rtrun_options_to_env(const struct rtrun_options *o);
int rtrun_options_config(const struct rtrun_options *o, struct rtshim_config *cfg);

/* settings.c — the configuration: options (in the environment already), environment, user's
 * file, system's file.  Each bad value, bad line of a file and unknown RTSHIM_* variable is
 * given to `say` (NULL: said nowhere) as one line of text.  `command`: for rtrun's command (a
 * bad variable of the environment is removed, so its shim takes the default silently).
 * Returns the number of bad values. */
typedef void rtrun_config_say_fn(void *ctx, const char *text);
int rtrun_config_load(struct rtshim_config *cfg, rtrun_config_say_fn *say, void *ctx, bool command);
/* After rtrun_config_load: the files' valid settings that the environment does not override,
 * into the environment, and RTSHIM_CONFIG_FILES=0 when the files said anything.  -1 on
 * failure. */
int rtrun_config_to_env(void);
/* Where RTSHIM_DISABLE comes from: a file's path, or "the environment". */
const char *rtrun_config_off_source(void);

/* The policy -p N asks for: chrt's -f/-r, else --policy, else SCHED_RR (what rtkit grants). */
int rtrun_priority_policy(const struct rtrun_options *o);

/* `rtrun --print-preload`: the LD_PRELOAD entry rtrun puts first (the $LIB form where the
 * installation allows it, so that one value serves every architecture), one line; exit status. */
int rtrun_print_preload(void);

/* Everything for `rtrun [OPTIONS] COMMAND...`; returns only on failure (exit status). */
int rtrun_run(const struct rtrun_options *o, char **argv);
/* keeper.c — before COMMAND's exec: start rtshim-keeper beside it, unless cfg->keep is off. */
void rtrun_keeper_start(const struct rtshim_config *cfg);

/* realtime.c — the operations -p, --pid and --check share. */

/* Make thread `tid` of process `pid` (0: this process) realtime at `priority` with `policy`,
 * exactly as the shim would decide under `cfg` (core/decide.h): first directly, then on EPERM
 * through rtkit (RLIMIT_RTTIME bounded, the priority mapped, RTSHIM_STRICT, the nice
 * fallback).  0 or the negative errno the program would see; res says what happened. */
struct rtshim_config;
struct rtrun_rt_request {
	pid_t pid, tid;
	int priority, policy;
	const struct rtshim_config *cfg;
	bool guard_in_command;   /* the shim in the command will guard the thread (rtrun -p) */
};
struct rtrun_rt_result {
	struct rtshim_decision d; /* the final decision */
	const char *how;          /* "directly", "through rtkit", or why nothing was asked */
	int priority;             /* the priority obtained */
	int rtkit_max;            /* rtkit's MaxRealtimePriority, when it was read */
	bool nice;                /* no realtime, but a nice level from rtkit instead */
};
int rtrun_make_realtime(const struct rtrun_rt_request *req, struct rtrun_rt_result *res);

/* Why rtrun_make_realtime failed, in plain words, into buf. */
const char *rtrun_rt_error_text(const struct rtrun_rt_result *res, char *buf, size_t size);

/* limits.c — rtkit's per-user limits and what the user's processes hold of them now. */
struct rtkit_usage;
void rtrun_rtkit_usage(struct rtkit_usage *u);
/* The limits, the holders and the options that raise them, in one clause. */
const char *rtrun_rtkit_limits_text(const struct rtkit_usage *u, char *buf, size_t size);

/* Does this process have CAP_SYS_NICE in its effective set (/proc/self/status)? */
bool rtrun_have_cap_sys_nice(void);

/* The thread's current policy (with flags) and priority; -errno. */
int rtrun_thread_sched(pid_t tid, int *policy, int *priority);

/* proc.c — reading /proc. */
/* The thread ids of `pid`, sorted (the main thread first).  malloc'd array in *out. */
int rtrun_list_threads(pid_t pid, pid_t **out, size_t *count);
/* A thread's name ("?" when it cannot be read). */
void rtrun_comm_of(pid_t pid, pid_t tid, char *buf, size_t size);
bool rtrun_thread_exists(pid_t pid, pid_t tid);
/* The name of user `uid` ("?" when it has none). */
const char *rtrun_user_name(uid_t uid, char *buf, size_t size);

/* check.c / pid.c: exit status 0 (yes / all threads) or 1.  rtrun_check answers for the
 * command program[0] when given (NULL-terminated; 127 when it is not found). */
int rtrun_check(const struct rtrun_options *o, char *const *program);
int rtrun_pid(const struct rtrun_options *o);
/* status.c: `rtrun --status [PID]`; exit status 0, or 1 when PID does not exist. */
int rtrun_status(const struct rtrun_options *o);

/* client.c — the request client, linked in (libc only), and --check's doctor,
 * librtshim-client.so (libdbus-1), loaded from the shim's directory on first need. */
struct rtshim_client_v1;
struct rtshim_doctor_v1;
/* The error rtrun's operations return when the client cannot be loaded. */
#define RTRUN_ENOCLIENT ELIBACC
/* The client's table (never NULL: it is linked in). */
const struct rtshim_client_v1 *rtrun_client(void);
/* The doctor's table (RTSHIM_DOCTOR_SYMBOL), loaded on the first call; NULL if it cannot be
 * loaded (rtrun_client_error() says why).  Nothing is logged. */
const struct rtshim_doctor_v1 *rtrun_doctor(void);
/* Why the doctor could not be loaded. */
const char *rtrun_client_error(void);
/* The D-Bus timeout for every call. */
void rtrun_client_set_timeout_ms(int timeout_ms);
/* The client's words for an errno it returned (rtkit_strerror); for -RTRUN_ENOCLIENT, why
 * the client could not be loaded. */
const char *rtrun_rtkit_strerror(int err);

#endif
