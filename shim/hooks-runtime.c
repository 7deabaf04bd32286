/* hooks-runtime.c — what every interposer shares: the real functions, the re-entrancy guard,
 * configuration and the per-thread records.  The request path itself is hooks-request.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "budget.h"
#include "client-loader.h"
#include "hooks.h"
#include "log.h"
#include "own-stack.h"
#include "procfs.h"
#include "raw-syscall.h"
#include "runaway.h"
#include "trace.h"

/* Every real function, resolved now: a request must never need the dynamic loader's lock
 * (dlsym takes it), which a library constructor run by dlopen holds while it waits for the
 * requesting thread.  From the shim's constructor; lazy resolution stays the fallback for hooks
 * called before it. */
static void resolve_all(void)
{
	rtshim_resolve_real();
	rtshim_resolve_nice();
	rtshim_resolve_syscall();
	rtshim_runaway_real_sigmask(); /* the guard's interposers (hooks-signal.c, -rlimit.c, -exec.c) */
	rtshim_resolve_rlimit();
	rtshim_resolve_exec();
}

/* A thread the shim waits for must never need the dynamic loader's lock: a library constructor
 * that creates an RT thread (libffado's, when jackd scans its drivers) holds that lock while
 * pthread_create waits.  So the creator loads the client the new thread's request uses, on its
 * own thread: the loader's lock is recursive for the thread that holds it. */
static int load_client_here(void *unused)
{
	(void)unused;
	rtshim_client_load_here(rtshim_cfg()->timeout_ms);
	return 0;
}

void rtshim_prepare_for_new_thread(int prio)
{
	struct rlimit rl;
	resolve_all();
	/* the client only where the direct call is bound to fail: root's programs never load it;
	 * on the shim's own stack, the program's signals held (own-stack.h: dlopen mallocs) */
	if (geteuid() != 0 && (getrlimit(RLIMIT_RTPRIO, &rl) || rl.rlim_cur < (rlim_t)prio))
		rtshim_own_stack_run(load_client_here, NULL);
}

/* ---- guard, secure mode, configuration ----------------------------------------------------- */

/* initial-exec: the shim is loaded at start-up (LD_PRELOAD); no __tls_get_addr, no libc-only
 * violation (NEEDED ld-linux), and cheap in every hook. */
#define RTSHIM_TLS __thread __attribute__((tls_model("initial-exec")))

static RTSHIM_TLS int in_shim;
static int secure_mode = -1;

/* Secure-execution (set-user-ID, file capabilities): the shim does nothing at all there. */
static bool secure_execution(void)
{
	int s = __atomic_load_n(&secure_mode, __ATOMIC_RELAXED);
	if (s < 0) {
		s = getauxval(AT_SECURE) != 0;
		__atomic_store_n(&secure_mode, s, __ATOMIC_RELAXED);
	}
	return s;
}

bool rtshim_enter(void)
{
	if (secure_execution() || in_shim)
		return false;
	in_shim = 1;
	return true;
}

void rtshim_leave(void)
{
	in_shim = 0;
}

static pthread_once_t cfg_once = PTHREAD_ONCE_INIT;
static struct rtshim_config cfg;
/* Nothing configured that a request the kernel grants acts upon: rule 1 sends it as it is, no
 * trace, no RTSHIM_ONLY, no line at "info" (the privileged path's one test, rtshim_cfg_plain). */
static bool cfg_plain;

/* True while the constructor runs: a configuration read then is read for a program that
 * started realtime (the runaway guard adopts its threads). */
static bool in_constructor;

/* A bad value is said once per process, not again by each program it execs.  A program that
 * starts realtime with SCHED_RESET_ON_FORK was made realtime by an earlier program of this same
 * process (the flag never passes to a child): by rtrun -p, which reports bad values itself
 * and removes them, or by this shim, which said them when it read them for that grant. */
static bool said_before_exec(void)
{
	long pol;

	if (!__atomic_load_n(&in_constructor, __ATOMIC_RELAXED))
		return false;
	pol = syscall(SYS_sched_getscheduler, 0);
	return pol >= 0 && (pol & SCHED_RESET_ON_FORK) && rtshim_is_rt((int)pol);
}

static void cfg_warn(void *ctx, const struct rtshim_config_var *var, const char *value)
{
	const struct rtshim_config *c = ctx;
	char shown[48];
	size_t i;
	if (c->log_level < RTSHIM_LOG_WARN || said_before_exec())
		return;
	for (i = 0; i < sizeof shown - 4 && value[i]; i++)
		shown[i] = (value[i] >= 0x20 && value[i] < 0x7f) ? value[i] : '?';
	if (value[i])
		memcpy(shown + i, "...", 4);
	else
		shown[i] = '\0';
	rtshim_log(RTSHIM_LOG_WARN, "%s=\"%s\" is not valid (expected %s): using the default %s",
		   var->name, shown, var->accepted, var->default_text);
}

static void cfg_load(void)
{
	rtshim_config_load(&cfg, secure_getenv, cfg_warn, &cfg);
	rtshim_log_set_level(cfg.log_level);
	if (cfg.trace && cfg.log_level < RTSHIM_LOG_INFO)
		rtshim_log_set_level(RTSHIM_LOG_INFO); /* the decisions go with the traces */
	cfg_plain = rtshim_direct_is_as_asked(&cfg) && !rtshim_trace_wanted_by(&cfg) &&
		    !rtshim_log_enabled(RTSHIM_LOG_INFO);
}

/* &cfg once loaded: every request reads it, pthread_once costs the privileged path 20 more
 * instructions each time */
static const struct rtshim_config *cfg_loaded;

const struct rtshim_config *rtshim_cfg(void)
{
	const struct rtshim_config *c = __atomic_load_n(&cfg_loaded, __ATOMIC_ACQUIRE);
	if (c)
		return c;
	pthread_once(&cfg_once, cfg_load);
	__atomic_store_n(&cfg_loaded, &cfg, __ATOMIC_RELEASE);
	return &cfg;
}

bool rtshim_cfg_plain(void)
{
	return __atomic_load_n(&cfg_loaded, __ATOMIC_ACQUIRE) && cfg_plain;
}

/* ---- per-thread records -------------------------------------------------------------------- */

/* This thread's record: made when the thread first needs one, never when it is created (a
 * thread that never asks for realtime costs the shim nothing).  Linked into the registry, with
 * a destructor that unlinks it when the thread ends, once other threads must see it: its
 * request goes to rtkit (readers wait for the outcome), or the shim set a flag on it. */
static RTSHIM_TLS struct rtshim_thread self_rec;
/* The process whose memory this is (set at start and in a forked child).  A vfork child, or a
 * child cloned without the atfork handlers, runs in memory that is not its own: it must leave
 * the parent's records, connection and limits alone. */
static pid_t process_pid;
/* What rtshim_self() gives such a child: a record of nobody, never linked. */
static struct rtshim_thread borrowed_rec;

bool rtshim_borrowed_memory(void)
{
	pid_t p = __atomic_load_n(&process_pid, __ATOMIC_RELAXED);
	return p && getpid() != p;
}
static pthread_key_t end_key;
static pthread_once_t end_key_once = PTHREAD_ONCE_INIT;
static bool end_key_ok;

static void thread_ends(void *p)
{
	/* cancelled or exited in the middle of a request: its readers stop waiting now */
	rtshim_registry_pending_end(p);
	rtshim_registry_remove(p);
}

static void make_end_key(void)
{
	end_key_ok = pthread_key_create(&end_key, thread_ends) == 0;
}

/* This thread's record, given its TID (a request asks gettid() once, not at every step: the
 * privileged path is measured against the bare system call). */
static struct rtshim_thread *self_at(pid_t tid)
{
	if (self_rec.tid != tid) {
		if (rtshim_borrowed_memory())
			return &borrowed_rec;
		/* first use in this thread, or a child forked by other means than fork() */
		bool linked = self_rec.linked;
		if (linked)
			rtshim_registry_remove(&self_rec);
		self_rec.handle = pthread_self();
		self_rec.tid = tid;
		__atomic_store_n(&self_rec.flags, 0, __ATOMIC_RELAXED);
		if (linked)
			rtshim_registry_add(&self_rec);
	}
	return &self_rec;
}

/* Link this thread's record (self_at done), taking over what other threads recorded about it. */
static void link_self(void)
{
	if (self_rec.linked)
		return;
	pthread_once(&end_key_once, make_end_key);
	if (!end_key_ok)
		return; /* cannot unlink it at its end: not linked (others see no flags, fail open) */
	pthread_setspecific(end_key, &self_rec);
	rtshim_registry_add(&self_rec);
}

/* Another thread set flags on this one before it had a record (a side record): take them over
 * now, so that this thread reads them from its own record from here on. */
static void take_over_side_record(void)
{
	if (!self_rec.linked && rtshim_registry_has_side_records() &&
	    rtshim_registry_by_tid(self_rec.tid, NULL) == 0)
		link_self();
}

struct rtshim_thread *rtshim_self(void)
{
	struct rtshim_thread *s = self_at(gettid());
	if (s == &self_rec)
		link_self();
	return s;
}

int rtshim_self_flags(void)
{
	if (!self_rec.linked && !rtshim_registry_has_side_records())
		return 0; /* nothing recorded about this thread (nor about any other) */
	struct rtshim_thread *s = self_at(gettid());
	if (s == &self_rec)
		take_over_side_record();
	return __atomic_load_n(&s->flags, __ATOMIC_RELAXED);
}

void rtshim_thread_abandoned(void)
{
	if (self_rec.linked) {
		pthread_setspecific(end_key, NULL);
		rtshim_registry_remove(&self_rec);
	}
}

static void atfork_prepare(void)
{
	rtshim_runaway_atfork_prepare();
	rtshim_registry_atfork_prepare();
}

static void atfork_parent(void)
{
	rtshim_registry_atfork_parent();
	rtshim_runaway_atfork_release();
}

static void atfork_child(void)
{
	__atomic_store_n(&process_pid, getpid(), __ATOMIC_RELAXED);
	rtshim_budget_reset();
	rtshim_registry_atfork_child(&self_rec, gettid());
	rtshim_runaway_atfork_release();
}

/* Nothing significant: resolve the real functions and arrange for fork (no thread is recorded:
 * other threads name one by its pthread_t, whose TID glibc knows).  Hooks work before this
 * runs (a library's constructor may call them first). */
__attribute__((constructor)) static void rtshim_init(void)
{
	rtshim_log_init();
	resolve_all(); /* in secure execution too: its hooks call the real functions */
	if (secure_execution())
		return;
	rtshim_client_loader_init(rtshim_real_pthread_create());
	/* the unwinder, while the loader's lock is free; by the variables' presence: the
	 * configuration (and its warnings) is read on the first request, as without them */
	if (getenv("RTSHIM_TRACE") || getenv("RTSHIM_ONLY"))
		rtshim_trace_init();
	__atomic_store_n(&process_pid, getpid(), __ATOMIC_RELAXED);
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
	__atomic_store_n(&in_constructor, true, __ATOMIC_RELAXED);
	rtshim_runaway_adopt(); /* started realtime (rtrun -p): the runaway guard, as after a grant */
	__atomic_store_n(&in_constructor, false, __ATOMIC_RELAXED);
}

void rtshim_thread_update(struct rtshim_thread *t, int set, int clear)
{
	if (t == &self_rec && !t->linked && (set || rtshim_registry_has_side_records()) &&
	    !rtshim_borrowed_memory()) {
		take_over_side_record();
		if (set)
			link_self(); /* other threads must see what is set on this one */
	}
	int f = __atomic_load_n(&t->flags, __ATOMIC_RELAXED);
	if (((f & ~clear) | set) != f && !rtshim_borrowed_memory())
		__atomic_store_n(&t->flags, (f & ~clear) | set, __ATOMIC_RELAXED);
}

__attribute__((no_sanitize("address", "thread"))) bool rtshim_self_maybe_changed_uninstrumented(void)
{
	if (__atomic_load_n(&self_rec.flags, __ATOMIC_RELAXED) & (RTSHIM_TF_GRANTED | RTSHIM_TF_FLAG_ADDED))
		return true;
	if (self_rec.linked || !rtshim_registry_has_side_records())
		return false;
	/* maybe in a side record another thread made: only if this thread carries the flag every
	 * record describes (a thread that has just started never does) */
	long k = syscall(SYS_sched_getscheduler, 0);
	return k >= 0 && (k & SCHED_RESET_ON_FORK);
}

bool rtshim_self_has_nothing_to_clear(int clear)
{
	if (__atomic_load_n(&self_rec.flags, __ATOMIC_RELAXED) & clear)
		return false;
	/* unlinked: a record another thread made for this one may still be taken over */
	return self_rec.linked || !rtshim_registry_has_side_records();
}

struct rtshim_thread *rtshim_self_cheap(void)
{
	return self_rec.tid ? &self_rec : self_at(gettid());
}

void rtshim_thread_update_tid(pid_t tid, int set, int clear)
{
	if (tid == self_rec.tid)
		rtshim_thread_update(&self_rec, set, clear);
	else if (!rtshim_borrowed_memory())
		rtshim_registry_update(false, (pthread_t)0, tid, set, clear);
}

int rtshim_flags_by_pid(pid_t pid)
{
	int flags = 0;
	if (pid == 0 || pid == gettid())
		flags = rtshim_self_flags();
	else
		rtshim_registry_by_tid(pid, &flags);
	return flags;
}

enum rtshim_target rtshim_target_of_tid(pid_t who, pid_t *tid, pid_t *pid)
{
	pid_t me = gettid(), tgid;
	uid_t owner;
	*pid = 0;
	*tid = who;
	if (rtshim_borrowed_memory())
		return RTSHIM_TARGET_UNKNOWN;
	if (who == 0 || who == me) {
		*tid = me;
		return RTSHIM_TARGET_SELF;
	}
	if (rtshim_registry_by_tid(who, NULL) == 0 || rtshim_proc_is_own_thread(who))
		return RTSHIM_TARGET_OWN;
	if (rtshim_proc_tgid(who, &tgid) == 0 && rtshim_proc_owner(tgid, &owner) == 0 &&
	    owner == geteuid()) {
		*pid = tgid;
		return RTSHIM_TARGET_OTHER;
	}
	return RTSHIM_TARGET_UNKNOWN;
}
