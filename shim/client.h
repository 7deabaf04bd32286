/* client.h — the shim's daemon client: the request client linked into the shim
 * (daemon-client/rtkit-client.h, on wire-bus.h's connections of one call each): nothing to load,
 * no thread, no allocation, no lock. */
#ifndef RTSHIM_CLIENT_H
#define RTSHIM_CLIENT_H

#include "rtkit-client.h"

/* The client, its timeout set to timeout_ms. */
const struct rtshim_client_v1 *rtshim_client_get(int timeout_ms);

#endif
