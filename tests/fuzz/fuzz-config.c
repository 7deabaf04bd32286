/* fuzz-config — libFuzzer target for the RTSHIM_* parser (core/config.c), which reads untrusted
 * environment text in every program the shim is preloaded into.
 *
 * Input: the first byte picks a variable of the table (or, past its end, an arbitrary name made
 * of the next bytes); the rest, up to a NUL, is the value.  The whole input, split at '\n', is
 * also given to rtshim_config_load as the values of every variable in table order.
 * Checked besides the sanitizers (ASan, UBSan): a value is accepted or refused, never half-set
 * (refused: the configuration is byte-for-byte what it was); an accepted value leaves every field
 * in its documented range; rtshim_config_load warns once per bad value and counts them; strict
 * decimals agree with strtoull.  tests/run runs it for a bounded time on a copy of
 * tests/fuzz/corpus/fuzz-config/. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "log.h"

#define CHECK(cond)                                                                   \
	do {                                                                          \
		if (!(cond)) {                                                        \
			fprintf(stderr, "fuzz-config: %s:%d: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                      \
		}                                                                     \
	} while (0)

static void check_ranges(const struct rtshim_config *c)
{
	CHECK(c->log_level >= RTSHIM_LOG_QUIET && c->log_level <= RTSHIM_LOG_DEBUG);
	CHECK(c->timeout_ms >= 1 && c->timeout_ms <= RTSHIM_MAX_TIMEOUT_MS);
	CHECK(c->rttime_us >= 1 && c->rttime_us <= RTSHIM_MAX_RTTIME_US);
	CHECK(c->policy >= RTSHIM_POLICY_ASKED && c->policy <= RTSHIM_POLICY_FIFO);
	CHECK(c->prio_top >= 0 && c->prio_top <= 99);
	CHECK(c->runaway == RTSHIM_RUNAWAY_DEMOTE || c->runaway == RTSHIM_RUNAWAY_KILL);
	CHECK(c->nice_fallback >= RTSHIM_NICE_OFF && c->nice_fallback <= RTSHIM_NICE_ALWAYS);
	CHECK(memchr(c->only, '\0', sizeof c->only) != NULL);
}

/* rtshim_config_load's view of the environment: the lines of the input, in table order. */
static char *lines[64];
static size_t nlines;
static size_t nvars;
static const struct rtshim_config_var *vars;

static char *get(const char *name)
{
	for (size_t i = 0; i < nvars && i < nlines; i++)
		if (!strcmp(vars[i].name, name))
			return lines[i];
	return NULL;
}

struct warned {
	int calls;
};

static void warn(void *ctx, const struct rtshim_config_var *var, const char *value)
{
	struct warned *w = ctx;
	w->calls++;
	/* a row of the table, or the load's own word about a pair of them (offset without a top),
	 * which names a variable of the table */
	bool known = var >= vars && var < vars + nvars;
	for (size_t i = 0; i < nvars && !known; i++)
		known = !strcmp(vars[i].name, var->name);
	CHECK(known);
	CHECK(value == get(var->name)); /* the very text the environment gave */
	char buf[128];
	rtshim_format(buf, sizeof buf, "%s=\"%s\" is not valid (expected %s): using the default %s",
		      var->name, value, var->accepted, var->default_text);
	CHECK(strlen(buf) < sizeof buf);
}

static void check_u64(const char *s)
{
	uint64_t v = 0;
	int r = rtshim_parse_u64(s, 0, UINT64_MAX, &v);
	size_t len = strlen(s);
	int digits = len > 0 && strspn(s, "0123456789") == len;
	if (!digits) {
		CHECK(r == -EINVAL);
		return;
	}
	errno = 0;
	unsigned long long want = strtoull(s, NULL, 10);
	if (errno == ERANGE) {
		CHECK(r == -EINVAL);
	} else {
		CHECK(r == 0 && v == want);
		uint64_t w = 0;
		CHECK(rtshim_parse_u64(s, want == 0 ? 0 : want - 1, want, &w) == 0 && w == want);
		if (want < UINT64_MAX)
			CHECK(rtshim_parse_u64(s, want + 1, UINT64_MAX, &w) == -EINVAL);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 8192)
		return 0;
	vars = rtshim_config_vars(&nvars);

	/* one variable */
	char *value = malloc(size);
	memcpy(value, data + 1, size - 1);
	value[size - 1] = '\0';
	struct rtshim_config c, before;
	rtshim_config_defaults(&c);
	check_ranges(&c);
	before = c;
	if (data[0] < nvars) {
		int r = rtshim_config_set(&c, vars[data[0]].name, value);
		CHECK(r == 0 || r == -EINVAL);
		if (r)
			CHECK(!memcmp(&c, &before, sizeof c));
		check_ranges(&c);
		bool b;
		int rb = rtshim_parse_bool(value, &b);
		CHECK(rb == 0 || rb == -EINVAL);
		check_u64(value);
	} else {
		/* an arbitrary name: known names behave as above, others are -ENOENT */
		int r = rtshim_config_set(&c, value, "1");
		int known = 0;
		for (size_t i = 0; i < nvars; i++)
			known |= !strcmp(vars[i].name, value);
		CHECK(known ? (r == 0 || r == -EINVAL) : r == -ENOENT);
		check_ranges(&c);
	}

	/* every variable at once, from the lines of the input */
	char *text = malloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	nlines = 0;
	for (char *p = text; nlines < sizeof lines / sizeof lines[0];) {
		lines[nlines++] = p;
		char *nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	struct warned w = { 0 };
	int bad = rtshim_config_load(&c, get, warn, &w);
	CHECK(bad == w.calls);
	CHECK(bad >= 0 && (size_t)bad <= nvars);
	check_ranges(&c);

	free(text);
	free(value);
	return 0;
}
