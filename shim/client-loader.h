/* client-loader.h — load librtshim-client.so from the shim's directory on first need.
 *
 * The shim finds that directory by its own location; rtrun by where it found the shim.  Both
 * go through rtshim_client_open(): an absolute directory, never ".", LD_LIBRARY_PATH or the
 * default search path.
 */
#ifndef RTSHIM_CLIENT_LOADER_H
#define RTSHIM_CLIENT_LOADER_H

#include <stddef.h>

#include "rtkit-client.h"

/* The file name looked for beside the shim. */
#define RTSHIM_CLIENT_FILE "librtshim-client.so"

/* dlopen(<dir>/librtshim-client.so, RTLD_NOW | RTLD_LOCAL) and check its RTSHIM_CLIENT_SYMBOL.
 * `dir` must be absolute; a trailing '/' is optional.  Returns the handle (for further dlsym)
 * and the table in *client; or NULL and why in err (errlen bytes).  Loads
 * nothing on failure.  Logs nothing. */
void *rtshim_client_open(const char *dir, const struct rtshim_client_v1 **client, char *err,
			 size_t errlen);

/* The shim's client: the table loaded once per process from the directory of the object this
 * code is linked into; NULL (logged once at warn) when the library or its symbol cannot be
 * loaded.  timeout_ms is applied when it loads. */
const struct rtshim_client_v1 *rtshim_client_get(int timeout_ms);

#endif
