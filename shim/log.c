/* log.c — see log.h. */
#include "log.h"

#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file-size.h"

static int log_level = RTSHIM_LOG_WARN;

/* The program's stderr as it was when the shim started: a program that closed descriptor 2
 * (a daemon, `2>&-`) may have reused the number for a data file, which a log line would
 * corrupt.  Lines go to descriptor 2 only while it is still that very file. */
enum { ERR_UNKNOWN, ERR_SETTING, ERR_OPEN, ERR_CLOSED };
static int err_state = ERR_UNKNOWN;
static dev_t err_dev; /* written once, before err_state becomes ERR_OPEN (release) */
static ino_t err_ino;

void rtshim_log_init(void)
{
	struct stat st;
	int expected = ERR_UNKNOWN;

	if (!__atomic_compare_exchange_n(&err_state, &expected, ERR_SETTING, 0, __ATOMIC_ACQUIRE,
					 __ATOMIC_ACQUIRE))
		return; /* done already (or being done by another thread) */
	if (fstat(STDERR_FILENO, &st) == 0) {
		err_dev = st.st_dev;
		err_ino = st.st_ino;
		__atomic_store_n(&err_state, ERR_OPEN, __ATOMIC_RELEASE);
	} else {
		__atomic_store_n(&err_state, ERR_CLOSED, __ATOMIC_RELEASE);
	}
}

/* Is descriptor 2 still the program's stderr?  fstat only: async-signal-safe (the runaway
 * guard logs from its SIGXCPU handler). */
static int stderr_is_ours(void)
{
	struct stat st;

	/* a hook that runs before the constructor (another library's constructor) */
	if (__atomic_load_n(&err_state, __ATOMIC_ACQUIRE) == ERR_UNKNOWN)
		rtshim_log_init();
	if (__atomic_load_n(&err_state, __ATOMIC_ACQUIRE) != ERR_OPEN)
		return 0;
	return fstat(STDERR_FILENO, &st) == 0 && st.st_dev == err_dev && st.st_ino == err_ino;
}

void rtshim_log_set_level(int level)
{
	if (level < RTSHIM_LOG_QUIET)
		level = RTSHIM_LOG_QUIET;
	if (level > RTSHIM_LOG_DEBUG)
		level = RTSHIM_LOG_DEBUG;
	__atomic_store_n(&log_level, level, __ATOMIC_RELAXED);
}

int rtshim_log_get_level(void)
{
	return __atomic_load_n(&log_level, __ATOMIC_RELAXED);
}

int rtshim_log_enabled(int level)
{
	return level > RTSHIM_LOG_QUIET && level <= rtshim_log_get_level();
}

static void vlog(const char *fmt, va_list ap)
{
	char line[512];
	int saved = errno;

	if (stderr_is_ours() && rtshim_write_cannot_signal(STDERR_FILENO)) {
		size_t n = rtshim_format(line, sizeof line, "rtshim[%d]: ", (int)getpid());
		n += rtshim_vformat(line + n, sizeof line - n - 1, fmt, ap);
		line[n++] = '\n';
		for (size_t off = 0; off < n;) {
			ssize_t w = write(STDERR_FILENO, line + off, n - off);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				break;
			off += (size_t)w;
		}
	}
	errno = saved;
}

void rtshim_log(int level, const char *fmt, ...)
{
	if (!rtshim_log_enabled(level))
		return;
	va_list ap;
	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
}

/* "Once" memory: a small open-addressed set of (fmt, key) hashes, lock-free. */
#define ONCE_SLOTS 128
static uint64_t once_seen[ONCE_SLOTS];

static int first_time(const char *fmt, int key)
{
	uint64_t h = 1469598103934665603ull;
	for (const char *p = fmt; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	h = (h ^ (uint32_t)key) * 1099511628211ull;
	if (!h)
		h = 1;
	for (unsigned i = 0; i < ONCE_SLOTS; i++) {
		uint64_t *slot = &once_seen[(h + i) % ONCE_SLOTS];
		uint64_t cur = __atomic_load_n(slot, __ATOMIC_RELAXED);
		if (cur == h)
			return 0;
		if (cur == 0) {
			uint64_t zero = 0;
			if (__atomic_compare_exchange_n(slot, &zero, h, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
				return 1;
			if (zero == h)
				return 0;
		}
	}
	return 1; /* full: better a repeated line than a lost one */
}

void rtshim_log_once(int level, int key, const char *fmt, ...)
{
	if (!rtshim_log_enabled(level) || !first_time(fmt, key))
		return;
	va_list ap;
	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
}
