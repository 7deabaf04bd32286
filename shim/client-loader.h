/* client-loader.h — load librtshim-client.so (beside the shim) on first need. */
#ifndef RTSHIM_CLIENT_LOADER_H
#define RTSHIM_CLIENT_LOADER_H

#include "rtkit-client.h"

/* The client's function table, loaded once per process; NULL (logged once at warn) when the
 * library or its symbol cannot be loaded.  timeout_ms is applied when it loads. */
const struct rtshim_client_v1 *rtshim_client_get(int timeout_ms);

/* The file name looked for beside the shim. */
#define RTSHIM_CLIENT_FILE "librtshim-client.so"

#endif
