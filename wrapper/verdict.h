/* verdict.h — `rtrun --check`'s answer as a pure function of the facts it gathered: yes or no,
 * and the one fix that comes first.  The rows of verdict.c's table are tried in order; each
 * has its unit test (tests/unit/test-rtrun-verdict.c). */
#ifndef RTSHIM_VERDICT_H
#define RTSHIM_VERDICT_H

#include <stdbool.h>

#include "decide.h"
#include "rtrun.h"

/* polkit's answer for rtkit's action (struct rtshim_bus_report's `polkit`) */
enum {
	RTRUN_POLKIT_NO = 0,
	RTRUN_POLKIT_YES = 1,
	RTRUN_POLKIT_AUTH = 2, /* only after authentication, which rtkit never asks for */
};

struct rtrun_check_facts {
	int shim;               /* rtrun_locate_shim(): 0, -ENOENT, -EINVAL */
	bool client;            /* the daemon client (and its doctor) loaded */
	bool sandbox;           /* Flatpak or Snap: the Realtime portal stands for rtkit */
	enum rtrun_reach program; /* --check PROGRAM; RTRUN_REACH_YES without one */
	bool direct_ok;         /* the direct call made a test thread realtime */
	int bus;                /* the system bus: 0 answers, or -errno (-ETIMEDOUT: hung) */
	int limits;             /* rtkit's (the portal's) limits read: 0, or -errno */
	int polkit;             /* RTRUN_POLKIT_*, or -errno (-ENOTCONN: polkitd not on the bus) */
	bool rtkit_installed;   /* RTRUN_RTKIT_DAEMON exists */
	bool grant_ok;          /* rtkit made a test thread realtime */
	enum rtshim_why why;    /* the decision core's last word on that request */
	int rtkit_said;         /* rtkit's own refusal (why == REFUSED): -errno, or 0 */
};

enum rtrun_fix {
	RTRUN_FIX_NONE = 0,       /* yes: nothing to fix */
	RTRUN_FIX_INSTALL_SHIM,   /* librtshim.so not found (or not carried by LD_PRELOAD) */
	RTRUN_FIX_PROGRAM,        /* the loader will not load the shim into PROGRAM */
	RTRUN_FIX_INSTALL_CLIENT, /* librtshim-client.so cannot be loaded */
	RTRUN_FIX_PORTAL,         /* sandboxed, and the Realtime portal does not answer */
	RTRUN_FIX_BUS_HUNG,       /* the system bus does not answer in time */
	RTRUN_FIX_START_BUS,      /* no system bus */
	RTRUN_FIX_START_RTKIT,    /* rtkit installed, not running, not activatable */
	RTRUN_FIX_INSTALL_RTKIT,  /* no rtkit */
	RTRUN_FIX_RTKIT_HUNG,     /* rtkit does not answer in time (the bus does) */
	RTRUN_FIX_NOT_RTKIT,      /* what answers as rtkit does not speak its API */
	RTRUN_FIX_RTTIME_ZERO,    /* RLIMIT_RTTIME 0 */
	RTRUN_FIX_STRICT,         /* --strict and a priority above rtkit's maximum */
	RTRUN_FIX_POLKIT,         /* polkit refuses this session */
	RTRUN_FIX_CANARY,         /* rtkit refuses although polkit allows (its canary) */
	RTRUN_FIX_NO_POLKITD,     /* rtkit cannot check: no polkitd, or a PID namespace */
	RTRUN_FIX_BUDGET,         /* rtkit's per-user limits reached */
	RTRUN_FIX_PORTAL_FAILED,  /* the Realtime portal failed the request with its own error */
	RTRUN_FIX_AS_DECIDED,     /* anything else: the decision core's own words */
};

enum rtrun_answer {
	RTRUN_NO = 0,
	RTRUN_YES_DIRECT,  /* RLIMIT_RTPRIO or CAP_SYS_NICE: the kernel says yes itself */
	RTRUN_YES_RTKIT,   /* through rtkit (or the portal) */
};

struct rtrun_verdict {
	enum rtrun_answer answer;
	enum rtrun_fix fix;
};

/* The first row of the table that applies.  Pure. */
struct rtrun_verdict rtrun_verdict(const struct rtrun_check_facts *f);

#endif
