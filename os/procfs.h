/* procfs.h — small /proc readers for the shim (no stdio, no malloc, close-on-exec). */
#ifndef RTSHIM_PROCFS_H
#define RTSHIM_PROCFS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The start of the file at `path` (a /proc file: one read), NUL-terminated in `buf`: its length,
 * or -errno (-EIO when empty). */
ssize_t rtshim_proc_read(const char *path, char *buf, size_t size);
/* Is `tid` a thread of the calling process?  1, 0. */
int rtshim_proc_is_own_thread(pid_t tid);

/* Thread group (process) of any thread id, from /proc/TID/status.  0 or -errno. */
int rtshim_proc_tgid(pid_t tid, pid_t *tgid);

/* Parent of a process, from /proc/PID/status.  0 or -errno. */
int rtshim_proc_ppid(pid_t pid, pid_t *ppid);

/* When process `pid` (0: this one) started, in clock ticks after boot (/proc/PID/stat's
 * starttime): with the PID, a name for the process that a later one with its PID does not have.
 * 0 or -errno. */
int rtshim_proc_start_time(pid_t pid, unsigned long long *ticks);

/* Numeric field `field` (3 and on, counted as proc(5) does) of /proc/PID/stat (0: this
 * process).  0 or -errno. */
int rtshim_proc_stat_field(pid_t pid, int field, unsigned long long *value);

/* Owner uid of /proc/PID (what rtkit checks).  0 or -errno. */
int rtshim_proc_owner(pid_t pid, uid_t *uid);

/* Absolute path of the file mapped at `addr` in this process (from /proc/self/maps, without
 * the dynamic loader's lock, which dladdr takes), and where that file's first segment is mapped
 * (its load base: NULL when not wanted).  0 or -errno. */
int rtshim_proc_mapped_path(const void *addr, char *buf, size_t size, uintptr_t *base);

#endif
