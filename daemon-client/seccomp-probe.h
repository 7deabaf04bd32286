/* seccomp-probe.h — may the daemon client talk to its daemon under this process's seccomp
 * filter (os/seccomp.h says there is one)?  (rtshim(7) rule 21.)  Only in a Flatpak or Snap
 * sandbox (sandbox.h), whose filters answer what they refuse with an error and let processes
 * be made, and only when a short-lived child of the process (seccomp-probe.c) made the client's
 * own calls (its connection, authentication and Hello, RLIMIT_RTTIME, SIGXCPU's disposition)
 * under the same filter and lived: a filter that kills or traps any of them kills only that
 * child.  Under any other filter, no: making the child at all may be what that filter kills.
 * The answer is kept until another filter is added. */
#ifndef RTSHIM_SECCOMP_PROBE_H
#define RTSHIM_SECCOMP_PROBE_H

#include <stdbool.h>

/* true: the client may be used; false: the kernel's answer stands.  The child waits at most
 * timeout_ms for the bus. */
bool rtshim_client_passes_filter(int timeout_ms);

#endif
