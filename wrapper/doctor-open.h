/* doctor-open.h — load librtshim-client.so (rtrun --check's doctor, libdbus-1) from a given
 * directory (where rtrun found the shim): an absolute directory, never ".", LD_LIBRARY_PATH or
 * the default search path. */
#ifndef RTSHIM_DOCTOR_OPEN_H
#define RTSHIM_DOCTOR_OPEN_H

#include <stddef.h>

struct rtshim_doctor_v1; /* the doctor's table: rtkit-client.h */

/* The file name looked for beside the shim. */
#define RTSHIM_CLIENT_FILE "librtshim-client.so"

/* dlopen(<dir>/librtshim-client.so, RTLD_NOW | RTLD_LOCAL) and check its RTSHIM_DOCTOR_SYMBOL.
 * `dir` must be absolute; a trailing '/' is optional.  Returns the table, or NULL and why in
 * err (errlen bytes).  Loads nothing on failure.  Logs nothing. */
const struct rtshim_doctor_v1 *rtshim_doctor_open(const char *dir, char *err, size_t errlen);

#endif
