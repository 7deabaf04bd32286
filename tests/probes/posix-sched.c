/* posix-sched — the project's own conformance cases for every scheduling interface the shim
 * interposes, written from POSIX (sched_setscheduler, sched_setparam, sched_getscheduler,
 * sched_getparam, pthread_setschedparam, pthread_getschedparam, pthread_setschedprio,
 * pthread_create's scheduling attributes, setpriority) and Linux (sched_setattr, sched_getattr,
 * their syscall() forms).  One line per case, so that runs as root, as a user without the shim,
 * with LD_PRELOAD and under rtrun can be diffed (tests/bats/posix-sched.bats):
 *
 *	CASE | ret=R errno=E | read=POLICY/PRIO | promise=kept|broken|- | kernel=POLICY/PRIO
 *
 * ret and errno: the call's (for a pthread_* call its returned error as errno); read: what the
 * program's readers say about the thread afterwards (sched_getscheduler + sched_getparam,
 * pthread_getschedparam, the syscall() forms, sched_getattr), or all of them where they
 * disagree; promise: after a success, whether the readers report what the call set (POSIX:
 * a successful call sets the policy and priority it names); kernel: the kernel's own view, for
 * a person (never compared).  Every case runs in a thread of its own, created SCHED_OTHER.
 * Arguments: case names to run (prefix match), default all.  PROBE_RTKIT_MAX: rtkit's
 * MaxRealtimePriority (default 20). */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "probe.h"

static int rtkit_max = 20;
static char **wanted;

/* ---- what the readers say ---------------------------------------------------------------- */

static void pol_prio(char *buf, size_t n, int policy, int prio)
{
	if (policy < 0)
		snprintf(buf, n, "ERR/%d", prio);
	else
		snprintf(buf, n, "%s/%d", probe_policy(policy), prio);
}

/* Every reader about thread `t` (`tid`; 0 = the caller) agrees on policy and prio: 1, else 0 with
 * what each said in `buf`. */
static int readers(pthread_t t, pid_t tid, int *policy, int *prio, char *buf, size_t n)
{
	char a[48], b[48], c[48], d[48];
	struct sched_param sp = { .sched_priority = -1 };
	int p1 = sched_getscheduler(tid);
	sched_getparam(tid, &sp);
	pol_prio(a, sizeof a, p1, sp.sched_priority);
	int p2 = -1;
	struct sched_param sp2 = { .sched_priority = -1 };
	if (pthread_getschedparam(t, &p2, &sp2) != 0)
		p2 = -1;
	pol_prio(b, sizeof b, p2, sp2.sched_priority);
	struct sched_param sp3 = { .sched_priority = -1 };
	int p3 = (int)syscall(SYS_sched_getscheduler, tid);
	syscall(SYS_sched_getparam, tid, &sp3);
	pol_prio(c, sizeof c, p3, sp3.sched_priority);
	struct probe_sched_attr at = { 0 };
	int p4 = -1;
	if (syscall(SYS_sched_getattr, tid, &at, sizeof at, 0) == 0)
		p4 = (int)at.policy | ((at.flags & 1) ? SCHED_RESET_ON_FORK : 0);
	pol_prio(d, sizeof d, p4, (int)at.priority);
	*policy = p1;
	*prio = sp.sched_priority;
	if (!strcmp(a, b) && !strcmp(a, c) && !strcmp(a, d)) {
		snprintf(buf, n, "%s", a);
		return 1;
	}
	snprintf(buf, n, "DISAGREE(sched=%s,pthread=%s,syscall=%s,attr=%s)", a, b, c, d);
	return 0;
}

/* One line: the call's outcome, the readers, whether they say `want_policy`/`want_prio` (the
 * promise of the last success; want_policy < 0: none to check) when `check`. */
static void report(const char *name, int ret, int err, int want_policy, int want_prio, bool check)
{
	char r[256], k[48];
	int policy, prio;
	int agree = readers(pthread_self(), 0, &policy, &prio, r, sizeof r);
	pid_t me = probe_gettid();
	pol_prio(k, sizeof k, probe_kernel_policy(me), probe_kernel_prio(me));
	const char *promise = "-";
	if (check && want_policy >= 0)
		promise = agree && policy == want_policy && prio == want_prio ? "kept" : "broken";
	probe_say("%s | ret=%d errno=%s | read=%s | promise=%s | kernel=%s", name, ret,
		  probe_errname(err), r, promise, k);
}

/* ... the promise of this call, when it succeeded */
static void say(const char *name, int ret, int err, int want_policy, int want_prio)
{
	report(name, ret, err, want_policy, want_prio, ret == 0);
}

/* ---- the cases --------------------------------------------------------------------------- */

static int setscheduler(int policy, int prio)
{
	struct sched_param p = { .sched_priority = prio };
	return sched_setscheduler(0, policy, &p);
}

/* sched_setscheduler(0, policy, prio), then the readers. */
static void c_setscheduler(const char *name, int policy, int prio)
{
	errno = 0;
	int r = setscheduler(policy, prio);
	say(name, r, r ? errno : 0, policy, prio);
}

static void c_pthread_setschedparam(const char *name, int policy, int prio)
{
	struct sched_param p = { .sched_priority = prio };
	int e = pthread_setschedparam(pthread_self(), policy, &p);
	say(name, e ? -1 : 0, e, policy, prio);
}

/* policy at `first`, then sched_setparam(0, second): the policy stays, the priority changes */
static void c_setparam(const char *name, int policy, int first, int second)
{
	struct sched_param p = { .sched_priority = second };
	if (setscheduler(policy, first) != 0) {
		say(name, -1, errno, -1, 0);
		return;
	}
	errno = 0;
	int r = sched_setparam(0, &p);
	say(name, r, r ? errno : 0, policy, second);
}

static void c_setschedprio(const char *name, int policy, int first, int second)
{
	if (setscheduler(policy, first) != 0) {
		say(name, -1, errno, -1, 0);
		return;
	}
	int e = pthread_setschedprio(pthread_self(), second);
	say(name, e ? -1 : 0, e, policy, second);
}

/* one policy, then another at the same priority */
static void c_repolicy(const char *name, int first, int second, int prio)
{
	if (setscheduler(first, prio) != 0) {
		say(name, -1, errno, -1, 0);
		return;
	}
	errno = 0;
	int r = setscheduler(second, prio);
	say(name, r, r ? errno : 0, second, prio);
}

/* a program that reads its priority and asks for one less */
static void c_derived(const char *name, int policy, int prio)
{
	struct sched_param p;
	if (setscheduler(policy, prio) != 0 || sched_getparam(0, &p) != 0) {
		say(name, -1, errno, -1, 0);
		return;
	}
	p.sched_priority -= 1;
	int want = p.sched_priority;
	errno = 0;
	int r = sched_setparam(0, &p);
	say(name, r, r ? errno : 0, policy, want);
}

/* a call that fails (EINVAL) sets nothing: the readers still say what the last success set */
static void c_failed_after(const char *name, int policy, int prio)
{
	struct sched_param p = { .sched_priority = 100 };
	if (setscheduler(policy, prio) != 0) {
		say(name, -1, errno, -1, 0);
		return;
	}
	errno = 0;
	int r = sched_setscheduler(0, SCHED_FIFO, &p);
	report(name, r, r ? errno : 0, policy, prio, true);
}

static void c_drop(const char *name, int policy, int prio)
{
	if (setscheduler(policy, prio) != 0) {
		say(name, -1, errno, -1, 0);
		return;
	}
	errno = 0;
	int r = setscheduler(SCHED_OTHER, 0);
	say(name, r, r ? errno : 0, SCHED_OTHER, 0);
}

static void c_setattr(const char *name, int policy, int prio)
{
	struct probe_sched_attr a = { .size = sizeof a, .policy = (uint32_t)policy, .priority = (uint32_t)prio };
	errno = 0;
	int r = (int)syscall(SYS_sched_setattr, 0, &a, 0);
	say(name, r, r ? errno : 0, policy, prio);
}

static void c_syscall_setscheduler(const char *name, int policy, int prio)
{
	struct sched_param p = { .sched_priority = prio };
	errno = 0;
	int r = (int)syscall(SYS_sched_setscheduler, 0, policy, &p);
	say(name, r, r ? errno : 0, policy, prio);
}

/* sched_getattr, then sched_setattr of what it gave (stress-ng's schedpolicy stressor does,
 * with another field changed); `drop`: after a drop to SCHED_OTHER */
static void attr_write_back(const char *name, int policy, int prio, bool drop)
{
	struct probe_sched_attr a = { 0 };
	if (setscheduler(policy, prio) != 0 || (drop && setscheduler(SCHED_OTHER, 0) != 0) ||
	    syscall(SYS_sched_getattr, 0, &a, sizeof a, 0) != 0) {
		say(name, -1, errno, -1, 0);
		return;
	}
	a.size = sizeof a;
	errno = 0;
	int r = (int)syscall(SYS_sched_setattr, 0, &a, 0);
	say(name, r, r ? errno : 0, drop ? SCHED_OTHER : policy, drop ? 0 : prio);
}

static void c_attr_write_back(const char *name, int policy, int prio)
{
	attr_write_back(name, policy, prio, false);
}

static void c_attr_write_back_dropped(const char *name, int policy, int prio)
{
	attr_write_back(name, policy, prio, true);
}

/* a granted success leaves errno as it was */
static void c_errno_kept(const char *name, int policy, int prio)
{
	errno = ENOTCONN;
	int r = setscheduler(policy, prio);
	int after = errno;
	/* errno: ENOTCONN when the success left it alone */
	say(name, r, after, policy, prio);
}

/* ---- pthread_create ---------------------------------------------------------------------- */

struct child {
	char read[256];
	int policy, prio, agree;
	pthread_barrier_t *creator_read; /* NULL, or: stay alive until the creator has read */
};

static void *child_reads(void *p)
{
	struct child *c = p;
	c->agree = readers(pthread_self(), 0, &c->policy, &c->prio, c->read, sizeof c->read);
	if (c->creator_read)
		pthread_barrier_wait(c->creator_read);
	return NULL;
}

/* pthread_create with an explicit attribute: the new thread's readers and its creator's
 * pthread_getschedparam report the attribute (what a program that checks it compares). */
static void c_create(const char *name, int policy, int prio)
{
	pthread_attr_t a;
	struct sched_param sp = { .sched_priority = prio };
	pthread_barrier_t b;
	pthread_barrier_init(&b, NULL, 2);
	struct child c = { .read = "-", .creator_read = &b };
	pthread_attr_init(&a);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, policy);
	int ea = pthread_attr_setschedparam(&a, &sp);
	pthread_t t;
	int e = ea ? ea : pthread_create(&t, &a, child_reads, &c);
	char creator[48] = "-";
	const char *promise = "-";
	if (!e) {
		int cp = -1;
		struct sched_param csp = { .sched_priority = -1 };
		pthread_getschedparam(t, &cp, &csp);
		pthread_barrier_wait(&b);
		pthread_join(t, NULL);
		pol_prio(creator, sizeof creator, cp, csp.sched_priority);
		bool ok = c.agree && c.policy == policy && c.prio == prio && cp == policy &&
			  csp.sched_priority == prio;
		promise = ok ? "kept" : "broken";
	}
	pthread_attr_destroy(&a);
	pthread_barrier_destroy(&b);
	probe_say("%s | ret=%d errno=%s | read=%s creator=%s | promise=%s | kernel=-", name,
		  e ? -1 : 0, probe_errname(e), c.read, creator, promise);
}

/* POSIX: once a thread is created, changing its attribute object does not change the thread,
 * and the thread changing its own scheduling does not change the attribute object.  The
 * thread is created from `policy`/`prio`; the creator then sets the attribute to the other
 * policy at that policy's maximum (one below where it equals `prio`), and the thread sets
 * itself to the same (what LTP's pthread_create/3-2 does). */
struct apart {
	pthread_barrier_t step;
	char before[256], after[256]; /* the thread's readers before and after its own change */
	int newpol, newprio, err;
};

static void *apart_child(void *p)
{
	struct apart *a = p;
	int pol, prio;
	pthread_barrier_wait(&a->step); /* the creator changed the attribute */
	readers(pthread_self(), 0, &pol, &prio, a->before, sizeof a->before);
	struct sched_param sp = { .sched_priority = a->newprio };
	a->err = pthread_setschedparam(pthread_self(), a->newpol, &sp);
	readers(pthread_self(), 0, &pol, &prio, a->after, sizeof a->after);
	pthread_barrier_wait(&a->step); /* the creator reads the attribute */
	return NULL;
}

static void c_attr_apart(const char *name, int policy, int prio)
{
	struct apart a = { .before = "-", .after = "-" };
	a.newpol = policy == SCHED_RR ? SCHED_FIFO : SCHED_RR;
	a.newprio = sched_get_priority_max(a.newpol);
	if (a.newprio == prio)
		a.newprio--;
	pthread_barrier_init(&a.step, NULL, 2);
	pthread_attr_t at;
	struct sched_param sp = { .sched_priority = prio }, np = { .sched_priority = a.newprio };
	pthread_attr_init(&at);
	pthread_attr_setinheritsched(&at, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&at, policy);
	pthread_attr_setschedparam(&at, &sp);
	pthread_t t;
	int e = pthread_create(&t, &at, apart_child, &a);
	char attr[48] = "-", creator[48] = "-";
	if (!e) {
		pthread_attr_setschedpolicy(&at, a.newpol);
		pthread_attr_setschedparam(&at, &np);
		int cp = -1;
		struct sched_param csp = { .sched_priority = -1 };
		pthread_getschedparam(t, &cp, &csp);
		pol_prio(creator, sizeof creator, cp, csp.sched_priority);
		pthread_attr_setschedpolicy(&at, policy); /* back, before the thread changes */
		pthread_attr_setschedparam(&at, &sp);
		pthread_barrier_wait(&a.step);
		pthread_barrier_wait(&a.step);
		int ap = -1;
		struct sched_param asp = { .sched_priority = -1 };
		pthread_attr_getschedpolicy(&at, &ap);
		pthread_attr_getschedparam(&at, &asp);
		pol_prio(attr, sizeof attr, ap, asp.sched_priority);
		pthread_join(t, NULL);
	}
	pthread_attr_destroy(&at);
	pthread_barrier_destroy(&a.step);
	probe_say("%s | ret=%d errno=%s | read=%s creator=%s then=%s attr=%s | promise=- | kernel=-",
		  name, e ? -1 : 0, probe_errname(e ? e : a.err), a.before, creator, a.after, attr);
}

/* A creator at policy/prio creates a worker one above it (LTP's pthread_create/1-6: the
 * creator must not run while its workers spin): the readers of both (the creator's once the
 * worker has its own), and the order of the priorities the kernel gave them (above: the
 * worker's is higher, as asked). */
struct order {
	int policy, prio;
	pthread_barrier_t made; /* the creator has read both */
	char creator[256], worker[256], order[16];
	pid_t worker_tid;
	int err;
};

static void explicit_attr(pthread_attr_t *a, int policy, int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	pthread_attr_init(a);
	pthread_attr_setinheritsched(a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(a, policy);
	pthread_attr_setschedparam(a, &sp);
}

static void *order_worker(void *p)
{
	struct order *o = p;
	int pol, prio;
	readers(pthread_self(), 0, &pol, &prio, o->worker, sizeof o->worker);
	__atomic_store_n(&o->worker_tid, probe_gettid(), __ATOMIC_RELEASE);
	pthread_barrier_wait(&o->made);
	return NULL;
}

static void *order_creator(void *p)
{
	struct order *o = p;
	int pol, prio;
	pthread_attr_t a;
	explicit_attr(&a, o->policy, o->prio + 1);
	pthread_t w;
	o->err = pthread_create(&w, &a, order_worker, o);
	pthread_attr_destroy(&a);
	if (o->err)
		return NULL;
	while (!__atomic_load_n(&o->worker_tid, __ATOMIC_ACQUIRE))
		sched_yield();
	int mine = probe_kernel_prio(probe_gettid()), its = probe_kernel_prio(o->worker_tid);
	snprintf(o->order, sizeof o->order, "%s", its > mine ? "above" : its == mine ? "same" : "below");
	/* after the worker's grant: what the creator asked, however the shim placed it */
	readers(pthread_self(), 0, &pol, &prio, o->creator, sizeof o->creator);
	pthread_barrier_wait(&o->made);
	pthread_join(w, NULL);
	return NULL;
}

static void c_order(const char *name, int policy, int prio)
{
	struct order o = { .policy = policy, .prio = prio, .creator = "-", .worker = "-", .order = "-" };
	pthread_barrier_init(&o.made, NULL, 2);
	pthread_attr_t a;
	explicit_attr(&a, policy, prio);
	pthread_t c;
	int e = pthread_create(&c, &a, order_creator, &o);
	pthread_attr_destroy(&a);
	if (!e) {
		pthread_join(c, NULL);
		e = o.err;
	}
	pthread_barrier_destroy(&o.made);
	probe_say("%s | ret=%d errno=%s | read=%s worker=%s order=%s | promise=- | kernel=-", name,
		  e ? -1 : 0, probe_errname(e), o.creator, o.worker, o.order);
}

/* a thread with the default (inherited) attribute, created by a thread at policy/prio: it
 * reads as its creator does (POSIX: PTHREAD_INHERIT_SCHED) */
static void c_inherit(const char *name, int policy, int prio)
{
	if (setscheduler(policy, prio) != 0) {
		say(name, -1, errno, -1, 0);
		return;
	}
	struct child c = { .read = "-" };
	pthread_t t;
	int e = pthread_create(&t, NULL, child_reads, &c);
	if (!e)
		pthread_join(t, NULL);
	probe_say("%s | ret=%d errno=%s | read=%s | promise=- | kernel=-", name, e ? -1 : 0,
		  probe_errname(e), c.read);
}

/* fork() from a thread at policy/prio: what the child's readers say */
static void c_fork(const char *name, int policy, int prio)
{
	if (setscheduler(policy, prio) != 0) {
		say(name, -1, errno, -1, 0);
		return;
	}
	int fd[2];
	if (pipe(fd) != 0)
		return;
	pid_t pid = fork();
	if (pid == 0) {
		struct child c = { .read = "-" };
		child_reads(&c);
		(void)!write(fd[1], c.read, strlen(c.read) + 1);
		_exit(0);
	}
	close(fd[1]);
	char buf[256] = "-";
	if (pid > 0) {
		(void)!read(fd[0], buf, sizeof buf - 1);
		waitpid(pid, NULL, 0);
	}
	close(fd[0]);
	probe_say("%s | ret=%d errno=%s | read=%s | promise=- | kernel=-", name, pid > 0 ? 0 : -1,
		  probe_errname(pid > 0 ? 0 : errno), buf);
}

/* ---- invalid arguments: the errno POSIX or Linux gives ----------------------------------- */

#define NO_SUCH_PID 0x3ffffff0

static void c_invalid(const char *name, int which, int unused)
{
	(void)unused;
	struct sched_param p1 = { .sched_priority = 1 }, p0 = { .sched_priority = 0 },
			   p100 = { .sched_priority = 100 };
	struct probe_sched_attr a = { .size = sizeof a, .policy = SCHED_FIFO, .priority = 100 };
	int r = 0, e = 0;
	errno = 0;
	switch (which) {
	case 0: r = sched_setscheduler(0, 12345, &p1); break;
	case 1: r = sched_setscheduler(0, SCHED_FIFO, &p0); break;
	case 2: r = sched_setscheduler(0, SCHED_FIFO, &p100); break;
	case 3: r = sched_setscheduler(0, SCHED_OTHER, &p1); break;
	case 4: r = sched_setscheduler(0, SCHED_FIFO, NULL); break;
	case 5: r = sched_setscheduler(-1, SCHED_FIFO, &p1); break;
	case 6: r = sched_setscheduler(NO_SUCH_PID, SCHED_FIFO, &p1); break;
	case 7: r = sched_setparam(0, NULL); break;
	case 8: r = sched_setparam(-1, &p1); break;
	case 9: r = sched_setparam(0, &p100); break;
	case 10: e = pthread_setschedparam(pthread_self(), 12345, &p1); break;
	case 11: e = pthread_setschedparam(pthread_self(), SCHED_FIFO, &p100); break;
	case 12: e = pthread_setschedprio(pthread_self(), 100); break;
	case 13: r = sched_getscheduler(-1); break;
	case 14: r = sched_getparam(0, NULL); break;
	case 15: r = sched_getparam(NO_SUCH_PID, &p1); break;
	case 16: r = (int)syscall(SYS_sched_getattr, 0, &a, 1, 0); break;
	case 17: r = (int)syscall(SYS_sched_setattr, 0, &a, 0); break;
	case 18: r = (int)syscall(SYS_sched_setscheduler, 0, SCHED_FIFO, &p100); break;
	case 19: r = setpriority(PRIO_PROCESS + 99, 0, 0); break;
	case 20: r = sched_getscheduler(NO_SUCH_PID); break;
	}
	if (r < 0)
		e = errno;
	if (r > 0)
		r = 0; /* sched_getscheduler's policy */
	say(name, e ? -1 : r, e, -1, 0);
}

/* ---- the table of cases ------------------------------------------------------------------ */

struct ccase {
	char name[64];
	void (*run)(const char *, int, int);
	int policy, prio;
};

static struct ccase cases[160];
static int ncases;

static void add(void (*run)(const char *, int, int), int policy, int prio, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void add(void (*run)(const char *, int, int), int policy, int prio, const char *fmt, ...)
{
	va_list ap;
	struct ccase *c = &cases[ncases++];
	va_start(ap, fmt);
	vsnprintf(c->name, sizeof c->name, fmt, ap);
	va_end(ap);
	c->run = run;
	c->policy = policy;
	c->prio = prio;
}

static const char *pname(int policy)
{
	return policy == SCHED_FIFO ? "FIFO" : "RR";
}

/* the two-step cases take their second value in the upper half of prio */
static void r_setparam(const char *n, int pol, int pr) { c_setparam(n, pol, pr & 0xff, pr >> 8); }
static void r_setschedprio(const char *n, int pol, int pr) { c_setschedprio(n, pol, pr & 0xff, pr >> 8); }
static void r_repolicy(const char *n, int pol, int pr) { c_repolicy(n, pol & 0xff, pol >> 8, pr); }

static void build(void)
{
	static const int policies[] = { SCHED_FIFO, SCHED_RR };
	for (int i = 0; i < 2; i++) {
		int pol = policies[i], max = sched_get_priority_max(pol);
		int prios[] = { 1, rtkit_max, 50, max };
		const char *at[] = { "1", "rtkit-max", "50", "policy-max" };
		for (int j = 0; j < 4; j++) {
			add(c_setscheduler, pol, prios[j], "sched_setscheduler %s %s", pname(pol), at[j]);
			add(c_pthread_setschedparam, pol, prios[j], "pthread_setschedparam %s %s", pname(pol), at[j]);
			add(c_create, pol, prios[j], "pthread_create explicit %s %s", pname(pol), at[j]);
		}
		add(c_attr_apart, pol, 1, "attribute and thread apart after create %s 1", pname(pol));
		add(c_attr_apart, pol, max, "attribute and thread apart after create %s policy-max", pname(pol));
		add(c_order, pol, 1, "worker above its creator %s 1 and 2", pname(pol));
		add(c_order, pol, 50, "worker above its creator %s 50 and 51", pname(pol));
		add(c_order, pol, max - 1, "worker above its creator %s policy-max-1 and policy-max", pname(pol));
		add(c_syscall_setscheduler, pol, 50, "syscall sched_setscheduler %s 50", pname(pol));
		add(c_setattr, pol, 50, "syscall sched_setattr %s 50", pname(pol));
		add(r_setparam, pol, 10 | 50 << 8, "sched_setparam %s 10 then 50", pname(pol));
		add(r_setparam, pol, 50 | 5 << 8, "sched_setparam %s 50 then 5", pname(pol));
		add(r_setschedprio, pol, 1 | 99 << 8, "pthread_setschedprio %s 1 then 99", pname(pol));
		add(c_derived, pol, max, "derived %s policy-max then one less", pname(pol));
		add(c_derived, pol, 50, "derived %s 50 then one less", pname(pol));
		add(c_drop, pol, 50, "drop %s 50 to OTHER", pname(pol));
		add(c_failed_after, pol, max, "failed FIFO 100 after %s policy-max", pname(pol));
		add(c_inherit, pol, 50, "inherited from %s 50", pname(pol));
		add(c_fork, pol, 50, "fork from %s 50", pname(pol));
		add(c_errno_kept, pol, 10, "errno kept %s 10", pname(pol));
		add(c_attr_write_back, pol, max, "sched_getattr then sched_setattr back %s policy-max", pname(pol));
		add(c_attr_write_back_dropped, pol, 50, "sched_getattr then sched_setattr back %s 50 dropped to OTHER",
		    pname(pol));
	}
	add(r_repolicy, SCHED_FIFO | SCHED_RR << 8, 50, "FIFO 50 then RR 50");
	add(r_repolicy, SCHED_RR | SCHED_FIFO << 8, 50, "RR 50 then FIFO 50");
	add(c_create, SCHED_OTHER, 0, "pthread_create explicit OTHER 0");
	static const char *invalid[] = {
		"invalid sched_setscheduler policy 12345", "invalid sched_setscheduler FIFO 0",
		"invalid sched_setscheduler FIFO 100", "invalid sched_setscheduler OTHER 1",
		"invalid sched_setscheduler NULL param", "invalid sched_setscheduler pid -1",
		"invalid sched_setscheduler no such pid", "invalid sched_setparam NULL param",
		"invalid sched_setparam pid -1", "invalid sched_setparam 100",
		"invalid pthread_setschedparam policy 12345", "invalid pthread_setschedparam FIFO 100",
		"invalid pthread_setschedprio 100", "invalid sched_getscheduler pid -1",
		"invalid sched_getparam NULL param", "invalid sched_getparam no such pid",
		"invalid sched_getattr size 1", "invalid syscall sched_setattr FIFO 100",
		"invalid syscall sched_setscheduler FIFO 100", "invalid setpriority which",
		"invalid sched_getscheduler no such pid",
	};
	for (int i = 0; i < (int)(sizeof invalid / sizeof *invalid); i++)
		add(c_invalid, i, 0, "%s", invalid[i]);
}

static void *run_case(void *p)
{
	struct ccase *c = p;
	c->run(c->name, c->policy, c->prio);
	return NULL;
}

static bool is_wanted(const char *name)
{
	if (!*wanted)
		return true;
	for (char **w = wanted; *w; w++)
		if (!strncmp(name, *w, strlen(*w)))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	(void)argc;
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *m = getenv("PROBE_RTKIT_MAX");
	if (m && atoi(m) > 0)
		rtkit_max = atoi(m);
	wanted = argv + 1;
	build();
	for (int i = 0; i < ncases; i++) {
		if (!is_wanted(cases[i].name))
			continue;
		pthread_t t;
		if (pthread_create(&t, NULL, run_case, &cases[i]) != 0) {
			probe_say("%s | ret=-1 errno=%s | read=- | promise=- | kernel=-", cases[i].name,
				  "EAGAIN");
			continue;
		}
		pthread_join(t, NULL);
	}
	return 0;
}
