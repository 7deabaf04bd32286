/* limits.c — rtkit's per-user limits as rtrun tells them: the limits (from the command line of
 * the daemon that owns rtkit's name), what the user's processes hold now, and for a refusal
 * "Device or resource busy" which limit it was (os/rtkit-usage.h). */
#include <stdio.h>
#include <unistd.h>

#include "rtkit-client.h"
#include "rtkit-usage.h"
#include "rtrun.h"

void rtrun_rtkit_usage(struct rtkit_usage *u)
{
	const struct rtshim_client_v1 *client = rtrun_client();
	pid_t daemon = 0;

	if (!client || !client->daemon_pid || client->daemon_pid(&daemon) < 0)
		daemon = 0;
	rtshim_rtkit_usage(getuid(), daemon, u);
}

const char *rtrun_rtkit_limits_text(const struct rtkit_usage *u, char *buf, size_t size)
{
	char who[RTKIT_USAGE_HOLDERS * 32 + 32] = "";
	size_t len = 0;

	for (int i = 0; i < u->nholders && len < sizeof who; i++)
		len += (size_t)snprintf(who + len, sizeof who - len, "%s%d %s", i ? ", " : ": ",
					(int)u->holders[i].pid, u->holders[i].comm);
	if (u->processes > u->nholders && len < sizeof who)
		snprintf(who + len, sizeof who - len, " and %d more", u->processes - u->nholders);
	snprintf(buf, size, "%d processes and %d threads per user, %d requests per %d s (%s); "
		 "yours hold %d and %d now%s; rtkit-daemon --processes-per-user-max=N, "
		 "--threads-per-user-max=N, --actions-per-burst-max=N raise them",
		 u->max_processes, u->max_threads, u->burst_max, u->burst_sec,
		 u->options_read ? "its command line" : "rtkit's defaults", u->processes, u->threads,
		 who);
	return buf;
}
