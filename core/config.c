/* config.c — see config.h. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

#include "format.h"
#include "prio.h"

void rtshim_config_defaults(struct rtshim_config *cfg)
{
	cfg->log_level = RTSHIM_LOG_WARN;
	cfg->timeout_ms = RTSHIM_DEFAULT_TIMEOUT_MS;
	cfg->rttime_us = RTSHIM_DEFAULT_RTTIME_US;
	cfg->reset_on_fork = false;
	cfg->strict = false;
	cfg->policy = RTSHIM_POLICY_ASKED;
	cfg->prio_map = RTSHIM_PRIO_CLAMP;
	cfg->prio_top = 0;
	cfg->runaway = RTSHIM_RUNAWAY_DEMOTE;
	cfg->inherit = false;
	cfg->nice_fallback = RTSHIM_NICE_REFUSED;
	cfg->trace = false;
	cfg->only[0] = '\0';
	cfg->keep = true;
	cfg->disabled = false;
}

int rtshim_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	if (!s || !*s)
		return -EINVAL;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		unsigned d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	if (v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int one_of(const char *s, const char *const *words)
{
	for (int i = 0; words[i]; i++)
		if (!strcasecmp(s, words[i]))
			return i;
	return -1;
}

int rtshim_parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "1", "yes", "true", "on", NULL };
	static const char *const no[] = { "0", "no", "false", "off", NULL };
	if (!s)
		return -EINVAL;
	if (one_of(s, yes) >= 0) {
		*out = true;
		return 0;
	}
	if (one_of(s, no) >= 0) {
		*out = false;
		return 0;
	}
	return -EINVAL;
}

static int parse_log(struct rtshim_config *cfg, const char *v)
{
	static const char *const levels[] = { "quiet", "warn", "info", "debug", NULL };
	int i = one_of(v, levels);
	if (i < 0)
		return -EINVAL;
	cfg->log_level = i; /* same order as enum rtshim_log_level */
	return 0;
}

static int parse_timeout(struct rtshim_config *cfg, const char *v)
{
	uint64_t n;
	if (rtshim_parse_u64(v, 1, RTSHIM_MAX_TIMEOUT_MS, &n) < 0)
		return -EINVAL;
	cfg->timeout_ms = (int)n;
	return 0;
}

static int parse_rttime(struct rtshim_config *cfg, const char *v)
{
	uint64_t n;
	if (rtshim_parse_u64(v, 1, RTSHIM_MAX_RTTIME_US, &n) < 0)
		return -EINVAL;
	cfg->rttime_us = (int64_t)n;
	return 0;
}

static int parse_reset(struct rtshim_config *cfg, const char *v)
{
	return rtshim_parse_bool(v, &cfg->reset_on_fork);
}

static int parse_strict(struct rtshim_config *cfg, const char *v)
{
	return rtshim_parse_bool(v, &cfg->strict);
}

static int parse_policy(struct rtshim_config *cfg, const char *v)
{
	static const char *const names[] = { "asked", "rr", "fifo", NULL };
	int i = one_of(v, names);
	if (i < 0)
		return -EINVAL;
	cfg->policy = i; /* same order as enum rtshim_policy_choice */
	return 0;
}

static int parse_nice_fallback(struct rtshim_config *cfg, const char *v)
{
	static const char *const names[] = { "off", "refused", "always", NULL };
	bool b;
	int i = one_of(v, names);
	if (i >= 0) {
		cfg->nice_fallback = i; /* same order as enum rtshim_nice_fallback */
		return 0;
	}
	if (rtshim_parse_bool(v, &b) < 0)
		return -EINVAL;
	cfg->nice_fallback = b ? RTSHIM_NICE_ALWAYS : RTSHIM_NICE_OFF;
	return 0;
}

static int parse_trace(struct rtshim_config *cfg, const char *v)
{
	return rtshim_parse_bool(v, &cfg->trace);
}

/* PATTERN[,PATTERN...]: non-empty patterns, printable, no '/', fits in cfg->only. */
static int parse_only(struct rtshim_config *cfg, const char *v)
{
	size_t len = strlen(v), start = 0;
	if (len >= sizeof cfg->only)
		return -EINVAL;
	for (size_t i = 0; i <= len; i++) {
		if (v[i] == ',' || v[i] == '\0') {
			if (i == start)
				return -EINVAL;
			start = i + 1;
		} else if (v[i] <= 0x20 || v[i] >= 0x7f || v[i] == '/') {
			return -EINVAL;
		}
	}
	memcpy(cfg->only, v, len + 1);
	return 0;
}

static int parse_prio_map(struct rtshim_config *cfg, const char *v)
{
	static const char *const names[] = { "clamp", "scale", "offset", NULL };
	int i = one_of(v, names);
	if (i < 0)
		return -EINVAL;
	cfg->prio_map = i; /* same order as enum rtshim_prio_mode */
	return 0;
}

static int parse_top(struct rtshim_config *cfg, const char *v)
{
	uint64_t n;
	if (rtshim_parse_u64(v, 1, 99, &n) < 0)
		return -EINVAL;
	cfg->prio_top = (int)n;
	return 0;
}

static int parse_runaway(struct rtshim_config *cfg, const char *v)
{
	static const char *const names[] = { "demote", "kill", NULL };
	int i = one_of(v, names);
	if (i < 0)
		return -EINVAL;
	cfg->runaway = i; /* same order as enum rtshim_runaway */
	return 0;
}

static int parse_inherit(struct rtshim_config *cfg, const char *v)
{
	return rtshim_parse_bool(v, &cfg->inherit);
}

static int parse_keep(struct rtshim_config *cfg, const char *v)
{
	return rtshim_parse_bool(v, &cfg->keep);
}

static int parse_disable(struct rtshim_config *cfg, const char *v)
{
	return rtshim_parse_bool(v, &cfg->disabled);
}

static const struct rtshim_config_var vars[] = {
	{ "RTSHIM_LOG", "warn", "quiet, warn, info or debug", parse_log },
	{ "RTSHIM_TIMEOUT_MS", "500", "1..60000", parse_timeout },
	{ "RTSHIM_RTTIME_US", "200000", "1..3600000000", parse_rttime },
	{ "RTSHIM_RESET_ON_FORK", "0", "1 or 0 (yes/no, true/false, on/off)", parse_reset },
	{ "RTSHIM_STRICT", "0", "1 or 0 (yes/no, true/false, on/off)", parse_strict },
	{ "RTSHIM_POLICY", "asked", "rr, fifo or asked", parse_policy },
	{ "RTSHIM_PRIO_MAP", "clamp", "clamp, scale or offset", parse_prio_map },
	{ "RTSHIM_TOP", "none", "1..99", parse_top },
	{ "RTSHIM_RUNAWAY", "demote", "demote or kill", parse_runaway },
	{ "RTSHIM_INHERIT", "0", "1 or 0 (yes/no, true/false, on/off)", parse_inherit },
	{ "RTSHIM_NICE_FALLBACK", "refused", "refused, always (or 1) or off (or 0)", parse_nice_fallback },
	{ "RTSHIM_TRACE", "0", "1 or 0 (yes/no, true/false, on/off)", parse_trace },
	{ "RTSHIM_ONLY", "(unset: every request)",
	  "PATTERN[,PATTERN...] (library file-name patterns, no '/', up to 255 bytes)", parse_only },
	{ "RTSHIM_KEEP", "1", "1 or 0 (yes/no, true/false, on/off)", parse_keep },
	{ "RTSHIM_DISABLE", "0", "1 or 0 (yes/no, true/false, on/off)", parse_disable },
};

const struct rtshim_config_var *rtshim_config_vars(size_t *count)
{
	*count = sizeof vars / sizeof vars[0];
	return vars;
}

/* Length of the name in NAME or NAME=VALUE. */
static size_t name_length(const char *name)
{
	return strcspn(name, "=");
}

bool rtshim_config_name_known(const char *name)
{
	size_t len = name_length(name);
	if (len == strlen("RTSHIM_CONFIG_FILES") && !strncmp(name, "RTSHIM_CONFIG_FILES", len))
		return true;
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
		if (strlen(vars[i].name) == len && !strncmp(vars[i].name, name, len))
			return true;
	return false;
}

/* Levenshtein distance of a[0..la) and b[0..lb), case-insensitive; names are short (the
 * unknown one is cut at 31 bytes). */
static size_t edit_distance(const char *a, size_t la, const char *b, size_t lb)
{
	size_t row[32];
	if (la > 31)
		la = 31;
	if (lb > 31)
		lb = 31;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t cost = (a[i - 1] | 0x20) == (b[j - 1] | 0x20) ? 0 : 1;
			size_t best = diag + cost;
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

/* Does a[0..la) contain b[0..lb) (case-insensitive)? */
static bool contains(const char *a, size_t la, const char *b, size_t lb)
{
	for (size_t i = 0; lb && i + lb <= la; i++)
		if (!strncasecmp(a + i, b, lb))
			return true;
	return false;
}

const char *rtshim_config_suggest(const char *name)
{
	static const char prefix[] = "RTSHIM_";
	const size_t plen = sizeof prefix - 1;
	size_t len = name_length(name), best = (size_t)-1;
	const char *meant = NULL;

	if (len <= plen || strncasecmp(name, prefix, plen))
		return NULL;
	const char *word = name + plen;
	len -= plen;
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *known = vars[i].name + plen;
		size_t klen = strlen(known);
		size_t d = edit_distance(word, len, known, klen);
		/* RTSHIM_MAP for RTSHIM_PRIO_MAP, RTSHIM_TIMEOUT for RTSHIM_TIMEOUT_MS */
		if (len >= 3 && (contains(known, klen, word, len) || contains(word, len, known, klen)))
			d = 1;
		if (d < best) {
			best = d;
			meant = vars[i].name;
		}
	}
	/* near: at most a third of the longer word changed, and never more than 3 edits */
	return best <= 3 && best * 3 <= (len > 6 ? len : 6) ? meant : NULL;
}

const char *rtshim_config_misspelt(const char *entry)
{
	if (strncmp(entry, "RTSHIM_", 7) || rtshim_config_name_known(entry))
		return NULL;
	return rtshim_config_suggest(entry);
}

int rtshim_config_set(struct rtshim_config *cfg, const char *name, const char *value)
{
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		if (strcmp(vars[i].name, name))
			continue;
		if (!value)
			return -EINVAL;
		/* parse into a scratch copy so a bad value never leaves a half-set field */
		struct rtshim_config tmp = *cfg;
		if (vars[i].parse(&tmp, value) < 0)
			return -EINVAL;
		*cfg = tmp;
		return 0;
	}
	return -ENOENT;
}

/* RTSHIM_PRIO_MAP=offset anchors the program's top priority (RTSHIM_TOP) at rtkit's maximum:
 * without one, the anchor would be 99 and every usual priority would land on 1.  The clamp
 * instead, said once. */
static const struct rtshim_config_var offset_without_top = {
	"RTSHIM_PRIO_MAP", "clamp", "clamp, scale, or offset together with RTSHIM_TOP (--top)", NULL,
};

int rtshim_config_load(struct rtshim_config *cfg, char *(*get)(const char *name),
		       rtshim_config_warn_fn *warn, void *ctx)
{
	int bad = 0;
	rtshim_config_defaults(cfg);
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = get(vars[i].name);
		if (!v)
			continue;
		if (rtshim_config_set(cfg, vars[i].name, v) < 0) {
			bad++;
			if (warn)
				warn(ctx, &vars[i], v);
		}
	}
	if (cfg->prio_map == RTSHIM_PRIO_OFFSET && !cfg->prio_top) {
		bad++;
		cfg->prio_map = RTSHIM_PRIO_CLAMP;
		if (warn)
			warn(ctx, &offset_without_top, get("RTSHIM_PRIO_MAP"));
	}
	return bad;
}
