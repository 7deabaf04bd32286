/* seccomp.h — whether the calling process runs under a seccomp filter (os/seccomp.c). */
#ifndef RTSHIM_SECCOMP_H
#define RTSHIM_SECCOMP_H

#include <stdbool.h>

/* true: a seccomp filter (or strict mode) is in force, or the question itself is refused (a
 * filter can answer prctl with an error other than EINVAL, which says there is no seccomp to ask,
 * as under qemu-user): a sandbox whose filter may kill or trap the system
 * calls a daemon client makes (socket, connect, an executable mapping).  A filter is never
 * lifted, so the answer true is kept; errno is left as it was. */
bool rtshim_seccomp_filtered(void);

#endif
