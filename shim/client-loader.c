/* client-loader.c — see client-loader.h.  The shim's client is found by the shim's own
 * location (dladdr, or /proc/self/maps when the loader only knows a relative name).
 *
 * dlopen and dladdr take the dynamic loader's lock.  A library constructor run by dlopen holds
 * it while it runs; if it waits for a thread it started, and that thread asks for realtime, a
 * request that loaded the client itself would wait for the constructor, which waits for the
 * request: both hang.  So the load runs on a helper thread (started once per process, with
 * the real pthread_create and every signal blocked) and a request waits for it at most the
 * D-Bus timeout; past that it fails open (EPERM, as without the shim) and the load completes
 * once the loader's lock is free, for the next request. */
#include "client-loader.h"
#include "client-open.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "procfs.h"

enum { IDLE, LOADING, DONE };

static const struct rtshim_client_v1 *client;
static int load_timeout_ms;
/* futex word: IDLE, LOADING (the helper runs), DONE (client set, or the load failed: logged) */
static int state;
/* set by rtshim_client_loader_init: the real pthread_create, and the process whose memory this
 * is (renewed in a child of fork(); a vfork child, which shares it, has another PID) */
static rtshim_create_fn *create_real;
static pid_t owner_pid;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static int own_dir(char *buf, size_t size)
{
	Dl_info info;
	if (dladdr((const void *)rtshim_client_get, &info) && info.dli_fname &&
	    info.dli_fname[0] == '/') {
		size_t len = strlen(info.dli_fname);
		if (len >= size)
			return -ENAMETOOLONG;
		memcpy(buf, info.dli_fname, len + 1);
	} else {
		int r = rtshim_proc_mapped_path((const void *)rtshim_client_get, buf, size);
		if (r < 0)
			return r;
	}
	char *slash = strrchr(buf, '/');
	if (!slash)
		return -ENOENT;
	slash[1] = '\0';
	return 0;
}

/* dlopen the client and publish it (a second load, on the creator's thread while the helper
 * waits for the lock, only takes another reference to the same object). */
static void load(void)
{
	char dir[PATH_MAX], err[PATH_MAX + 128];
	const struct rtshim_client_v1 *c;
	int r = own_dir(dir, sizeof dir);
	if (r < 0) {
		rtshim_log_once(RTSHIM_LOG_WARN, r,
				"cannot locate the shim's own directory (%s): realtime requests are left as they are",
				rtshim_errno_name(r));
		return;
	}
	if (!rtshim_client_open(dir, &c, err, sizeof err)) {
		rtshim_log_once(RTSHIM_LOG_WARN, 0,
				"cannot load the daemon client (%s): realtime requests are left as they are",
				err);
		return;
	}
	c->set_timeout_ms(__atomic_load_n(&load_timeout_ms, __ATOMIC_RELAXED));
	const struct rtshim_client_v1 *none = NULL;
	if (__atomic_compare_exchange_n(&client, &none, c, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		rtshim_log(RTSHIM_LOG_DEBUG, "daemon client loaded from %s%s", dir, RTSHIM_CLIENT_FILE);
}

static void set_state(int s)
{
	__atomic_store_n(&state, s, __ATOMIC_RELEASE);
	syscall(SYS_futex, &state, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

static void *helper(void *p)
{
	(void)p;
	int saved = errno;
	load();
	set_state(DONE);
	errno = saved;
	return NULL;
}

/* A child of fork() has no helper: a load in flight in the parent starts again there. */
static void atfork_child(void)
{
	owner_pid = getpid();
	if (__atomic_load_n(&state, __ATOMIC_RELAXED) == LOADING)
		__atomic_store_n(&state, IDLE, __ATOMIC_RELAXED);
}

static void register_atfork(void)
{
	(void)pthread_atfork(NULL, NULL, atfork_child);
}

void rtshim_client_loader_init(rtshim_create_fn *real_create)
{
	pthread_once(&atfork_once, register_atfork);
	owner_pid = getpid();
	__atomic_store_n(&create_real, real_create, __ATOMIC_RELEASE);
}

/* IDLE → LOADING, and the helper thread started (detached, every signal blocked: the program's
 * handlers never run there).  false: no helper (the state is IDLE again). */
static bool start_helper(rtshim_create_fn *create)
{
	int idle = IDLE;
	if (!__atomic_compare_exchange_n(&state, &idle, LOADING, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return true; /* another request started it */
	pthread_attr_t attr;
	sigset_t all, old;
	int e = pthread_attr_init(&attr);
	if (!e) {
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		pthread_t t;
		e = create(&t, &attr, helper, NULL);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		pthread_attr_destroy(&attr);
	}
	if (e) {
		rtshim_log_once(RTSHIM_LOG_WARN, e,
				"cannot start a thread to load the daemon client (%s): this request is left as it is",
				rtshim_errno_name(e));
		set_state(IDLE);
		return false;
	}
	return true;
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Until the helper is done, at most timeout_ms. */
static void wait_done(int timeout_ms)
{
	int64_t deadline = now_ns() + (int64_t)(timeout_ms > 0 ? timeout_ms : 1) * 1000000;
	for (;;) {
		if (__atomic_load_n(&state, __ATOMIC_ACQUIRE) != LOADING)
			return;
		int64_t left = deadline - now_ns();
		if (left <= 0)
			return;
		struct timespec rel = { .tv_sec = left / 1000000000, .tv_nsec = left % 1000000000 };
		syscall(SYS_futex, &state, FUTEX_WAIT_PRIVATE, LOADING, &rel, NULL, 0);
	}
}

const struct rtshim_client_v1 *rtshim_client_load_here(int timeout_ms)
{
	const struct rtshim_client_v1 *c = __atomic_load_n(&client, __ATOMIC_ACQUIRE);
	if (c || __atomic_load_n(&state, __ATOMIC_ACQUIRE) == DONE)
		return c;
	__atomic_store_n(&load_timeout_ms, timeout_ms, __ATOMIC_RELAXED);
	int saved = errno, idle = IDLE;
	if (__atomic_compare_exchange_n(&state, &idle, LOADING, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		load();
		set_state(DONE);
	} else {
		load(); /* the helper's dlopen may be waiting for the lock this thread holds */
	}
	errno = saved;
	return __atomic_load_n(&client, __ATOMIC_ACQUIRE);
}

const struct rtshim_client_v1 *rtshim_client_get(int timeout_ms)
{
	const struct rtshim_client_v1 *c = __atomic_load_n(&client, __ATOMIC_ACQUIRE);
	if (c || __atomic_load_n(&state, __ATOMIC_ACQUIRE) == DONE)
		return c;
	rtshim_create_fn *create = __atomic_load_n(&create_real, __ATOMIC_ACQUIRE);
	/* before the shim's constructor (start-up: the loader's lock is free), or in a vfork child
	 * (it shares the parent's memory: no thread may be started there): here, as before */
	if (!create || owner_pid != getpid())
		return rtshim_client_load_here(timeout_ms);
	__atomic_store_n(&load_timeout_ms, timeout_ms, __ATOMIC_RELAXED);
	int saved = errno;
	if (start_helper(create))
		wait_done(timeout_ms);
	errno = saved;
	c = __atomic_load_n(&client, __ATOMIC_ACQUIRE);
	if (!c && __atomic_load_n(&state, __ATOMIC_ACQUIRE) == LOADING)
		rtshim_log_once(RTSHIM_LOG_WARN, 0,
				"the daemon client is still loading after %d ms (the dynamic loader is busy: a library constructor waiting for this thread?): this request is left as it is, later ones are served",
				timeout_ms);
	return c;
}
