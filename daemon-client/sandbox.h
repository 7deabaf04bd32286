/* sandbox.h — is this process inside a sandbox whose PIDs or bus access mean nothing to rtkit
 * (Flatpak, a confined Snap)?  The daemon client's rule (it then asks the Realtime portal,
 * portal.c), which `rtrun --check` links too (to say so):
 * - Flatpak when /.flatpak-info exists;
 * - Snap when $SNAP is set and not empty, and the process is what snapd confines: its AppArmor
 *   label is a snap's ("snap.NAME.APP (enforce)").  $SNAP alone leaks into host programs (the
 *   integrated terminal of a Snap-packaged editor, a classic snap, sets it for everything it
 *   starts; they are "unconfined" and reach rtkit).  Where no AppArmor label can be read (no
 *   such security module), $SNAP is all there is to go by. */
#ifndef RTSHIM_SANDBOX_H
#define RTSHIM_SANDBOX_H

#include <stdbool.h>

enum rtshim_sandbox { RTSHIM_SANDBOX_NONE, RTSHIM_SANDBOX_FLATPAK, RTSHIM_SANDBOX_SNAP };

/* The rule itself, pure: `flatpak_info` whether /.flatpak-info exists, `snap` the value of
 * $SNAP (NULL when unset), `label` the process's AppArmor label (NULL when none can be read). */
enum rtshim_sandbox rtshim_sandbox_of(bool flatpak_info, const char *snap, const char *label);

/* This process: /.flatpak-info looked up, $SNAP read with `get` (getenv, or secure_getenv),
 * and its AppArmor label read from /proc only when $SNAP is set. */
enum rtshim_sandbox rtshim_sandbox_detect(char *(*get)(const char *));

#endif
