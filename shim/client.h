/* client.h — the shim's daemon client: the request client linked into the shim
 * (daemon-client/rtkit-client.h, on wire-bus.h's connections of one call each): nothing to load,
 * no thread, no allocation, no lock. */
#ifndef RTSHIM_CLIENT_H
#define RTSHIM_CLIENT_H

#include <stdbool.h>

#include "rtkit-client.h"

/* The client, its timeout set to timeout_ms. */
const struct rtshim_client_v1 *rtshim_client_get(int timeout_ms);

/* rtshim(7) rule 21: the process runs under a seccomp filter that the client's calls may not
 * pass (os/seccomp.h, daemon-client/seccomp-probe.h): then no daemon is asked. */
bool rtshim_client_filtered_out(int timeout_ms);

#endif
