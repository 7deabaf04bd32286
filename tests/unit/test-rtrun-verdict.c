/* test-rtrun-verdict.c — `rtrun --check`'s verdict (wrapper/verdict.c): one test per row of its
 * table, each from the facts of the row before it would win, so that every row is shown to be
 * reached, and in its place. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../wrapper/verdict.c"

/* A user without RLIMIT_RTPRIO, everything working: rtkit grants. */
static const struct rtrun_check_facts working = {
	.shim = 0, .client = true, .program = RTRUN_REACH_YES, .bus = 0, .limits = 0,
	.polkit = RTRUN_POLKIT_YES, .rtkit_installed = true, .grant_ok = true,
	.why = RTSHIM_WHY_GRANTED,
};

/* Facts that fail at one point: no grant, and whatever the row is about. */
static struct rtrun_check_facts refused(enum rtshim_why why, int rtkit_said)
{
	struct rtrun_check_facts f = working;

	f.grant_ok = false;
	f.why = why;
	f.rtkit_said = rtkit_said;
	return f;
}

struct case_row {
	const char *name;
	struct rtrun_check_facts f;
	enum rtrun_answer answer;
	enum rtrun_fix fix;
};

static void check_row(void **state)
{
	const struct case_row *r = *state;
	struct rtrun_verdict v = rtrun_verdict(&r->f);

	assert_int_equal(v.answer, r->answer);
	assert_int_equal(v.fix, r->fix);
}

static struct case_row cases[32];
static size_t nrows;

static void add(const char *name, struct rtrun_check_facts f, enum rtrun_answer answer,
		enum rtrun_fix fix)
{
	cases[nrows++] = (struct case_row){ name, f, answer, fix };
}

static void build_rows(void)
{
	struct rtrun_check_facts f;

	f = working; f.shim = -ENOENT; f.direct_ok = true;
	add("no shim: no, whatever else works", f, RTRUN_NO, RTRUN_FIX_INSTALL_SHIM);
	f = working; f.shim = -EINVAL;
	add("a shim path LD_PRELOAD cannot carry: no", f, RTRUN_NO, RTRUN_FIX_INSTALL_SHIM);
	f = refused(RTSHIM_WHY_DIRECT, 0); f.direct_ok = true; f.program = RTRUN_REACH_STATIC;
	add("the direct call allowed: yes, even for a static program", f, RTRUN_YES_DIRECT,
	    RTRUN_FIX_NONE);
	f = working; f.program = RTRUN_REACH_STATIC;
	add("a static program: no, although rtkit grants", f, RTRUN_NO, RTRUN_FIX_PROGRAM);
	f = working; f.program = RTRUN_REACH_GO;
	add("a Go program: no", f, RTRUN_NO, RTRUN_FIX_PROGRAM);
	f = working; f.program = RTRUN_REACH_SETUID;
	add("a set-user-ID program: no", f, RTRUN_NO, RTRUN_FIX_PROGRAM);
	f = working; f.program = RTRUN_REACH_UNKNOWN;
	add("an unreadable program: the loader may load the shim: yes", f, RTRUN_YES_RTKIT,
	    RTRUN_FIX_NONE);
	add("rtkit granted: yes", working, RTRUN_YES_RTKIT, RTRUN_FIX_NONE);
	f = refused(RTSHIM_WHY_NO_CLIENT, 0); f.client = false; f.bus = f.limits = -ENOTCONN;
	add("no daemon client: no", f, RTRUN_NO, RTRUN_FIX_INSTALL_CLIENT);
	f = refused(RTSHIM_WHY_DIRECT, 0); f.sandbox = true; f.limits = -ENOTCONN;
	add("a sandbox without the Realtime portal: no", f, RTRUN_NO, RTRUN_FIX_PORTAL);
	f = refused(RTSHIM_WHY_DIRECT, 0); f.bus = -ETIMEDOUT; f.limits = -ENOTCONN;
	add("the system bus hung: no", f, RTRUN_NO, RTRUN_FIX_BUS_HUNG);
	f = refused(RTSHIM_WHY_DIRECT, 0); f.bus = -ENOTCONN; f.limits = -ENOTCONN;
	add("no system bus: no", f, RTRUN_NO, RTRUN_FIX_START_BUS);
	f = refused(RTSHIM_WHY_DIRECT, 0); f.limits = -ENOTCONN;
	add("rtkit installed, not running: no", f, RTRUN_NO, RTRUN_FIX_START_RTKIT);
	f.rtkit_installed = false;
	add("no rtkit: no", f, RTRUN_NO, RTRUN_FIX_INSTALL_RTKIT);
	f = refused(RTSHIM_WHY_DIRECT, 0); f.limits = -ETIMEDOUT;
	add("rtkit hung before its limits: no", f, RTRUN_NO, RTRUN_FIX_RTKIT_HUNG);
	f = refused(RTSHIM_WHY_REFUSED, -ETIMEDOUT);
	add("rtkit hung on the request: no", f, RTRUN_NO, RTRUN_FIX_RTKIT_HUNG);
	f = refused(RTSHIM_WHY_DIRECT, 0); f.limits = -EPROTO;
	add("something else answers as rtkit: no", f, RTRUN_NO, RTRUN_FIX_NOT_RTKIT);
	f = refused(RTSHIM_WHY_RTTIME_ZERO, 0);
	add("RLIMIT_RTTIME 0: no", f, RTRUN_NO, RTRUN_FIX_RTTIME_ZERO);
	f = refused(RTSHIM_WHY_STRICT, 0);
	add("--strict above the maximum: no", f, RTRUN_NO, RTRUN_FIX_STRICT);
	f = refused(RTSHIM_WHY_REFUSED, -EPERM); f.polkit = RTRUN_POLKIT_NO;
	add("polkit refuses: no", f, RTRUN_NO, RTRUN_FIX_POLKIT);
	f.polkit = RTRUN_POLKIT_AUTH;
	add("polkit wants authentication: no, as a refusal", f, RTRUN_NO, RTRUN_FIX_POLKIT);
	f.polkit = RTRUN_POLKIT_YES;
	add("rtkit refuses while polkit allows (its canary): no", f, RTRUN_NO, RTRUN_FIX_CANARY);
	f = refused(RTSHIM_WHY_REFUSED, -ENOENT);
	add("rtkit cannot check (no polkitd): no", f, RTRUN_NO, RTRUN_FIX_NO_POLKITD);
	f = refused(RTSHIM_WHY_REFUSED, -EBUSY);
	add("rtkit's per-user limits: no", f, RTRUN_NO, RTRUN_FIX_BUDGET);
	f = refused(RTSHIM_WHY_REFUSED, -EIO); f.sandbox = true;
	add("the Realtime portal fails the request with its own error: no", f, RTRUN_NO,
	    RTRUN_FIX_PORTAL_FAILED);
	f = refused(RTSHIM_WHY_NO_PRIORITY, 0);
	add("anything else: the decision's own words", f, RTRUN_NO, RTRUN_FIX_AS_DECIDED);
}

int main(void)
{
	struct CMUnitTest tests[32];

	build_rows();
	for (size_t i = 0; i < nrows; i++)
		tests[i] = (struct CMUnitTest)cmocka_unit_test_prestate(check_row, &cases[i]);
	for (size_t i = 0; i < nrows; i++)
		tests[i].name = cases[i].name;
	return _cmocka_run_group_tests("rtrun verdict", tests, nrows, NULL, NULL);
}
