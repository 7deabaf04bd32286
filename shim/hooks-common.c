/* hooks-common.c — what every interposer shares: the real functions, the re-entrancy guard,
 * configuration, the per-thread record, and the decision core (rtshim_request). */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "client-loader.h"
#include "hooks.h"
#include "log.h"
#include "prio.h"
#include "procfs.h"
#include "rttime.h"
#include "runaway.h"
#include "budget.h"

/* ---- real functions ------------------------------------------------------------------------ */

static void *resolve(const char *name, const char *version)
{
	void *next = dlsym(RTLD_NEXT, name), *f = NULL;
	if (version)
		f = dlvsym(RTLD_NEXT, name, version);
	if (!f)
		return next;
	/* dlvsym skips an unversioned definition: an interposer loaded after the shim (another
	 * preload library, a sanitizer runtime) would be bypassed.  Take the next definition when it
	 * lives in another object than the versioned one. */
	Dl_info a, b;
	if (next && next != f && dladdr(next, &a) && dladdr(f, &b) && a.dli_fbase != b.dli_fbase)
		return next;
	return f;
}

/* Fallbacks if the dynamic loader cannot find the next definition: the raw system calls for
 * the sched_* family, ENOSYS for the pthread family (never seen with glibc). */
static int fb_sched_setscheduler(pid_t pid, int policy, const struct sched_param *p)
{
	return (int)syscall(SYS_sched_setscheduler, pid, policy, p);
}
static int fb_sched_setparam(pid_t pid, const struct sched_param *p)
{
	return (int)syscall(SYS_sched_setparam, pid, p);
}
static int fb_sched_getscheduler(pid_t pid)
{
	return (int)syscall(SYS_sched_getscheduler, pid);
}
static int fb_pthread_setschedparam(pthread_t t, int policy, const struct sched_param *p)
{
	(void)t, (void)policy, (void)p;
	return ENOSYS;
}
static int fb_pthread_setschedprio(pthread_t t, int prio)
{
	(void)t, (void)prio;
	return ENOSYS;
}
static int fb_pthread_getschedparam(pthread_t t, int *policy, struct sched_param *p)
{
	(void)t, (void)policy, (void)p;
	return ENOSYS;
}
static int fb_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*s)(void *), void *arg)
{
	(void)t, (void)a, (void)s, (void)arg;
	return EAGAIN;
}

#define DEFINE_REAL(name, version)                                                   \
	name##_fn *rtshim_real_##name(void)                                          \
	{                                                                            \
		static name##_fn *ptr;                                               \
		name##_fn *f = __atomic_load_n(&ptr, __ATOMIC_ACQUIRE);              \
		if (!f) {                                                            \
			f = (name##_fn *)resolve(#name, version);                    \
			if (!f)                                                      \
				f = fb_##name;                                       \
			__atomic_store_n(&ptr, f, __ATOMIC_RELEASE);                 \
		}                                                                    \
		return f;                                                            \
	}

DEFINE_REAL(sched_setscheduler, NULL)
DEFINE_REAL(sched_setparam, NULL)
DEFINE_REAL(sched_getscheduler, NULL)
DEFINE_REAL(pthread_setschedparam, NULL)
DEFINE_REAL(pthread_setschedprio, NULL)
DEFINE_REAL(pthread_getschedparam, NULL)
/* pthread_create has several versions (GLIBC_2.2.5 / GLIBC_2.34 on x86_64, GLIBC_2.0 /
 * GLIBC_2.1 / GLIBC_2.34 on i386): take the current one explicitly. */
DEFINE_REAL(pthread_create, "GLIBC_2.34")

/* Every real function, resolved now: a request must never need the dynamic loader's lock
 * (dlsym takes it), which a library constructor run by dlopen holds while it waits for the
 * requesting thread.  From the shim's constructor; lazy resolution stays the fallback for hooks
 * called before it. */
static void resolve_all(void)
{
	rtshim_real_sched_setscheduler();
	rtshim_real_sched_setparam();
	rtshim_real_sched_getscheduler();
	rtshim_real_pthread_setschedparam();
	rtshim_real_pthread_setschedprio();
	rtshim_real_pthread_getschedparam();
	rtshim_real_pthread_create();
	rtshim_resolve_nice();
}

/* A thread the shim waits for must never need the dynamic loader's lock: a library constructor
 * that creates an RT thread (libffado's, when jackd scans its drivers) holds that lock while
 * pthread_create waits.  So the creator loads the client the new thread's request uses, on its
 * own thread: the loader's lock is recursive for the thread that holds it. */
void rtshim_prepare_for_new_thread(int prio)
{
	struct rlimit rl;
	resolve_all();
	/* the client only where the direct call is bound to fail: root's programs never load it */
	if (geteuid() != 0 && (getrlimit(RLIMIT_RTPRIO, &rl) || rl.rlim_cur < (rlim_t)prio))
		rtshim_client_load_here(rtshim_cfg()->timeout_ms);
}

/* ---- guard, secure mode, configuration ----------------------------------------------------- */

/* initial-exec: the shim is loaded at start-up (LD_PRELOAD); no __tls_get_addr, no libc-only
 * violation (NEEDED ld-linux), and cheap in every hook. */
#define RTSHIM_TLS __thread __attribute__((tls_model("initial-exec")))

static RTSHIM_TLS int in_shim;
static int secure_mode = -1;

static bool inert(void)
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
	if (inert() || in_shim)
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

static void cfg_warn(void *ctx, const struct rtshim_config_var *var, const char *value)
{
	const struct rtshim_config *c = ctx;
	char shown[48];
	size_t i;
	if (c->log_level < RTSHIM_LOG_WARN)
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
}

const struct rtshim_config *rtshim_cfg(void)
{
	pthread_once(&cfg_once, cfg_load);
	return &cfg;
}

/* ---- per-thread records -------------------------------------------------------------------- */

static RTSHIM_TLS struct rtshim_thread self_rec;
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
		/* a thread the shim did not start, or a child forked by other means than fork() */
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

struct rtshim_thread *rtshim_self(void)
{
	return self_at(gettid());
}

void rtshim_thread_started(void)
{
	pthread_once(&end_key_once, make_end_key);
	if (!end_key_ok)
		return; /* cannot unrecord it at its end: do not record it (requests about it fail open) */
	self_rec.handle = pthread_self();
	self_rec.tid = gettid();
	rtshim_registry_add(&self_rec);
	pthread_setspecific(end_key, &self_rec);
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
	rtshim_budget_reset();
	rtshim_registry_atfork_child(&self_rec, gettid());
	rtshim_runaway_atfork_release();
}

/* Nothing significant: resolve the real functions, record the main thread (so other threads can
 * name it) and arrange for fork.  Hooks work before this runs (a library's constructor may
 * call them first). */
__attribute__((constructor)) static void rtshim_init(void)
{
	resolve_all(); /* inert too: its hooks call the real functions */
	if (inert())
		return;
	rtshim_client_loader_init(rtshim_real_pthread_create());
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
	if (gettid() == getpid() && !self_rec.linked) {
		self_rec.handle = pthread_self();
		self_rec.tid = gettid();
		rtshim_registry_add(&self_rec);
	}
}

/* ---- the decision core --------------------------------------------------------------------- */

static bool has_policy(const struct rtshim_req *r)
{
	return r->kind == RTSHIM_REQ_SCHED_SETSCHEDULER || r->kind == RTSHIM_REQ_PTHREAD_SETSCHEDPARAM;
}

static bool is_rt(int policy)
{
	policy &= ~SCHED_RESET_ON_FORK;
	return policy == SCHED_FIFO || policy == SCHED_RR;
}

static int call_real(const struct rtshim_req *r, int policy, const struct sched_param *param)
{
	switch (r->kind) {
	case RTSHIM_REQ_SCHED_SETSCHEDULER:
		return rtshim_real_sched_setscheduler()(r->pid, policy, param) == -1 ? errno : 0;
	case RTSHIM_REQ_SCHED_SETPARAM:
		return rtshim_real_sched_setparam()(r->pid, param) == -1 ? errno : 0;
	case RTSHIM_REQ_PTHREAD_SETSCHEDPARAM:
		return rtshim_real_pthread_setschedparam()(r->thread, policy, param);
	case RTSHIM_REQ_PTHREAD_SETSCHEDPRIO:
		return rtshim_real_pthread_setschedprio()(r->thread, param->sched_priority);
	}
	return EINVAL;
}

enum where { T_UNKNOWN, T_SELF, T_OWN, T_OTHER_PROC };

struct target {
	enum where where;
	pid_t tid;
	pid_t tgid;    /* T_OTHER_PROC */
	bool in_registry;
};

/* Which thread a request is about.  cheap: do not look at /proc (bookkeeping after success). */
static void resolve_target(const struct rtshim_req *r, bool cheap, struct target *t)
{
	memset(t, 0, sizeof *t);
	if (r->kind == RTSHIM_REQ_PTHREAD_SETSCHEDPARAM || r->kind == RTSHIM_REQ_PTHREAD_SETSCHEDPRIO) {
		if (pthread_equal(r->thread, pthread_self())) {
			t->where = T_SELF;
			t->tid = rtshim_self()->tid;
		} else if (rtshim_registry_by_handle(r->thread, &t->tid, NULL) == 0) {
			t->where = T_OWN;
			t->in_registry = true;
		}
		return;
	}
	/* pid 0 is the caller: the thread's record knows its TID (fork() renews it in the child), so
	 * the privileged path (cheap: bookkeeping after success) costs no system call beyond the
	 * real one.  A grant still asks the kernel. */
	if (cheap && r->pid == 0 && self_rec.tid) {
		t->where = T_SELF;
		t->tid = self_rec.tid;
		return;
	}
	pid_t me = gettid();
	if (r->pid == 0 || r->pid == me) {
		t->where = T_SELF;
		t->tid = self_at(me)->tid;
		return;
	}
	t->tid = r->pid;
	if (rtshim_registry_by_tid(r->pid, NULL) == 0) {
		t->where = T_OWN;
		t->in_registry = true;
		return;
	}
	if (cheap)
		return;
	if (rtshim_proc_is_own_thread(r->pid)) {
		t->where = T_OWN;
		return;
	}
	uid_t owner;
	if (rtshim_proc_tgid(r->pid, &t->tgid) == 0 && rtshim_proc_owner(t->tgid, &owner) == 0 &&
	    owner == geteuid())
		t->where = T_OTHER_PROC;
}

static int target_flags(const struct rtshim_req *r, const struct target *t)
{
	int flags = 0;
	if (t->where == T_SELF)
		flags = __atomic_load_n(&self_at(t->tid)->flags, __ATOMIC_RELAXED);
	else if (t->in_registry && r->kind >= RTSHIM_REQ_PTHREAD_SETSCHEDPARAM)
		rtshim_registry_by_handle(r->thread, NULL, &flags);
	else if (t->in_registry)
		rtshim_registry_by_tid(t->tid, &flags);
	return flags;
}

static void set_shim_flag(const struct rtshim_req *r, const struct target *t, bool on)
{
	int set = on ? RTSHIM_TF_SHIM_FLAG : 0, clear = on ? 0 : RTSHIM_TF_SHIM_FLAG;
	if (t->where == T_SELF) {
		struct rtshim_thread *s = self_at(t->tid);
		int f = __atomic_load_n(&s->flags, __ATOMIC_RELAXED);
		__atomic_store_n(&s->flags, (f & ~clear) | set, __ATOMIC_RELAXED);
	} else if (t->in_registry) {
		bool by_handle = r->kind >= RTSHIM_REQ_PTHREAD_SETSCHEDPARAM;
		rtshim_registry_update(by_handle, r->thread, t->tid, set, clear);
	}
}

/* rtkit granted this thread (RTSHIM_INHERIT: the threads it creates inherit). */
static void set_rtkit_flag(const struct rtshim_req *r, const struct target *t)
{
	if (t->where == T_SELF) {
		struct rtshim_thread *s = self_at(t->tid);
		__atomic_fetch_or(&s->flags, RTSHIM_TF_RTKIT, __ATOMIC_RELAXED);
	} else if (t->in_registry) {
		bool by_handle = r->kind >= RTSHIM_REQ_PTHREAD_SETSCHEDPARAM;
		rtshim_registry_update(by_handle, r->thread, t->tid, RTSHIM_TF_RTKIT, 0);
	}
}

bool rtshim_shim_flag_by_pid(pid_t pid)
{
	int flags = 0;
	if (pid == 0 || pid == gettid())
		flags = __atomic_load_n(&rtshim_self()->flags, __ATOMIC_RELAXED);
	else
		rtshim_registry_by_tid(pid, &flags);
	return flags & RTSHIM_TF_SHIM_FLAG;
}

/* Ask the kernel what the thread has now. */
static int kernel_sched(pid_t tid, int *policy, int *prio)
{
	struct sched_param p;
	int pol = rtshim_real_sched_getscheduler()(tid);
	if (pol < 0 || sched_getparam(tid, &p) < 0)
		return -1;
	*policy = pol;
	*prio = p.sched_priority;
	return 0;
}

/* Keep glibc's cached view of a pthread (pthread_getattr_np, priority protection) in step with
 * what the kernel now says; the same values, so an unprivileged caller may set them. */
static void sync_glibc(const struct rtshim_req *r, pid_t tid)
{
	int pol, prio;
	if (r->kind < RTSHIM_REQ_PTHREAD_SETSCHEDPARAM || kernel_sched(tid, &pol, &prio) < 0)
		return;
	struct sched_param p = { .sched_priority = prio };
	rtshim_real_pthread_setschedparam()(r->thread, pol, &p);
}

static const char *consequence(const struct rtshim_req *r)
{
	if (!r->creating)
		return "the call fails with EPERM as it would without rtshim";
	return rtshim_cfg()->strict ? "pthread_create fails with EPERM (RTSHIM_STRICT=1)"
				    : "the thread runs SCHED_OTHER";
}

/* The grant path: EPERM on a valid RT request about a thread of ours (or of another process of
 * this user). */
static int grant(const struct rtshim_req *r, const struct target *t, int want, int prio,
		 bool program_flag, int cur_policy, int cur_prio)
{
	const struct rtshim_config *c = rtshim_cfg();
	const struct rtshim_client_v1 *client = rtshim_client_get(c->timeout_ms);
	if (!client)
		return EPERM; /* logged once by the loader */

	struct rtkit_limits lim;
	int e = client->get_limits(&lim);
	if (e < 0) {
		rtshim_log_once(RTSHIM_LOG_WARN, e, "cannot reach rtkit (%s): %s",
				client->strerror ? client->strerror(e) : rtshim_errno_name(e),
				consequence(r));
		return EPERM;
	}

	struct rtshim_prio_map map = {
		.mode = c->prio_map, .max_prio = lim.max_realtime_priority, .top = c->prio_top,
	};
	bool changed = false;
	/* an inherited priority is the creator's, already in rtkit's range: not mapped twice */
	int mapped = r->premapped ? rtshim_prio_map(&(struct rtshim_prio_map){ .max_prio = map.max_prio }, prio, &changed)
				  : rtshim_prio_map(&map, prio, &changed);
	if (mapped < 0) {
		rtshim_log_once(RTSHIM_LOG_WARN, lim.max_realtime_priority,
				"rtkit allows no realtime priority (MaxRealtimePriority %d): %s",
				(int)lim.max_realtime_priority, consequence(r));
		return EPERM;
	}

	/* Already RT at the mapped priority (a FIFO request on an RR-granted thread included):
	 * rtkit's per-user budget is shared, do not spend it. */
	if (is_rt(cur_policy) && cur_prio == mapped) {
		set_shim_flag(r, t, (cur_policy & SCHED_RESET_ON_FORK) && !program_flag);
		rtshim_log(RTSHIM_LOG_INFO, "thread %d: %s/%d requested → already %s/%d, rtkit not asked",
			   (int)t->tid, rtshim_policy_name(want), prio, rtshim_policy_name(cur_policy),
			   cur_prio);
		return 0;
	}
	/* RT already, asked lower: the kernel allows lowering within the granted policy. */
	if (is_rt(cur_policy) && mapped < cur_prio) {
		struct sched_param p = { .sched_priority = mapped };
		int pol = (cur_policy & ~SCHED_RESET_ON_FORK) | SCHED_RESET_ON_FORK;
		if (rtshim_real_sched_setscheduler()(t->tid, pol, &p) == 0) {
			set_shim_flag(r, t, !program_flag);
			sync_glibc(r, t->tid);
			rtshim_log(RTSHIM_LOG_INFO, "thread %d: %s/%d requested → %s/%d (lowered within the grant), rtkit not asked",
				   (int)t->tid, rtshim_policy_name(want), prio, rtshim_policy_name(pol), mapped);
			return 0;
		}
	}

	/* RTSHIM_NICE_FALLBACK=always: a nice level instead, realtime is never asked for. */
	pid_t nice_pid = t->where == T_OTHER_PROC ? t->tgid : 0;
	if (c->nice_fallback == RTSHIM_NICE_ALWAYS) {
		rtshim_nice_fallback(client, &lim, nice_pid, t->tid);
		return EPERM;
	}

	/* rtkit refused this kind of request a moment ago: do not spend the budget again yet. */
	int kind = t->where == T_OTHER_PROC ? RTSHIM_BUDGET_OTHER
		   : is_rt(cur_policy)        ? RTSHIM_BUDGET_RAISE
					      : RTSHIM_BUDGET_OWN;
	int64_t wait_ms = 0;
	int held = rtshim_budget_check(kind, &wait_ms);
	const char *held_why = held < 0 && client->strerror ? client->strerror(held) : rtshim_errno_name(held);
	if (!held && kind == RTSHIM_BUDGET_RAISE) {
		held = rtshim_budget_raise_check(t->tid, mapped, &wait_ms);
		held_why = "the same raise was granted a moment ago: the priority flaps";
	}
	if (held < 0) {
		rtshim_log(RTSHIM_LOG_INFO, "thread %d: %s/%d requested → not sent to rtkit (%s), next try in %lld ms",
			   (int)t->tid, rtshim_policy_name(want), prio, held_why ? held_why : "?",
			   (long long)wait_ms);
		rtshim_nice_fallback(client, &lim, nice_pid, t->tid);
		return EPERM;
	}

	/* RLIMIT_RTTIME: hard limit set and <= RTTimeUSecMax, never raised, never 0. */
	pid_t lim_pid = t->where == T_OTHER_PROC ? t->tgid : 0;
	struct rlimit old, now;
	if (prlimit(lim_pid, RLIMIT_RTTIME, NULL, &old) < 0) {
		rtshim_log_once(RTSHIM_LOG_WARN, errno, "cannot read RLIMIT_RTTIME of process %d (%s): %s",
				(int)(lim_pid ? lim_pid : getpid()), rtshim_errno_name(errno), consequence(r));
		return EPERM;
	}
	now = old;
	int v = rtshim_rttime_plan(old.rlim_cur, old.rlim_max, c->rttime_us, lim.rttime_usec_max,
				   &now.rlim_cur, &now.rlim_max);
	if (v < 0) {
		rtshim_log_once(RTSHIM_LOG_WARN, 0,
				"RLIMIT_RTTIME of process %d is 0: a realtime thread would be killed at once; %s",
				(int)(lim_pid ? lim_pid : getpid()), consequence(r));
		return EPERM;
	}
	/* The runaway guard (this process only: the handler lives here): soft limit below the
	 * hard one, once the SIGXCPU handler is in place. */
	if (!lim_pid && c->runaway == RTSHIM_RUNAWAY_DEMOTE && now.rlim_max != RLIM_INFINITY) {
		rlim_t gs = rtshim_runaway_soft(now.rlim_cur, now.rlim_max);
		if (rtshim_runaway_arm(gs) == 0 && gs < now.rlim_cur) {
			now.rlim_cur = gs;
			v = RTSHIM_RTTIME_LOWER;
		}
	}
	if (v == RTSHIM_RTTIME_LOWER && prlimit(lim_pid, RLIMIT_RTTIME, &now, NULL) < 0) {
		rtshim_log_once(RTSHIM_LOG_WARN, errno, "cannot set RLIMIT_RTTIME of process %d (%s): %s",
				(int)(lim_pid ? lim_pid : getpid()), rtshim_errno_name(errno), consequence(r));
		return EPERM;
	}

	e = client->make_realtime(lim_pid, t->tid, mapped);
	rtshim_budget_record(kind, e);
	if (e < 0) {
		const char *why = client->strerror ? client->strerror(e) : rtshim_errno_name(e);
		rtshim_log_once(RTSHIM_LOG_WARN, e, "rtkit did not grant realtime (%s/%d asked, %d sent): %s; %s",
				rtshim_policy_name(want), prio, mapped, why ? why : "?", consequence(r));
		rtshim_log(RTSHIM_LOG_INFO, "thread %d: %s/%d requested → rtkit refused: %s",
			   (int)t->tid, rtshim_policy_name(want), prio, why ? why : "?");
		if (e == -EPERM || e == -EBUSY) /* a refusal, not a missing daemon */
			rtshim_nice_fallback(client, &lim, nice_pid, t->tid);
		return EPERM;
	}

	if (kind == RTSHIM_BUDGET_RAISE)
		rtshim_budget_raise_granted(t->tid, mapped);
	set_shim_flag(r, t, !program_flag);
	set_rtkit_flag(r, t);
	sync_glibc(r, t->tid);
	int gpol = SCHED_RR, gprio = mapped;
	kernel_sched(t->tid, &gpol, &gprio);
	if (rtshim_log_enabled(RTSHIM_LOG_INFO)) {
		char rt[64];
		if (now.rlim_max == RLIM_INFINITY)
			rtshim_format(rt, sizeof rt, "unlimited");
		else if (now.rlim_cur == RLIM_INFINITY)
			rtshim_format(rt, sizeof rt, "unlimited/%llu", (unsigned long long)now.rlim_max);
		else
			rtshim_format(rt, sizeof rt, "%llu/%llu", (unsigned long long)now.rlim_cur,
				      (unsigned long long)now.rlim_max);
		if (lim_pid)
			rtshim_log(RTSHIM_LOG_INFO,
				   "process %d thread %d: %s/%d requested → rtkit %s/%d%s, RLIMIT_RTTIME %s",
				   (int)lim_pid, (int)t->tid, rtshim_policy_name(want), prio,
				   rtshim_policy_name(gpol), gprio, !changed ? "" : map.mode == RTSHIM_PRIO_CLAMP || r->premapped ? " (clamped)" : " (mapped)", rt);
		else
			rtshim_log(RTSHIM_LOG_INFO, "thread %d: %s/%d requested → rtkit %s/%d%s, RLIMIT_RTTIME %s",
				   (int)t->tid, rtshim_policy_name(want), prio, rtshim_policy_name(gpol),
				   gprio, !changed ? "" : map.mode == RTSHIM_PRIO_CLAMP || r->premapped ? " (clamped)" : " (mapped)", rt);
	}
	return 0;
}

static int eperm_path(const struct rtshim_req *r, const struct target *tp, int asked, int sent);

int rtshim_request_core(const struct rtshim_req *r)
{
	const struct rtshim_config *c = rtshim_cfg();
	int asked = has_policy(r) ? r->policy : 0;
	int sent = asked;
	bool added = false;
	struct target t;

	/* 1. The privileged path: what was asked, with SCHED_RESET_ON_FORK for RT policies. */
	if (has_policy(r) && is_rt(asked)) {
		int base = asked & ~SCHED_RESET_ON_FORK;
		if (c->policy == RTSHIM_POLICY_RR)
			base = SCHED_RR;
		else if (c->policy == RTSHIM_POLICY_FIFO)
			base = SCHED_FIFO;
		sent = base | (asked & SCHED_RESET_ON_FORK);
		if (c->reset_on_fork && !(asked & SCHED_RESET_ON_FORK)) {
			sent |= SCHED_RESET_ON_FORK;
			added = true;
		}
	}
	int err = call_real(r, sent, r->param);
	if (!err) {
		if (has_policy(r)) {
			resolve_target(r, true, &t);
			set_shim_flag(r, &t, added);
			if (rtshim_log_enabled(RTSHIM_LOG_INFO) && is_rt(asked))
				rtshim_log(RTSHIM_LOG_INFO, "thread %d: %s/%d requested → granted directly as %s/%d%s",
					   (int)(t.tid ? t.tid : r->pid), rtshim_policy_name(asked),
					   r->param->sched_priority, rtshim_policy_name(sent),
					   r->param->sched_priority, added ? " with SCHED_RESET_ON_FORK" : "");
		}
		return 0;
	}
	/* Invalid arguments, no such thread, ...: exactly the real call's error. */
	if (err != EPERM)
		return err;

	/* 2. EPERM: about which thread?  A thread asking for itself (JACK's AcquireSelfRealTime)
	 * marks its request in flight, before the slow part (loading the client, rtkit's round
	 * trip): a reader of its policy in another thread (jconvolver right after jack_activate)
	 * waits for the outcome instead of reading the SCHED_OTHER of the moment before. */
	resolve_target(r, false, &t);
	if (t.where != T_SELF)
		return eperm_path(r, &t, asked, sent);
	struct rtshim_thread *self = self_at(t.tid);
	rtshim_registry_pending_begin(self);
	err = eperm_path(r, &t, asked, sent);
	rtshim_registry_pending_end(self);
	return err;
}

/* Steps 2 to 4 for a valid request the kernel refused with EPERM, about target t. */
static int eperm_path(const struct rtshim_req *r, const struct target *tp, int asked, int sent)
{
	struct target t = *tp;
	if (t.where == T_UNKNOWN) {
		rtshim_log(RTSHIM_LOG_DEBUG, "EPERM for a thread that is not this user's or not known: left as is");
		return EPERM;
	}
	int cur, cur_prio;
	if (kernel_sched(t.tid, &cur, &cur_prio) < 0)
		return EPERM;

	/* 3. A thread carrying SCHED_RESET_ON_FORK: the kernel wants the flag kept (drops included). */
	if (has_policy(r) && !(sent & SCHED_RESET_ON_FORK) && (cur & SCHED_RESET_ON_FORK)) {
		int e2 = call_real(r, sent | SCHED_RESET_ON_FORK, r->param);
		if (!e2) {
			set_shim_flag(r, &t, !(asked & SCHED_RESET_ON_FORK));
			rtshim_log(RTSHIM_LOG_INFO, "thread %d: %s/%d requested → done with SCHED_RESET_ON_FORK kept",
				   (int)t.tid, rtshim_policy_name(asked), r->param->sched_priority);
			return 0;
		}
		sent |= SCHED_RESET_ON_FORK;
	}

	/* 4. Only a valid RT request goes to rtkit. */
	int want, prio = r->param->sched_priority;
	bool program_flag;
	if (has_policy(r)) {
		if (!is_rt(asked))
			return EPERM;
		want = asked & ~SCHED_RESET_ON_FORK;
		program_flag = asked & SCHED_RESET_ON_FORK;
	} else {
		if (!is_rt(cur))
			return EPERM;
		want = cur & ~SCHED_RESET_ON_FORK;
		program_flag = (cur & SCHED_RESET_ON_FORK) && !(target_flags(r, &t) & RTSHIM_TF_SHIM_FLAG);
	}
	return grant(r, &t, want, prio, program_flag, cur, cur_prio);
}
