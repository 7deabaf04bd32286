/* settings.c — the shim's configuration: loaded once from the environment (secure_getenv),
 * each bad value said once per process, the log level set from it. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "decide.h"
#include "log.h"
#include "settings.h"
#include "raw-syscall.h"

static pthread_once_t cfg_once = PTHREAD_ONCE_INIT;
static struct rtshim_config cfg;
/* Loaded, and nothing configured that a request the kernel grants acts upon: rtshim(7) rule 1 sends
 * it as it is, no trace, no RTSHIM_ONLY, no line at "info" (the privileged path's one test,
 * rtshim_cfg_plain).  Set with release after the load: true says the configuration is there. */
bool rtshim_cfg_is_plain;

/* True while rtshim_cfg_at_start reads: for a program that started realtime. */
static bool in_constructor;

/* A bad value is said once per process, not again by each program it execs.  A program that
 * starts realtime with SCHED_RESET_ON_FORK was made realtime by an earlier program of this same
 * process (the flag never passes to a child): by rtrun -p, which reports bad values itself
 * and removes them, or by this shim, which said them when it read them for that grant. */
static bool said_before_exec(void)
{
	long pol;

	if (!__atomic_load_n(&in_constructor, __ATOMIC_RELAXED))
		return false;
	pol = rtshim_raw_syscall(SYS_sched_getscheduler, 0L);
	return pol >= 0 && (pol & SCHED_RESET_ON_FORK) && rtshim_is_rt((int)pol);
}

static void cfg_warn(void *ctx, const struct rtshim_config_var *var, const char *value)
{
	const struct rtshim_config *c = ctx;
	char shown[48];
	size_t i;
	if (c->log_level < RTSHIM_LOG_WARN || said_before_exec())
		return;
	for (i = 0; i < sizeof shown - 4 && value[i]; i++)
		shown[i] = (value[i] >= 0x20 && value[i] < 0x7f) ? value[i] : '?';
	if (value[i])
		memcpy(shown + i, "...", 4);
	else
		shown[i] = '\0';
	rtshim_log(RTSHIM_LOG_WARN, "%s=\"%s\" is not valid (expected %s): using the default %s",
		   var->name, shown, var->accepted, var->default_text);
}

static void cfg_load(void)
{
	rtshim_config_load(&cfg, secure_getenv, cfg_warn, &cfg);
	rtshim_log_set_level(cfg.log_level);
	if (cfg.trace && cfg.log_level < RTSHIM_LOG_INFO)
		rtshim_log_set_level(RTSHIM_LOG_INFO); /* the decisions go with the traces */
	__atomic_store_n(&rtshim_cfg_is_plain,
			 rtshim_direct_is_as_asked(&cfg) && !rtshim_trace_wanted_by(&cfg) &&
				 !rtshim_log_enabled(RTSHIM_LOG_INFO),
			 __ATOMIC_RELEASE);
}

/* &cfg once loaded, read inline by rtshim_cfg (settings.h): every request reads it,
 * pthread_once would cost the privileged path 20 more instructions each time */
const struct rtshim_config *rtshim_cfg_loaded;

const struct rtshim_config *rtshim_cfg_load(void)
{
	pthread_once(&cfg_once, cfg_load);
	__atomic_store_n(&rtshim_cfg_loaded, &cfg, __ATOMIC_RELEASE);
	return &cfg;
}

const struct rtshim_config *rtshim_cfg_at_start(void)
{
	__atomic_store_n(&in_constructor, true, __ATOMIC_RELAXED);
	const struct rtshim_config *c = rtshim_cfg();
	__atomic_store_n(&in_constructor, false, __ATOMIC_RELAXED);
	return c;
}
