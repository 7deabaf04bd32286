/* busy.c — rtkit's refusal for a per-user limit ("Device or resource busy", the same for its
 * three limits) named: which limit, which processes hold it, how to raise it (os/rtkit-usage.h).
 * Worked out for the first such refusal of the process only (its warning is said once): a scan
 * of /proc, on the shim's own stack. */
#include <stdbool.h>
#include <unistd.h>

#include "busy.h"
#include "log.h"
#include "rtkit-usage.h"

static int explained;

bool rtshim_busy_explain(const struct rtshim_client_v1 *client, char *buf, size_t size)
{
	struct rtkit_usage u;
	pid_t daemon = 0;

	/* nothing to say it to, or said already */
	if (!rtshim_log_enabled(RTSHIM_LOG_WARN) || __atomic_exchange_n(&explained, 1, __ATOMIC_RELAXED))
		return false;
	if (client && client->daemon_pid && client->daemon_pid(&daemon) < 0)
		daemon = 0;
	rtshim_rtkit_usage(getuid(), daemon, &u);
	rtshim_rtkit_limit_text(&u, buf, size);
	return true;
}
