/* log.h — the shim's logging: prefix "rtshim[PID]: ", the program's stderr only, write(2) only
 * (no stdio, no malloc, no locks), so it is usable from any hook and from a signal handler. */
#ifndef RTSHIM_LOG_H
#define RTSHIM_LOG_H

#include "config.h" /* enum rtshim_log_level */
#include "format.h"

/* Remember which file descriptor 2 is now (or that it is closed): the shim writes its lines
 * there only while descriptor 2 is still that file, never to a file the program opened under
 * that number later.  Called first thing by the shim's constructor (and by the first line
 * logged, if that comes earlier); later calls change nothing. */
void rtshim_log_init(void);

void rtshim_log_set_level(int level);
int rtshim_log_get_level(void);
int rtshim_log_enabled(int level);

/* One line at `level` (a newline is added). */
void rtshim_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Same, but only the first time this (fmt, key) pair is seen in the process: "each distinct
 * failure once".  key distinguishes causes that share a format (e.g. an errno). */
void rtshim_log_once(int level, int key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
