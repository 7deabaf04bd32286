/* file-size.h — writes of rtshim's own that must never raise SIGXFSZ in the program.
 *
 * A program run under RLIMIT_FSIZE (`ulimit -f 0`: a judge, a sandboxed worker) gets SIGXFSZ,
 * which kills it by default, from any write to a regular file at or past the limit.  The shim's
 * record and log lines are for people: where such a write would signal, it is not made. */
#ifndef RTSHIM_FILE_SIZE_H
#define RTSHIM_FILE_SIZE_H

#include <stdbool.h>

/* May a write to `fd` be made without SIGXFSZ?  False only when fd is a regular file whose
 * write position (its end, with O_APPEND) is at or past the soft RLIMIT_FSIZE: the kernel
 * signals then, and shortens a write that would only cross the limit. */
bool rtshim_write_cannot_signal(int fd);

#endif
