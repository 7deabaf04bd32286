/* hooks-trace.c — RTSHIM_TRACE and RTSHIM_ONLY around every request (see trace.h).
 * Costs nothing unless one of them is set: then each intercepted request takes the caller's
 * stack (libunwind, loaded with dlopen on first use) and names its frames with dladdr. */
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <pthread.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "hooks.h"
#include "log.h"
#include "trace.h"

typedef int backtrace_fn(void **buffer, int size);

static pthread_once_t unwinder_once = PTHREAD_ONCE_INIT;
static backtrace_fn *unwinder;
static const void *own_base;

static void load_unwinder(void)
{
	Dl_info self;
	if (dladdr((const void *)rtshim_trace_begin, &self))
		own_base = self.dli_fbase;
	/* RTLD_LOCAL: libunwind's own weak `backtrace` must not interpose glibc's */
	void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
	if (h)
		unwinder = (backtrace_fn *)dlsym(h, "unw_backtrace");
	if (!unwinder) {
		rtshim_log_once(RTSHIM_LOG_WARN, 0,
				"RTSHIM_TRACE/RTSHIM_ONLY: libunwind (libunwind.so.8) cannot be loaded; using glibc's backtrace()");
		unwinder = backtrace;
	} else {
		rtshim_log(RTSHIM_LOG_DEBUG, "stacks taken with libunwind");
	}
}

bool rtshim_trace_wanted(void)
{
	const struct rtshim_config *c = rtshim_cfg();
	return c->trace || c->only[0];
}

static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;
	return s ? s + 1 : (path && *path ? path : "?");
}

bool rtshim_trace_begin(struct rtshim_trace *t, const char *fmt, ...)
{
	const struct rtshim_config *c = rtshim_cfg();
	void *pcs[RTSHIM_STACK_MAX + 8];
	int n, i, shown = 0;
	bool match = false;
	va_list ap;

	t->on = c->trace;
	t->pass = false;
	va_start(ap, fmt);
	rtshim_vformat(t->what, sizeof t->what, fmt, ap);
	va_end(ap);
	if (!t->on && !c->only[0])
		return false;

	pthread_once(&unwinder_once, load_unwinder);
	n = unwinder(pcs, (int)(sizeof pcs / sizeof pcs[0]));
	if (t->on)
		rtshim_log(RTSHIM_LOG_WARN, "trace: thread %d: %s, called from:", (int)gettid(), t->what);
	for (i = 0; i < n && shown < RTSHIM_STACK_MAX; i++) {
		Dl_info info;
		/* a return address: look up the call instruction before it */
		const char *pc = (const char *)pcs[i] - (i > 0 ? 1 : 0);
		if (!dladdr(pc, &info)) {
			if (t->on)
				rtshim_log(RTSHIM_LOG_WARN, "trace:   #%d ? [%p]", shown, pcs[i]);
			shown++;
			continue;
		}
		if (info.dli_fbase == own_base)
			continue; /* the shim's own frames */
		const char *lib = base_name(info.dli_fname);
		if (c->only[0] && rtshim_only_match(c->only, lib))
			match = true;
		if (t->on) {
			if (info.dli_sname)
				rtshim_log(RTSHIM_LOG_WARN, "trace:   #%d %s %s+0x%lx [%p]", shown, lib,
					   info.dli_sname,
					   (unsigned long)(pc - (const char *)info.dli_saddr), pcs[i]);
			else
				rtshim_log(RTSHIM_LOG_WARN, "trace:   #%d %s +0x%lx [%p]", shown, lib,
					   (unsigned long)(pc - (const char *)info.dli_fbase), pcs[i]);
		}
		shown++;
	}
	t->pass = c->only[0] && !match;
	return t->pass;
}

void rtshim_trace_end(const struct rtshim_trace *t, int err)
{
	const char *name = err ? rtshim_errno_name(err) : "OK";
	if (!t->on)
		return;
	if (t->pass)
		rtshim_log(RTSHIM_LOG_WARN,
			   "trace: thread %d: %s → passed through unchanged (no frame matches RTSHIM_ONLY): %s",
			   (int)gettid(), t->what, name ? name : "error");
	else
		rtshim_log(RTSHIM_LOG_WARN, "trace: thread %d: %s → %s", (int)gettid(), t->what,
			   name ? name : "error");
}

/* ---- the sched_* / pthread_* requests ------------------------------------------------------ */

/* The program's call exactly as it made it (RTSHIM_ONLY: not ours). */
static int plain_call(const struct rtshim_req *r)
{
	switch (r->kind) {
	case RTSHIM_REQ_SCHED_SETSCHEDULER:
		return rtshim_real_sched_setscheduler()(r->pid, r->policy, r->param) == -1 ? errno : 0;
	case RTSHIM_REQ_SCHED_SETPARAM:
		return rtshim_real_sched_setparam()(r->pid, r->param) == -1 ? errno : 0;
	case RTSHIM_REQ_PTHREAD_SETSCHEDPARAM:
		return rtshim_real_pthread_setschedparam()(r->thread, r->policy, r->param);
	case RTSHIM_REQ_PTHREAD_SETSCHEDPRIO:
		return rtshim_real_pthread_setschedprio()(r->thread, r->param->sched_priority);
	}
	return EINVAL;
}

static const char *req_name(enum rtshim_req_kind kind)
{
	switch (kind) {
	case RTSHIM_REQ_SCHED_SETSCHEDULER: return "sched_setscheduler";
	case RTSHIM_REQ_SCHED_SETPARAM: return "sched_setparam";
	case RTSHIM_REQ_PTHREAD_SETSCHEDPARAM: return "pthread_setschedparam";
	case RTSHIM_REQ_PTHREAD_SETSCHEDPRIO: return "pthread_setschedprio";
	}
	return "?";
}

int rtshim_request(const struct rtshim_req *r)
{
	/* pthread_create's promotion runs in the new thread: traced by the pthread_create hook */
	if (r->creating || !rtshim_trace_wanted())
		return rtshim_request_core(r);

	struct rtshim_trace t;
	char who[32];
	bool pthread = r->kind >= RTSHIM_REQ_PTHREAD_SETSCHEDPARAM;
	if (pthread)
		rtshim_format(who, sizeof who, "%s", pthread_equal(r->thread, pthread_self()) ? "self" : "thread");
	else
		rtshim_format(who, sizeof who, "%d", (int)r->pid);
	int prio = r->param ? r->param->sched_priority : 0;
	bool pass;
	if (r->kind == RTSHIM_REQ_SCHED_SETSCHEDULER || r->kind == RTSHIM_REQ_PTHREAD_SETSCHEDPARAM)
		pass = rtshim_trace_begin(&t, "%s(%s, %s%s, %d)", req_name(r->kind), who,
					  rtshim_policy_name(r->policy),
					  (r->policy & SCHED_RESET_ON_FORK) ? "|RESET_ON_FORK" : "", prio);
	else
		pass = rtshim_trace_begin(&t, "%s(%s, %d)", req_name(r->kind), who, prio);
	int err = pass ? plain_call(r) : rtshim_request_core(r);
	rtshim_trace_end(&t, err);
	return err;
}
