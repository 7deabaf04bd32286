/* client-loader.c — see client-loader.h.  The shim's client is found by the shim's own
 * location (dladdr, or /proc/self/maps when the loader only knows a relative name).
 *
 * dlopen and dladdr take the dynamic loader's lock.  A library constructor run by dlopen holds
 * it while it runs; if it waits for a thread it started, and that thread asks for realtime, a
 * request that loaded the client itself would wait for the constructor, which waits for the
 * request: both hang.  So a request first takes the loader's lock itself, with the D-Bus
 * timeout as its bound (shim/loader-lock.h finds it), and loads the client on its own thread
 * while it holds it; past the bound it fails open (EPERM, as without the shim) and the next
 * request tries again.  Where the lock cannot be found, the load runs on a helper thread
 * (started once per process, with the real pthread_create, a small stack and every signal
 * blocked) that a request waits for at most the same bound; the load then completes once the
 * loader's lock is free, for the next request.  The helper costs address space that
 * mlockall(MCL_CURRENT) counts against RLIMIT_MEMLOCK: its stack, kept in glibc's stack cache,
 * and the malloc arena its first malloc makes (64 MiB reserved) when no arena is free. */
#include "client-loader.h"
#include "client-open.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "format.h"
#include "loader-lock.h"
#include "log.h"
#include "procfs.h"
#include "raw-time.h"
#include "runaway.h" /* the real pthread_sigmask */

enum { IDLE, LOADING, DONE };
/* the helper's stack: the load used 22 KiB of a painted one (dladdr, dlopen of the client and
 * libdbus; glibc's thread descriptor and static TLS come out of it too) */
enum { HELPER_STACK = 128 * 1024 };

static const struct rtshim_client_v1 *client;
static int load_timeout_ms;
/* futex word: IDLE, LOADING (the helper runs), DONE (client set, or the load failed: logged) */
static int state;
/* set by rtshim_client_loader_init: the real pthread_create, and the process whose memory this
 * is (renewed in a child of fork(); a vfork child, which shares it, has another PID) */
static rtshim_create_fn *create_real;
static pid_t owner_pid;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
/* the helper's TID, once it runs */
static pid_t helper_tid;

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
		int r = rtshim_proc_mapped_path((const void *)rtshim_client_get, buf, size, NULL);
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
	rtshim_raw_syscall(SYS_futex, &state, (long)FUTEX_WAKE_PRIVATE, (long)INT_MAX, NULL, NULL, 0L);
}

static void *helper(void *p)
{
	(void)p;
	int saved = errno;
	__atomic_store_n(&helper_tid, gettid(), __ATOMIC_RELEASE);
	load();
	set_state(DONE);
	errno = saved;
	return NULL;
}

/* A child of fork() has no helper: a load in flight in the parent starts again there. */
static void atfork_child(void)
{
	__atomic_store_n(&owner_pid, getpid(), __ATOMIC_RELAXED);
	__atomic_store_n(&helper_tid, 0, __ATOMIC_RELAXED);
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
	__atomic_store_n(&owner_pid, getpid(), __ATOMIC_RELAXED);
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
		rtshim_runaway_real_sigmask()(SIG_SETMASK, &all, &old); /* SIGXCPU too */
		pthread_t t;
		/* not glibc's default 8 MiB, which its stack cache keeps mapped after the helper
		 * ends; the default again if the small one is refused (a large static TLS) */
		if (pthread_attr_setstacksize(&attr, HELPER_STACK) ||
		    create(&t, &attr, helper, NULL)) {
			pthread_attr_destroy(&attr);
			pthread_attr_init(&attr);
			pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
			e = create(&t, &attr, helper, NULL);
		}
		rtshim_runaway_real_sigmask()(SIG_SETMASK, &old, NULL);
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

/* On the calling thread, as before the helper existed (and only where no thread may wait for
 * us: before the shim's constructor, in a vfork child, or when we hold the loader's lock). */
static const struct rtshim_client_v1 *load_on_this_thread(int timeout_ms)
{
	__atomic_store_n(&load_timeout_ms, timeout_ms, __ATOMIC_RELAXED);
	int saved = errno, idle = IDLE;
	if (__atomic_compare_exchange_n(&state, &idle, LOADING, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		load();
		set_state(DONE);
	} else {
		load(); /* in flight elsewhere (a helper waiting for the lock this thread holds, or
			 * the parent's, seen from a vfork child): the same object, another reference */
	}
	errno = saved;
	return __atomic_load_n(&client, __ATOMIC_ACQUIRE);
}

/* Is the helper blocked on a lock the calling thread holds (the dynamic loader's, when we run in
 * a library constructor that dlopen called)?  The loader's lock is a recursive pthread mutex:
 * the helper then sleeps in futex() on its first word, and the mutex's owner field (glibc's
 * public layout: __lock, __count, __owner) holds the owner's TID.  Read with
 * process_vm_readv, which fails cleanly on a bad address.  false whenever unsure. */
static bool helper_waits_for_me(void)
{
	pid_t h = __atomic_load_n(&helper_tid, __ATOMIC_ACQUIRE);
	char path[64], buf[256];
	if (h <= 0)
		return false;
	rtshim_format(path, sizeof path, "/proc/self/task/%d/syscall", (int)h);
	if (rtshim_proc_read(path, buf, sizeof buf) < 0)
		return false;
	char *end;
	long nr = strtol(buf, &end, 10);
	if (end == buf || nr != SYS_futex)
		return false;
	unsigned long word = strtoul(end, &end, 16);
	if (!word)
		return false;
	int owner = 0;
	struct iovec here = { .iov_base = &owner, .iov_len = sizeof owner };
	struct iovec there = { .iov_base = (void *)(uintptr_t)(word + 2 * sizeof(int)),
			       .iov_len = sizeof owner };
	if (process_vm_readv(getpid(), &here, 1, &there, 1, 0) != (ssize_t)sizeof owner)
		return false;
	return owner == gettid();
}

/* Is this process single-threaded (field 20 of /proc/self/stat)?  Then no other thread can hold
 * the loader's lock while it waits for this one, and the client loads here: a helper thread
 * would add its stack and, for its first malloc, a malloc arena (64 MiB of address space), which
 * mlockall(MCL_CURRENT) counts against RLIMIT_MEMLOCK (cyclictest -m). */
static bool single_threaded(void)
{
	char buf[512];
	if (rtshim_proc_read("/proc/self/stat", buf, sizeof buf) < 0)
		return false;
	const char *p = strrchr(buf, ')');
	for (int field = 2; p && *p; p++)
		if (*p == ' ' && ++field == 20)
			return p[1] == '1' && p[2] == ' ';
	return false;
}

/* CLOCK_MONOTONIC timeout_ms from now (at least 1 ms), in nanoseconds */
static int64_t deadline_ns(int timeout_ms)
{
	return rtshim_raw_now_ns() + (int64_t)(timeout_ms > 0 ? timeout_ms : 1) * 1000000;
}

/* Take the loader's lock by the deadline: a try, then tries 1 ms apart (the waits are the
 * kernel's own, which no preload can stretch; the lock is free within a dlopen's time unless
 * a constructor holds it).  It is recursive: a thread that holds it takes it at once. */
static bool lock_by(pthread_mutex_t *lock, int64_t deadline)
{
	for (;;) {
		int e = pthread_mutex_trylock(lock);
		if (e != EBUSY)
			return e == 0;
		int64_t left = deadline - rtshim_raw_now_ns();
		if (left <= 0)
			return false;
		int asleep = 0; /* a word nobody wakes: the wait is a sleep */
		rtshim_raw_futex_wait(&asleep, 0, left < 1000000 ? left : 1000000);
	}
}

/* With the loader's lock taken first, within timeout_ms, the load on this thread cannot wait for
 * a thread that waits for this one, and it adds no thread's stack or malloc arena.  NULL with
 * *busy set when the lock stayed held (the next request tries again). */
static const struct rtshim_client_v1 *load_holding(pthread_mutex_t *lock, int timeout_ms,
						   bool *busy)
{
	int saved = errno;
	if (!lock_by(lock, deadline_ns(timeout_ms))) {
		errno = saved;
		*busy = true;
		return NULL;
	}
	const struct rtshim_client_v1 *c = __atomic_load_n(&state, __ATOMIC_ACQUIRE) == DONE ?
		__atomic_load_n(&client, __ATOMIC_ACQUIRE) : load_on_this_thread(timeout_ms);
	pthread_mutex_unlock(lock);
	errno = saved;
	return c;
}

/* The client: loaded here where no other thread can hold the loader's lock, or here with the
 * loader's lock held, or else by the helper, waited for at most timeout_ms.  A creator (a thread
 * about to wait for the thread it starts) loads it here instead when the helper turns out to
 * wait for a lock the creator holds (the loader's lock is recursive for its holder).  *busy:
 * not loaded because the loader's lock stayed held. */
static const struct rtshim_client_v1 *client_wait(int timeout_ms, bool creator, bool *busy)
{
	const struct rtshim_client_v1 *c = __atomic_load_n(&client, __ATOMIC_ACQUIRE);
	if (c || __atomic_load_n(&state, __ATOMIC_ACQUIRE) == DONE)
		return c;
	rtshim_create_fn *create = __atomic_load_n(&create_real, __ATOMIC_ACQUIRE);
	/* before the shim's constructor (start-up: the loader's lock is free), or in a vfork child
	 * (it shares the parent's memory: no thread may be started there): here, as before */
	if (!create || __atomic_load_n(&owner_pid, __ATOMIC_RELAXED) != getpid() || single_threaded())
		return load_on_this_thread(timeout_ms);
	pthread_mutex_t *lock = rtshim_loader_lock();
	if (lock)
		return load_holding(lock, timeout_ms, busy);
	__atomic_store_n(&load_timeout_ms, timeout_ms, __ATOMIC_RELAXED);
	int saved = errno;
	if (start_helper(create)) {
		int64_t deadline = deadline_ns(timeout_ms);
		for (;;) {
			int64_t left = deadline - rtshim_raw_now_ns();
			if (__atomic_load_n(&state, __ATOMIC_ACQUIRE) != LOADING || left <= 0)
				break;
			if (creator && helper_waits_for_me()) {
				load();
				break;
			}
			if (creator && left > 1000000)
				left = 1000000; /* look again at what the helper waits for */
			rtshim_raw_futex_wait(&state, LOADING, left);
		}
	}
	errno = saved;
	*busy = __atomic_load_n(&state, __ATOMIC_ACQUIRE) == LOADING;
	return __atomic_load_n(&client, __ATOMIC_ACQUIRE);
}

const struct rtshim_client_v1 *rtshim_client_load_here(int timeout_ms)
{
	bool busy = false;
	return client_wait(timeout_ms, true, &busy);
}

const struct rtshim_client_v1 *rtshim_client_get(int timeout_ms)
{
	bool busy = false;
	const struct rtshim_client_v1 *c = client_wait(timeout_ms, false, &busy);
	if (!c && busy)
		rtshim_log_once(RTSHIM_LOG_WARN, 0,
				"the daemon client is not loaded after %d ms (the dynamic loader is busy: a library constructor waiting for this thread?): this request is left as it is, later ones are served",
				timeout_ms);
	return c;
}
