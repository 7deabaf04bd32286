/* client-open.h — load librtshim-client.so from a given directory (the shim's, or for rtrun
 * the directory where it found the shim): an absolute directory, never ".", LD_LIBRARY_PATH or
 * the default search path.  Shared by the shim (client-loader.c) and rtrun (client.c). */
#ifndef RTSHIM_CLIENT_OPEN_H
#define RTSHIM_CLIENT_OPEN_H

#include <stddef.h>

struct rtshim_client_v1; /* the client's table: rtkit-client.h */

/* The file name looked for beside the shim. */
#define RTSHIM_CLIENT_FILE "librtshim-client.so"

/* dlopen(<dir>/librtshim-client.so, RTLD_NOW | RTLD_LOCAL) and check its RTSHIM_CLIENT_SYMBOL.
 * `dir` must be absolute; a trailing '/' is optional.  Returns the handle (for further dlsym)
 * and the table in *client; or NULL and why in err (errlen bytes).  Loads
 * nothing on failure.  Logs nothing. */
void *rtshim_client_open(const char *dir, const struct rtshim_client_v1 **client, char *err,
			 size_t errlen);

#endif
