/* verdict.c — see verdict.h.  One row per answer, the first that applies wins: a missing
 * piece is named before what it hides (no shim before the bus, no bus before rtkit, rtkit
 * before polkit). */
#include "verdict.h"

#include <errno.h>
#include <stddef.h>

static bool no_shim(const struct rtrun_check_facts *f) { return f->shim < 0; }
static bool direct(const struct rtrun_check_facts *f) { return f->direct_ok; }
static bool program_unreached(const struct rtrun_check_facts *f)
{
	return f->program != RTRUN_REACH_YES && f->program != RTRUN_REACH_UNKNOWN;
}
static bool granted(const struct rtrun_check_facts *f) { return f->grant_ok; }
static bool no_client(const struct rtrun_check_facts *f) { return !f->client; }
static bool no_portal(const struct rtrun_check_facts *f) { return f->sandbox && f->limits < 0; }
static bool bus_hung(const struct rtrun_check_facts *f) { return f->bus == -ETIMEDOUT; }
static bool no_bus(const struct rtrun_check_facts *f) { return f->bus < 0; }
static bool rtkit_stopped(const struct rtrun_check_facts *f)
{
	return f->limits == -ENOTCONN && f->rtkit_installed;
}
static bool no_rtkit(const struct rtrun_check_facts *f) { return f->limits == -ENOTCONN; }
static bool rtkit_hung(const struct rtrun_check_facts *f)
{
	return f->limits == -ETIMEDOUT || f->rtkit_said == -ETIMEDOUT;
}
static bool not_rtkit(const struct rtrun_check_facts *f) { return f->limits < 0; }
static bool rttime_zero(const struct rtrun_check_facts *f) { return f->why == RTSHIM_WHY_RTTIME_ZERO; }
static bool strict(const struct rtrun_check_facts *f) { return f->why == RTSHIM_WHY_STRICT; }
static bool polkit_no(const struct rtrun_check_facts *f)
{
	return f->rtkit_said == -EPERM &&
	       (f->polkit == RTRUN_POLKIT_NO || f->polkit == RTRUN_POLKIT_AUTH);
}
static bool canary(const struct rtrun_check_facts *f) { return f->rtkit_said == -EPERM; }
static bool no_polkitd(const struct rtrun_check_facts *f) { return f->rtkit_said == -ENOENT; }
static bool budget(const struct rtrun_check_facts *f) { return f->rtkit_said == -EBUSY; }
/* the portal answered, then failed the request with an error that is none of rtkit's */
static bool portal_failed(const struct rtrun_check_facts *f)
{
	return f->sandbox && f->rtkit_said == -EIO;
}
static bool always(const struct rtrun_check_facts *f) { (void)f; return true; }

static const struct row {
	bool (*applies)(const struct rtrun_check_facts *f);
	struct rtrun_verdict verdict;
} rows[] = {
	{ no_shim, { RTRUN_NO, RTRUN_FIX_INSTALL_SHIM } },
	{ direct, { RTRUN_YES_DIRECT, RTRUN_FIX_NONE } },
	{ program_unreached, { RTRUN_NO, RTRUN_FIX_PROGRAM } },
	{ granted, { RTRUN_YES_RTKIT, RTRUN_FIX_NONE } },
	{ no_client, { RTRUN_NO, RTRUN_FIX_INSTALL_CLIENT } },
	{ no_portal, { RTRUN_NO, RTRUN_FIX_PORTAL } },
	{ bus_hung, { RTRUN_NO, RTRUN_FIX_BUS_HUNG } },
	{ no_bus, { RTRUN_NO, RTRUN_FIX_START_BUS } },
	{ rtkit_stopped, { RTRUN_NO, RTRUN_FIX_START_RTKIT } },
	{ no_rtkit, { RTRUN_NO, RTRUN_FIX_INSTALL_RTKIT } },
	{ rtkit_hung, { RTRUN_NO, RTRUN_FIX_RTKIT_HUNG } },
	{ not_rtkit, { RTRUN_NO, RTRUN_FIX_NOT_RTKIT } },
	{ rttime_zero, { RTRUN_NO, RTRUN_FIX_RTTIME_ZERO } },
	{ strict, { RTRUN_NO, RTRUN_FIX_STRICT } },
	{ polkit_no, { RTRUN_NO, RTRUN_FIX_POLKIT } },
	{ canary, { RTRUN_NO, RTRUN_FIX_CANARY } },
	{ no_polkitd, { RTRUN_NO, RTRUN_FIX_NO_POLKITD } },
	{ budget, { RTRUN_NO, RTRUN_FIX_BUDGET } },
	{ portal_failed, { RTRUN_NO, RTRUN_FIX_PORTAL_FAILED } },
	{ always, { RTRUN_NO, RTRUN_FIX_AS_DECIDED } },
};

struct rtrun_verdict rtrun_verdict(const struct rtrun_check_facts *f)
{
	size_t i = 0;

	while (!rows[i].applies(f))
		i++;
	return rows[i].verdict;
}
