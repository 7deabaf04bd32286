/* client-loader.h — the shim loads librtshim-client.so from its own directory on first need
 * (core/client-open.h). */
#ifndef RTSHIM_CLIENT_LOADER_H
#define RTSHIM_CLIENT_LOADER_H

#include "rtkit-client.h"

/* The shim's client: the table loaded once per process from the directory of the object this
 * code is linked into; NULL (logged once at warn) when the library or its symbol cannot be
 * loaded.  timeout_ms is applied when it loads. */
const struct rtshim_client_v1 *rtshim_client_get(int timeout_ms);

#endif
