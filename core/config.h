/* config.h — RTSHIM_* configuration: pure parsing (no environment access of its own), so unit
 * tests, rtrun and a fuzzer can drive it.  See rtshim(7). */
#ifndef RTSHIM_CONFIG_H
#define RTSHIM_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* RTSHIM_LOG */
enum rtshim_log_level {
	RTSHIM_LOG_QUIET = 0, /* nothing at all */
	RTSHIM_LOG_WARN = 1,  /* default: warnings (each distinct one once) */
	RTSHIM_LOG_INFO = 2,  /* + one line per decision */
	RTSHIM_LOG_DEBUG = 3, /* + everything else */
};

enum rtshim_policy_choice {
	RTSHIM_POLICY_ASKED = 0, /* privileged path asks what the program asked */
	RTSHIM_POLICY_RR,
	RTSHIM_POLICY_FIFO,
};

struct rtshim_config {
	int log_level;      /* enum rtshim_log_level; RTSHIM_LOG */
	int timeout_ms;     /* RTSHIM_TIMEOUT_MS, 1..60000 */
	int64_t rttime_us;  /* RTSHIM_RTTIME_US, 1..3600000000 */
	bool reset_on_fork; /* RTSHIM_RESET_ON_FORK */
	bool strict;        /* RTSHIM_STRICT */
	int policy;         /* enum rtshim_policy_choice; RTSHIM_POLICY */
	int prio_map;       /* enum rtshim_prio_mode (prio.h); RTSHIM_PRIO_MAP */
	int prio_top;       /* RTSHIM_TOP: anchor of the offset mode, 1..99; 0 = unset (99) */
	int runaway;        /* enum rtshim_runaway; RTSHIM_RUNAWAY */
	bool inherit;       /* RTSHIM_INHERIT */
	int nice_fallback;  /* enum rtshim_nice_fallback; RTSHIM_NICE_FALLBACK */
	bool trace;         /* RTSHIM_TRACE */
	char only[256];     /* RTSHIM_ONLY: comma-separated fnmatch patterns; "" = every request */
	bool keep;          /* RTSHIM_KEEP: rtrun's keeper asks again for what rtkit took away */
	bool disabled;      /* RTSHIM_DISABLE: rtshim off, every call goes to the kernel as it is */
};

/* RTSHIM_NICE_FALLBACK: when a thread cannot have realtime, ask rtkit for a nice level instead
 * (MakeThreadHighPriority at MinNiceLevel).  The program's call still fails as it would
 * without rtshim; the nice level is a bonus. */
enum rtshim_nice_fallback {
	RTSHIM_NICE_OFF = 0,     /* never */
	RTSHIM_NICE_REFUSED,     /* default: when rtkit refuses realtime */
	RTSHIM_NICE_ALWAYS,      /* instead of realtime: rtkit is never asked for realtime */
};

/* RTSHIM_RUNAWAY: what happens to a realtime thread that overruns RLIMIT_RTTIME. */
enum rtshim_runaway {
	RTSHIM_RUNAWAY_DEMOTE = 0, /* default: soft limit below the hard one, SIGXCPU demotes */
	RTSHIM_RUNAWAY_KILL,       /* the kernel's behaviour: soft = hard, killed at the limit */
};

#define RTSHIM_DEFAULT_TIMEOUT_MS 500
#define RTSHIM_MAX_TIMEOUT_MS 60000
#define RTSHIM_DEFAULT_RTTIME_US 200000
#define RTSHIM_MAX_RTTIME_US 3600000000LL

/* One variable: its name, how its default reads, what is accepted. */
struct rtshim_config_var {
	const char *name;
	const char *default_text;
	const char *accepted;
	int (*parse)(struct rtshim_config *cfg, const char *value); /* 0 or -EINVAL */
};

void rtshim_config_defaults(struct rtshim_config *cfg);

/* The table of every RTSHIM_* variable, for rtrun, the man page and tests. */
const struct rtshim_config_var *rtshim_config_vars(size_t *count);

/* Set one variable by name from its text.  0, -EINVAL (bad value: cfg keeps what it had, which
 * is the default after rtshim_config_defaults) or -ENOENT (not a known variable).  value must be
 * a NUL-terminated string; any bytes are accepted. */
int rtshim_config_set(struct rtshim_config *cfg, const char *name, const char *value);

/* Load every variable through `get` (e.g. secure_getenv; NULL = unset).  For each bad value
 * `warn` is called once with the variable, its value and the default used.  Returns the number
 * of bad values. */
typedef void rtshim_config_warn_fn(void *ctx, const struct rtshim_config_var *var, const char *value);
int rtshim_config_load(struct rtshim_config *cfg, char *(*get)(const char *name),
		       rtshim_config_warn_fn *warn, void *ctx);

/* Is `name` (NAME or NAME=VALUE) a variable of rtshim's: one of the table, or
 * RTSHIM_CONFIG_FILES? */
bool rtshim_config_name_known(const char *name);

/* An environment entry NAME=VALUE that is probably a misspelt variable of rtshim's: an RTSHIM_*
 * name that is not one of them but near one (other RTSHIM_* names, e.g. a test harness's,
 * are left alone).  The name it probably meant, else NULL. */
const char *rtshim_config_misspelt(const char *entry);

/* The variable an unknown RTSHIM_* name (NAME or NAME=VALUE) probably meant: the nearest name
 * of the table by edit distance (one of them containing the other counts as near), or NULL
 * when none is near. */
const char *rtshim_config_suggest(const char *name);

/* Strict unsigned decimal in [min, max]: digits only, no sign, no blanks, no overflow. */
int rtshim_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* 1/0, yes/no, true/false, on/off (any case). */
int rtshim_parse_bool(const char *s, bool *out);

#endif
