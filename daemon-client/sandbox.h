/* sandbox.h — is this process inside a sandbox whose PIDs mean nothing to rtkit (Flatpak,
 * Snap)?  The daemon client's rule (it then asks the Realtime portal, portal.c), which
 * `rtrun --check` links too (to say so): Flatpak when /.flatpak-info exists, else Snap when $SNAP
 * is set and not empty. */
#ifndef RTSHIM_SANDBOX_H
#define RTSHIM_SANDBOX_H

#include <stdbool.h>

enum rtshim_sandbox { RTSHIM_SANDBOX_NONE, RTSHIM_SANDBOX_FLATPAK, RTSHIM_SANDBOX_SNAP };

/* The rule itself, pure: `flatpak_info` whether /.flatpak-info exists, `snap` the value of
 * $SNAP (NULL when unset). */
enum rtshim_sandbox rtshim_sandbox_of(bool flatpak_info, const char *snap);

/* This process: /.flatpak-info looked up, $SNAP read with `get` (getenv, or secure_getenv). */
enum rtshim_sandbox rtshim_sandbox_detect(char *(*get)(const char *));

#endif
