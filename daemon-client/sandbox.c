/* sandbox.c — see sandbox.h. */
#include "sandbox.h"

#include <unistd.h>

enum rtshim_sandbox rtshim_sandbox_of(bool flatpak_info, const char *snap)
{
	if (flatpak_info)
		return RTSHIM_SANDBOX_FLATPAK;
	/* an empty $SNAP (e.g. `env SNAP= cmd`, or a shell that exports it cleared) is no snap */
	if (snap && *snap)
		return RTSHIM_SANDBOX_SNAP;
	return RTSHIM_SANDBOX_NONE;
}

enum rtshim_sandbox rtshim_sandbox_detect(char *(*get)(const char *))
{
	return rtshim_sandbox_of(access("/.flatpak-info", F_OK) == 0, get("SNAP"));
}
