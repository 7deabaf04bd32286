/* log.c — rtrun's messages: "rtrun: " (+ "warning: ") on stderr. */
#include <stdarg.h>
#include <stdio.h>

#include "file-size.h"
#include "rtrun.h"

static int verbosity; /* -1 quiet, 0 default, 1 -v, 2 -vv */

void rtrun_set_verbosity(int verbose)
{
	verbosity = verbose;
}

void rtrun_log(enum rtrun_level level, const char *fmt, ...)
{
	va_list ap;

	switch (level) {
	case RTRUN_ERROR:
		break;
	case RTRUN_WARNING:
		if (verbosity < 0)
			return;
		break;
	case RTRUN_INFO:
		if (verbosity < 1)
			return;
		break;
	case RTRUN_DEBUG:
		if (verbosity < 2)
			return;
		break;
	}
	/* under RLIMIT_FSIZE a line to a full file would kill rtrun (SIGXFSZ): not written */
	if (!rtshim_write_cannot_signal(fileno(stderr)))
		return;
	fputs(level == RTRUN_WARNING ? "rtrun: warning: " : "rtrun: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
