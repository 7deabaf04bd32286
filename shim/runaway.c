/* runaway.c — see runaway.h.
 *
 * The kernel (kernel/time/posix-cpu-timers.c, check_thread_timers) checks RLIMIT_RTTIME for
 * the running RT task on the tick: at the hard limit SIGKILL to the process; at the soft limit
 * SIGXCPU to the process (delivered to the offending thread unless it blocks SIGXCPU) and the
 * process's soft limit raised by one second.  The handler therefore demotes the thread it runs
 * on when that thread is realtime; otherwise (the offender blocks SIGXCPU) every realtime thread
 * of the process that is running right now.  It tells RLIMIT_RTTIME's signal from others by
 * the raised soft limit, and puts the guard's soft limit back.  A SIGXCPU that demoted nothing
 * (RLIMIT_CPU, kill -XCPU) gets the program's own disposition.
 *
 * Whatever the program does with SIGXCPU, the guard stays in time:
 * - SIGXCPU blocked in every thread (the sigwait design): the signal is process-directed, so the
 *   kernel gives it to a thread waiting for it in sigwaitinfo.  Once a request armed the guard and
 *   rtkit granted it to a thread that blocks SIGXCPU (rtshim_runaway_granted), or the program
 *   started realtime (rtshim_runaway_adopted), a guard thread of the shim waits there (idle: no wake-up until a SIGXCPU), with every other
 *   signal blocked; it demotes the realtime threads that are running.  A SIGXCPU it takes that is
 *   not RLIMIT_RTTIME's is sent again to the process (kill), for the program's threads, and the
 *   guard waits until one took it.  After fork the child has no guard thread: its next grant
 *   makes one.
 * - The program sets SIGXCPU's disposition after the grant (sigaction, signal, ...: the
 *   interposers of hooks-signal.c): its disposition is recorded as the one to chain, the guard's
 *   handler stays, and the program reads back its own (rtshim_runaway_sigaction).
 * - A program that starts realtime (rtrun -p, exec from a realtime thread) arms the guard from
 *   the shim's constructor (rtshim_runaway_adopt, hooks-signal.c). */
#include "runaway.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "decide.h" /* rtshim_is_rt: pure, async-signal-safe */
#include "log.h"
#include "raw-syscall.h" /* demote: never through the shim's own syscall() */

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif
/* glibc reports the kernel's SA_RESTORER and its restorer in sigaction's old action */
#if defined(__x86_64__) || defined(__i386__)
#ifndef SA_RESTORER
#define SA_RESTORER 0x04000000
#endif
#define HAVE_SA_RESTORER 1
#endif

/* The program's own SIGXCPU disposition, as it would be without the shim: what the handler
 * chains and what sigaction reports.  A ring of slots and a generation: a writer (arm_lock held,
 * every signal blocked) fills the next slot and then publishes it; a reader (the handler: any
 * thread, any time, never a lock) copies the published one, which is rewritten only
 * PROG_SLOTS - 1 publications later (each a sigaction call of the program).  No fence: TSan
 * does not support them, and the acquire load orders the copy after the writer's. */
#define PROG_SLOTS 8
static struct sigaction prog_slot[PROG_SLOTS];
static unsigned prog_gen;
static rlim_t guard_soft;
static int armed;
static pid_t guard_tgid; /* the process whose guard thread runs (0: none; after fork: not ours) */
static pthread_mutex_t arm_lock = PTHREAD_MUTEX_INITIALIZER;

static void prog_get(struct sigaction *out)
{
	unsigned g = __atomic_load_n(&prog_gen, __ATOMIC_ACQUIRE);
	memcpy(out, &prog_slot[g % PROG_SLOTS], sizeof *out);
}

static void prog_set(const struct sigaction *sa)
{
	unsigned g = __atomic_load_n(&prog_gen, __ATOMIC_RELAXED);
	memcpy(&prog_slot[(g + 1) % PROG_SLOTS], sa, sizeof *sa);
	__atomic_store_n(&prog_gen, g + 1, __ATOMIC_RELEASE);
}

static int no_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	(void)sig, (void)act, (void)old;
	errno = ENOSYS;
	return -1;
}

sigaction_fn *rtshim_runaway_real_sigaction(void)
{
	static sigaction_fn *ptr;
	sigaction_fn *f = __atomic_load_n(&ptr, __ATOMIC_ACQUIRE);
	if (!f) {
		f = (sigaction_fn *)dlsym(RTLD_NEXT, "sigaction");
		if (!f)
			f = (sigaction_fn *)dlsym(RTLD_NEXT, "__sigaction");
		if (!f)
			f = no_sigaction; /* never seen with glibc */
		__atomic_store_n(&ptr, f, __ATOMIC_RELEASE);
	}
	return f;
}

/* Every signal blocked in this thread (saved in *old): a handler can then not run here while
 * arm_lock is held, and no writer is interrupted. */
static void block_all(sigset_t *old)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, old);
}

/* prlimit64's own layout (struct rlimit has 32-bit fields on i386); RLIM64_INFINITY = ~0 */
struct rlim64 {
	uint64_t cur, max;
};

static long sys_prlimit(const struct rlim64 *set, struct rlim64 *get)
{
	return syscall(SYS_prlimit64, 0, RLIMIT_RTTIME, set, get);
}

static int sys_policy(pid_t tid)
{
	return (int)syscall(SYS_sched_getscheduler, tid);
}

/* The system call itself: the shim's own syscall() would take it for the program's request. */
static bool demote(pid_t tid, int policy)
{
	struct sched_param p = { .sched_priority = 0 };
	int pol = SCHED_OTHER | (policy & SCHED_RESET_ON_FORK);
	if (rtshim_raw_syscall(SYS_sched_setscheduler, tid, pol, &p) == 0)
		return true;
	/* the kernel wants the flag kept when it is set; try with it */
	return rtshim_raw_syscall(SYS_sched_setscheduler, tid, SCHED_OTHER | SCHED_RESET_ON_FORK, &p) == 0;
}

/* State letter of /proc/self/task/TID/stat ('R' running), or 0. */
static char thread_state(pid_t tid)
{
	char path[64], buf[256];
	rtshim_format(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	char *rp = NULL;
	for (char *q = buf; *q; q++)
		if (*q == ')')
			rp = q;
	return rp && rp[1] == ' ' ? rp[2] : 0;
}

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* The offender blocked SIGXCPU: demote every RT thread of the process that is running now. */
static int demote_running_rt(pid_t self, pid_t *first)
{
	char buf[2048];
	int n = 0;
	int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	for (;;) {
		long got = syscall(SYS_getdents64, fd, buf, sizeof buf);
		if (got <= 0)
			break;
		for (long off = 0; off < got;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + off);
			off += d->d_reclen;
			pid_t tid = 0;
			for (const char *c = d->d_name; *c >= '0' && *c <= '9'; c++)
				tid = tid * 10 + (*c - '0');
			if (tid <= 0 || tid == self)
				continue;
			int pol = sys_policy(tid);
			if (pol < 0 || !rtshim_is_rt(pol) || thread_state(tid) != 'R')
				continue;
			if (demote(tid, pol)) {
				if (!n)
					*first = tid;
				n++;
			}
		}
	}
	close(fd);
	return n;
}

/* Is this SIGXCPU RLIMIT_RTTIME's?  Only the kernel's (SI_KERNEL: never a kill -XCPU from
 * someone) with the soft limit raised past the guard's (RLIMIT_CPU sends SI_KERNEL SIGXCPU too).
 * If so, put the guard's soft limit back (the kernel raised it by one second). */
static bool rttime_signal(const siginfo_t *si, rlim_t want)
{
	struct rlim64 cur;
	if (!si || si->si_code != SI_KERNEL || !want || want == RLIM_INFINITY ||
	    sys_prlimit(NULL, &cur) != 0 || cur.cur == RLIM64_INFINITY || cur.cur <= want)
		return false;
	if (want < cur.max) {
		cur.cur = want;
		sys_prlimit(&cur, NULL);
	}
	return true;
}

static void log_demoted(pid_t who, rlim_t want)
{
	rtshim_log_once(RTSHIM_LOG_WARN, 0,
			"thread %d ran realtime for the soft RLIMIT_RTTIME (%llu us) without blocking: demoted to SCHED_OTHER so that the kernel does not kill the process (RTSHIM_RUNAWAY=kill keeps the kernel's behaviour)",
			(int)who, (unsigned long long)want);
}

/* SA_RESETHAND of the program's handler: it is called once, then the disposition is the default
 * (the kernel's own action would have reset it).  Skipped if a writer holds the lock right now. */
static void prog_reset_once(const struct sigaction *seen)
{
	sigset_t old;
	block_all(&old);
	if (pthread_mutex_trylock(&arm_lock) == 0) {
		struct sigaction now;
		prog_get(&now);
		if (now.sa_handler == seen->sa_handler && (now.sa_flags & SA_RESETHAND)) {
			now.sa_handler = SIG_DFL;
			now.sa_flags &= ~SA_SIGINFO;
			prog_set(&now);
		}
		pthread_mutex_unlock(&arm_lock);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void on_sigxcpu(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	pid_t self = (pid_t)syscall(SYS_gettid), who = 0;
	int demoted = 0, rttime = 0;
	rlim_t want = __atomic_load_n(&guard_soft, __ATOMIC_RELAXED);

	if (rttime_signal(si, want)) {
		rttime = 1;
		int pol = sys_policy(0);
		if (pol >= 0 && rtshim_is_rt(pol)) {
			if (demote(0, pol)) {
				demoted = 1;
				who = self;
			}
		} else {
			demoted = demote_running_rt(self, &who);
		}
	}
	if (demoted)
		log_demoted(who, want);

	/* the program's own disposition */
	struct sigaction prog;
	prog_get(&prog);
	if (prog.sa_handler != SIG_DFL && prog.sa_handler != SIG_IGN && (prog.sa_flags & SA_RESETHAND))
		prog_reset_once(&prog);
	if (prog.sa_flags & SA_SIGINFO) {
		if (prog.sa_sigaction)
			prog.sa_sigaction(sig, si, uc);
	} else if (prog.sa_handler == SIG_DFL) {
		if (!rttime) {
			/* not RLIMIT_RTTIME's: the default action (terminate, core), as without us */
			struct sigaction dfl;
			memset(&dfl, 0, sizeof dfl);
			dfl.sa_handler = SIG_DFL;
			rtshim_runaway_real_sigaction()(SIGXCPU, &dfl, NULL);
			syscall(SYS_tgkill, getpid(), self, SIGXCPU);
		}
	} else if (prog.sa_handler != SIG_IGN && prog.sa_handler) {
		prog.sa_handler(sig);
	}
	errno = saved;
}

/* ---- the guard thread ------------------------------------------------------------------------ */

/* A SIGXCPU the guard thread took that is not RLIMIT_RTTIME's belongs to the program: send it to
 * the process again (the guard blocks SIGXCPU now, so a thread of the program gets it), and do
 * not wait for SIGXCPU while it is pending (only one can be: a standard signal). */
static void give_back(void)
{
	struct sigaction prog;
	prog_get(&prog);
	if (!(prog.sa_flags & SA_SIGINFO) && prog.sa_handler == SIG_IGN)
		return; /* ignored, as the kernel would */
	if (syscall(SYS_kill, getpid(), SIGXCPU) < 0)
		return;
	for (int i = 0;; i++) {
		sigset_t pend;
		if (sigpending(&pend) < 0 || !sigismember(&pend, SIGXCPU))
			return;
		struct timespec t = { i < 30 ? 0 : 1, (i < 10 ? 10 : i < 30 ? 100 : 0) * 1000 * 1000 };
		nanosleep(&t, NULL);
	}
}

static void *guard_main(void *arg)
{
	(void)arg;
	pid_t self = (pid_t)syscall(SYS_gettid);
	int pol = sys_policy(0);
	if (pol >= 0 && rtshim_is_rt(pol))
		demote(0, pol); /* created by a realtime thread: the guard itself never is */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGXCPU);
	for (;;) {
		siginfo_t si;
		if (sigwaitinfo(&set, &si) != SIGXCPU)
			continue; /* EINTR (a stop, ptrace) */
		rlim_t want = __atomic_load_n(&guard_soft, __ATOMIC_RELAXED);
		if (!rttime_signal(&si, want)) {
			give_back();
			continue;
		}
		/* the offender blocks SIGXCPU (every thread of the program does, or the kernel would
		 * have picked one of them): demote what runs realtime now */
		pid_t who = 0;
		if (demote_running_rt(self, &who))
			log_demoted(who, want);
	}
	return NULL;
}

/* The real pthread_create (hooks.h), not the shim's: the guard thread is no thread of the
 * program's.  Weak: unit tests link runaway.c without the interposers. */
typedef int pthread_create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
extern pthread_create_fn *rtshim_real_pthread_create(void) __attribute__((weak));

/* With arm_lock held and every signal blocked (the new thread inherits that mask). */
static void guard_start(void)
{
	pid_t me = getpid();
	if (guard_tgid == me)
		return;
	pthread_attr_t a;
	pthread_t t;
	if (pthread_attr_init(&a) != 0)
		return;
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&a, 64 * 1024);
	pthread_create_fn *create = rtshim_real_pthread_create ? rtshim_real_pthread_create() : pthread_create;
	int e = create(&t, &a, guard_main, NULL);
	pthread_attr_destroy(&a);
	if (e) {
		rtshim_log(RTSHIM_LOG_DEBUG, "runaway guard: no guard thread (%s): a runaway that blocks SIGXCPU is not caught",
			   rtshim_errno_name(e));
		return;
	}
	pthread_setname_np(t, "rtshim-guard");
	__atomic_store_n(&guard_tgid, me, __ATOMIC_RELAXED);
}

void rtshim_runaway_atfork_prepare(void)
{
	/* every signal is blocked around fork's handlers by no one: a handler that sets SIGXCPU's
	 * disposition while this thread holds the lock would wait for itself; fork is not
	 * async-signal-safe with atfork handlers anyway */
	pthread_mutex_lock(&arm_lock);
}

void rtshim_runaway_atfork_release(void)
{
	pthread_mutex_unlock(&arm_lock);
}

/* The guard's handler, with the program's mask and the flags that shape how a handler runs, so
 * that the program's handler, when chained, runs as it would have. */
static void mine_for(const struct sigaction *prog, struct sigaction *mine)
{
	memset(mine, 0, sizeof *mine);
	mine->sa_sigaction = on_sigxcpu;
	mine->sa_mask = prog->sa_mask;
	mine->sa_flags = SA_SIGINFO | (prog->sa_flags & (SA_RESTART | SA_ONSTACK | SA_NODEFER));
}

int rtshim_runaway_arm(rlim_t soft)
{
	struct sigaction cur, mine;
	sigset_t old;
	int r = 0;
	sigaction_fn *real = rtshim_runaway_real_sigaction();
	block_all(&old);
	pthread_mutex_lock(&arm_lock);
	__atomic_store_n(&guard_soft, soft, __ATOMIC_RELAXED);
	if (real(SIGXCPU, NULL, &cur) < 0) {
		r = -errno;
		goto out;
	}
	if (armed && (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_sigxcpu)
		goto out;
	/* the program's disposition (installed before, or since our last one by a way the
	 * interposers do not see): chain it, with its mask and flags, so its semantics are kept */
	mine_for(&cur, &mine);
	prog_set(&cur);
	if (real(SIGXCPU, &mine, NULL) < 0) {
		r = -errno;
		goto out;
	}
	__atomic_store_n(&armed, 1, __ATOMIC_RELEASE);
	rtshim_log(RTSHIM_LOG_DEBUG, "runaway guard: SIGXCPU handler installed (the program's was %s), soft RLIMIT_RTTIME %llu",
		   (cur.sa_flags & SA_SIGINFO) || (cur.sa_handler != SIG_DFL && cur.sa_handler != SIG_IGN)
			   ? "a handler (chained)" : cur.sa_handler == SIG_IGN ? "SIG_IGN" : "SIG_DFL",
		   (unsigned long long)soft);
out:
	pthread_mutex_unlock(&arm_lock);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return r;
}

static void start_guard_thread(void)
{
	sigset_t old;
	block_all(&old);
	pthread_mutex_lock(&arm_lock);
	guard_start();
	pthread_mutex_unlock(&arm_lock);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void rtshim_runaway_granted(void)
{
	if (!__atomic_load_n(&armed, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&guard_tgid, __ATOMIC_RELAXED) == getpid())
		return;
	/* Only where the handler cannot do it: a thread that leaves SIGXCPU unblocked gets the
	 * signal itself.  An extra SCHED_OTHER thread is not free: under load, a realtime parent
	 * reaping a child whose last thread to exit is SCHED_OTHER can spin in the kernel until
	 * the hard limit kills it (seen with a forked child that asked for realtime). */
	sigset_t cur;
	if (pthread_sigmask(SIG_BLOCK, NULL, &cur) != 0 || !sigismember(&cur, SIGXCPU))
		return;
	start_guard_thread();
}

void rtshim_runaway_adopted(void)
{
	if (__atomic_load_n(&armed, __ATOMIC_ACQUIRE))
		start_guard_thread();
}

bool rtshim_runaway_armed(void)
{
	return __atomic_load_n(&armed, __ATOMIC_ACQUIRE);
}

int rtshim_runaway_sigaction(const struct sigaction *act, struct sigaction *oldact)
{
	sigaction_fn *real = rtshim_runaway_real_sigaction();
	struct sigaction prog, mine, k;
	sigset_t old;
	int r = 0;
	block_all(&old);
	pthread_mutex_lock(&arm_lock);
	if (!armed) {
		r = real(SIGXCPU, act, oldact);
		goto out;
	}
	prog_get(&prog);
	if (act) {
		mine_for(act, &mine);
		if (real(SIGXCPU, &mine, &k) < 0) {
			r = -1;
			goto out;
		}
		/* what the kernel would report back: its flags as glibc passed them (SA_RESTORER
		 * and glibc's restorer included), never SIGKILL or SIGSTOP in the mask */
		struct sigaction now = *act;
#ifdef HAVE_SA_RESTORER
		now.sa_flags |= k.sa_flags & SA_RESTORER;
		if (k.sa_flags & SA_RESTORER)
			now.sa_restorer = k.sa_restorer;
#endif
		sigdelset(&now.sa_mask, SIGKILL);
		sigdelset(&now.sa_mask, SIGSTOP);
		prog_set(&now);
	}
	if (oldact)
		*oldact = prog;
out:
	pthread_mutex_unlock(&arm_lock);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return r;
}
