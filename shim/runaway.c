/* runaway.c — see runaway.h.
 *
 * The kernel (kernel/time/posix-cpu-timers.c, check_thread_timers) checks RLIMIT_RTTIME for
 * the running RT task on the tick: at the hard limit SIGKILL to the process; at the soft limit
 * SIGXCPU to the process and the process's soft limit raised by one second.  The signal is
 * sent from the offender's own tick (or its task work), so kernel/signal.c complete_signal
 * gives it to the offender whenever the offender does not block SIGXCPU.  The guard is built on
 * that: no thread of its own, the demotion on the thread that ran out, on its own CPU (a guard
 * thread of SCHED_OTHER starves when every CPU runs a realtime thread, and could only guess
 * which thread ran out).
 *
 * So a thread the shim made realtime never blocks SIGXCPU in the kernel: at its grant (or when
 * the program started realtime) and in every sigprocmask/pthread_sigmask of the program once
 * the guard is armed, SIGXCPU is left unblocked, and the program's own wish is kept per thread
 * (mask_view) and read back to it.  The handler then:
 * - RLIMIT_RTTIME's signal (SI_KERNEL, the soft limit raised past the guard's): demotes the
 *   thread it runs on and puts the guard's soft limit back.  Where the program's own handler
 *   could run (the thread does not block SIGXCPU in the program's view) it is chained, as the
 *   kernel would have run it; a thread that blocks it in the program's view does not get the
 *   guard's signal (the guard's own soft limit made it: without the shim there was none).
 * - any other SIGXCPU (kill -XCPU, RLIMIT_CPU): the program's disposition; in a thread that
 *   blocks it in the program's view, it is made pending again for the program (blocked in this
 *   thread for real from there on, and sent to the process again), so a sigwait gets it.
 * Where the kernel would not give the offender the signal (a thread made realtime by a request
 * about it from another thread, which blocks SIGXCPU: its mask is out of the shim's reach), a
 * guard thread of the shim is started then, lazily, and waits for SIGXCPU in sigwaitinfo; it
 * demotes the realtime threads that are running.
 *
 * The program sets SIGXCPU's disposition after the grant (sigaction, signal, ...: the
 * interposers of hooks-signal.c): its disposition is recorded as the one to chain, the guard's
 * handler stays, and the program reads back its own (rtshim_runaway_sigaction). */
#include "runaway.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "decide.h" /* rtshim_is_rt: pure, async-signal-safe */
#include "log.h"
#include "raw-sigaction.h"
#include "raw-syscall.h" /* demote: never through the shim's own syscall() */
#include "raw-time.h"
#include "real.h"
#include "thread.h"

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
/* The program's own soft RLIMIT_RTTIME once the guard is armed (what it reads back; the
 * kernel's is the guard's, lower): capped by the hard limit when read. */
static uint64_t prog_soft = RLIM64_INFINITY;
static int armed;
static pid_t guard_tgid; /* the process whose guard thread runs (0: none; after fork: not ours) */
static pthread_mutex_t arm_lock = PTHREAD_MUTEX_INITIALIZER;
/* Under arm_lock: requests armed for and not yet answered; a grant (or a start realtime) seen.
 * A refusal undoes the guard only when neither is there (rtshim_runaway_answered). */
static int asking;
static int granted_any;

/* This thread's SIGXCPU in the program's view of its signal mask, where the kernel's differs:
 * MASK_REAL (the kernel's mask says it), MASK_BLOCKED (the program blocked it, the kernel has it
 * unblocked for the guard).  initial-exec: the shim is loaded at start-up; async-signal-safe. */
enum { MASK_REAL, MASK_BLOCKED };
static __thread __attribute__((tls_model("initial-exec"))) int mask_view;
/* This thread took the guard's signal (its grant, or it runs realtime): its sigprocmask is the
 * guard's.  A thread that never got realtime has the real one, as without the shim. */
static __thread __attribute__((tls_model("initial-exec"))) int rt_here;

static void read_program_action(struct sigaction *out)
{
	unsigned g = __atomic_load_n(&prog_gen, __ATOMIC_ACQUIRE);
	memcpy(out, &prog_slot[g % PROG_SLOTS], sizeof *out);
}

static void write_program_action(const struct sigaction *sa)
{
	unsigned g = __atomic_load_n(&prog_gen, __ATOMIC_RELAXED);
	memcpy(&prog_slot[(g + 1) % PROG_SLOTS], sa, sizeof *sa);
	__atomic_store_n(&prog_gen, g + 1, __ATOMIC_RELEASE);
}

sigaction_fn *rtshim_runaway_real_sigaction(void)
{
	return next_sigaction();
}

sigmask_fn *rtshim_runaway_real_sigmask(void)
{
	return next_pthread_sigmask();
}

/* Every signal blocked in this thread (saved in *old): a handler can then not run here while
 * arm_lock is held, and no writer is interrupted.  The real function: the program's view of
 * the mask is not the shim's business here. */
static void block_all(sigset_t *old)
{
	sigset_t all;
	sigfillset(&all);
	rtshim_runaway_real_sigmask()(SIG_SETMASK, &all, old);
}

static void restore_mask(const sigset_t *old)
{
	rtshim_runaway_real_sigmask()(SIG_SETMASK, old, NULL);
}

static void sigxcpu_set(sigset_t *s)
{
	sigemptyset(s);
	sigaddset(s, SIGXCPU);
}

static long sys_prlimit(const struct rlim64 *set, struct rlim64 *get)
{
	return rtshim_raw_syscall(SYS_prlimit64, 0, RLIMIT_RTTIME, set, get); /* the kernel's, not the program's view */
}

static int sys_policy(pid_t tid)
{
	return (int)rtshim_raw_syscall(SYS_sched_getscheduler, tid);
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

/* The start of /proc/self/task/TID/WHAT, NUL-terminated: its length, or -1.  System calls only
 * (async-signal-safe). */
static ssize_t read_task_file(pid_t tid, const char *what, char *buf, size_t size)
{
	char path[64];
	rtshim_format(path, sizeof path, "/proc/self/task/%d/%s", (int)tid, what);
	int fd = (int)rtshim_raw_syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/* State letter of /proc/self/task/TID/stat ('R' running), or 0. */
static char thread_state(pid_t tid)
{
	char buf[256];
	if (read_task_file(tid, "stat", buf, sizeof buf) < 0)
		return 0;
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
	int fd = (int)rtshim_raw_syscall(SYS_openat, AT_FDCWD, "/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	for (;;) {
		long got = rtshim_raw_syscall(SYS_getdents64, fd, buf, sizeof buf);
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
		read_program_action(&now);
		if (now.sa_handler == seen->sa_handler && (now.sa_flags & SA_RESETHAND)) {
			now.sa_handler = SIG_DFL;
			now.sa_flags &= ~SA_SIGINFO;
			write_program_action(&now);
		}
		pthread_mutex_unlock(&arm_lock);
	}
	restore_mask(&old);
}

/* A SIGXCPU the program blocks in this thread: blocked here for real once the handler returns,
 * and sent to the process again (its own siginfo where the kernel lets us), so that another
 * thread of the program takes it, or a sigwait, or it stays pending, as without the shim. */
static void pend_for_program(const siginfo_t *si, void *uc)
{
	ucontext_t *u = uc;
	sigaddset(&u->uc_sigmask, SIGXCPU);
	mask_view = MASK_REAL;
	siginfo_t again = *si;
	if (rtshim_raw_syscall(SYS_rt_sigqueueinfo, getpid(), SIGXCPU, &again) < 0)
		rtshim_raw_syscall(SYS_kill, getpid(), SIGXCPU);
}

static void on_sigxcpu(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	pid_t self = (pid_t)rtshim_raw_syscall(SYS_gettid), who = 0;
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

	if (mask_view == MASK_BLOCKED) {
		/* the program blocks SIGXCPU in this thread: the guard's own signal ends here; any
		 * other is left pending for the program, as the kernel would have */
		if (!rttime)
			pend_for_program(si, uc);
		errno = saved;
		return;
	}

	/* the program's own disposition */
	struct sigaction prog;
	read_program_action(&prog);
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
			rtshim_raw_syscall(SYS_tgkill, getpid(), self, SIGXCPU);
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
static void resend_to_program(void)
{
	struct sigaction prog;
	read_program_action(&prog);
	if (!(prog.sa_flags & SA_SIGINFO) && prog.sa_handler == SIG_IGN)
		return; /* ignored, as the kernel would */
	if (rtshim_raw_syscall(SYS_kill, getpid(), SIGXCPU) < 0)
		return;
	for (int i = 0;; i++) {
		sigset_t pend;
		if (sigpending(&pend) < 0 || !sigismember(&pend, SIGXCPU))
			return;
		int idle = 0; /* a sleep no other preload can stretch (raw-time.h) */
		rtshim_raw_futex_wait(&idle, 0, i < 10 ? 10000000 : i < 30 ? 100000000 : 1000000000);
	}
}

static void *guard_main(void *arg)
{
	(void)arg;
	pid_t self = (pid_t)rtshim_raw_syscall(SYS_gettid);
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
			resend_to_program();
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
	/* the real pthread_create, not the shim's: the guard thread is no thread of the program's */
	int e = rtshim_real_pthread_create()(&t, &a, guard_main, NULL);
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
static void guard_action_for(const struct sigaction *prog, struct sigaction *mine)
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
	struct rlim64 lim;
	if (!armed && sys_prlimit(NULL, &lim) == 0)
		__atomic_store_n(&prog_soft, lim.cur, __ATOMIC_RELAXED); /* before the guard lowers it */
	if (real(SIGXCPU, NULL, &cur) < 0) {
		r = -errno;
		goto out;
	}
	if (armed && (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_sigxcpu)
		goto out;
	/* the program's disposition (installed before, or since our last one by a way the
	 * interposers do not see): chain it, with its mask and flags, so its semantics are kept */
	guard_action_for(&cur, &mine);
	write_program_action(&cur);
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
	if (!r)
		asking++;
	pthread_mutex_unlock(&arm_lock);
	restore_mask(&old);
	return r;
}

/* The program's disposition as the kernel had it: glibc's sigaction would add its SA_RESTORER
 * to a disposition the program never set (the kernel's flags 0); the system call does not. */
static int restore_program_action(const struct sigaction *prog)
{
#ifdef HAVE_SA_RESTORER
	struct kernel_sigaction k;
	memset(&k, 0, sizeof k);
	k.handler = (void *)prog->sa_handler;
	k.flags = (unsigned long)(unsigned)prog->sa_flags;
	if (prog->sa_flags & SA_RESTORER)
		k.restorer = (void *)prog->sa_restorer;
	memcpy(k.mask, &prog->sa_mask, sizeof k.mask);
	return (int)rtshim_raw_syscall(SYS_rt_sigaction, SIGXCPU, &k, NULL, sizeof k.mask);
#else
	return rtshim_runaway_real_sigaction()(SIGXCPU, prog, NULL);
#endif
}

/* With arm_lock held: the program's disposition back in the kernel, exactly as recorded, and
 * its own soft RLIMIT_RTTIME, capped by the hard one (rtkit's condition, lowered for good). */
static void disarm(void)
{
	struct sigaction prog;
	read_program_action(&prog);
	if (restore_program_action(&prog) < 0)
		return; /* the guard's handler stays: it chains the program's */
	__atomic_store_n(&armed, 0, __ATOMIC_RELEASE);
	struct rlim64 cur;
	uint64_t mine = __atomic_load_n(&prog_soft, __ATOMIC_RELAXED);
	if (sys_prlimit(NULL, &cur) == 0) {
		struct rlim64 own = { mine < cur.max ? mine : cur.max, cur.max };
		if (own.cur != cur.cur)
			sys_prlimit(&own, NULL);
	}
	rtshim_log(RTSHIM_LOG_DEBUG, "runaway guard: no grant, undone (the program's SIGXCPU disposition and soft RLIMIT_RTTIME back)");
}

void rtshim_runaway_answered(int err)
{
	sigset_t old;
	block_all(&old);
	pthread_mutex_lock(&arm_lock);
	if (asking > 0)
		asking--;
	if (!err || err == -ETIMEDOUT) /* a timeout: rtkit may grant still */
		__atomic_store_n(&granted_any, 1, __ATOMIC_RELAXED);
	else if (armed && !asking && !__atomic_load_n(&granted_any, __ATOMIC_RELAXED))
		disarm();
	pthread_mutex_unlock(&arm_lock);
	restore_mask(&old);
}

static void start_guard_thread(void)
{
	sigset_t old;
	block_all(&old);
	pthread_mutex_lock(&arm_lock);
	guard_start();
	pthread_mutex_unlock(&arm_lock);
	restore_mask(&old);
}

/* Does thread `tid` of this process block SIGXCPU (SigBlk of /proc/self/task/TID/status)? */
static bool thread_blocks_sigxcpu(pid_t tid)
{
	char buf[1024];
	if (read_task_file(tid, "status", buf, sizeof buf) < 0)
		return false;
	const char *p = strstr(buf, "SigBlk:");
	if (!p)
		return false;
	for (p += 7; *p == ' ' || *p == '\t'; p++)
		;
	uint64_t mask = 0;
	for (; (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'); p++)
		mask = mask << 4 | (uint64_t)(*p <= '9' ? *p - '0' : *p - 'a' + 10);
	return mask & (UINT64_C(1) << (SIGXCPU - 1));
}

void rtshim_runaway_take_signal(void)
{
	if (!__atomic_load_n(&armed, __ATOMIC_ACQUIRE))
		return;
	rt_here = 1;
	__atomic_store_n(&granted_any, 1, __ATOMIC_RELAXED);
	sigset_t x, was;
	sigxcpu_set(&x);
	if (rtshim_runaway_real_sigmask()(SIG_UNBLOCK, &x, &was) == 0 && sigismember(&was, SIGXCPU))
		mask_view = MASK_BLOCKED;
}

void rtshim_runaway_granted(pid_t tid)
{
	if (!__atomic_load_n(&armed, __ATOMIC_ACQUIRE))
		return;
	if (tid == (pid_t)rtshim_raw_syscall(SYS_gettid)) {
		rtshim_runaway_take_signal();
		return;
	}
	/* Another thread of the program, made realtime by this one: its mask is out of reach.  A
	 * guard thread only if it blocks SIGXCPU (else it takes the signal itself).  An extra
	 * SCHED_OTHER thread is not free: under load, a realtime parent reaping a child whose last
	 * thread to exit is SCHED_OTHER can spin in the kernel until the hard limit kills it. */
	if (__atomic_load_n(&guard_tgid, __ATOMIC_RELAXED) != getpid() && thread_blocks_sigxcpu(tid))
		start_guard_thread();
}

int rtshim_runaway_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	sigmask_fn *real = rtshim_runaway_real_sigmask();
	if (!rtshim_runaway_guards_here())
		return real(how, set, old);
	/* a thread that never got realtime blocks SIGXCPU for real, as without the shim; one made
	 * realtime by another thread's request is the guard's once it would block it */
	if (!rt_here) {
		if (!set || how == SIG_UNBLOCK || !sigismember(set, SIGXCPU))
			return real(how, set, old);
		int pol = sys_policy(0);
		if (pol < 0 || !rtshim_is_rt(pol))
			return real(how, set, old);
		rt_here = 1;
	}
	sigset_t want, was;
	bool in = false;
	if (set) {
		if (how != SIG_BLOCK && how != SIG_UNBLOCK && how != SIG_SETMASK)
			return EINVAL;
		want = *set;
		in = sigismember(set, SIGXCPU);
		if (how != SIG_UNBLOCK)
			sigdelset(&want, SIGXCPU); /* the guard's: never blocked for real */
	}
	int e = real(how, set ? &want : NULL, &was);
	if (e)
		return e;
	bool blocked = mask_view == MASK_BLOCKED || sigismember(&was, SIGXCPU);
	if (set) {
		bool now = how == SIG_SETMASK ? in : how == SIG_BLOCK ? blocked || in : blocked && !in;
		/* blocked for real since before the guard was armed: unblocked now */
		if (sigismember(&was, SIGXCPU) && how != SIG_SETMASK && !(how == SIG_UNBLOCK && in)) {
			sigset_t x;
			sigxcpu_set(&x);
			real(SIG_UNBLOCK, &x, NULL);
		}
		mask_view = now ? MASK_BLOCKED : MASK_REAL;
	}
	if (old) {
		*old = was;
		if (blocked)
			sigaddset(old, SIGXCPU);
	}
	return 0;
}

bool rtshim_runaway_hold_for_create(void)
{
	if (mask_view != MASK_BLOCKED)
		return false;
	sigset_t x;
	sigxcpu_set(&x);
	return rtshim_runaway_real_sigmask()(SIG_BLOCK, &x, NULL) == 0;
}

void rtshim_runaway_release_after_create(bool held)
{
	if (!held)
		return;
	sigset_t x;
	sigxcpu_set(&x);
	rtshim_runaway_real_sigmask()(SIG_UNBLOCK, &x, NULL);
}

bool rtshim_runaway_armed(void)
{
	return __atomic_load_n(&armed, __ATOMIC_ACQUIRE);
}

bool rtshim_runaway_guards_here(void)
{
	return rtshim_runaway_armed() && !rtshim_in_vfork_child();
}

int rtshim_runaway_sigaction(const struct sigaction *act, struct sigaction *oldact)
{
	sigaction_fn *real = rtshim_runaway_real_sigaction();
	struct sigaction prog, mine, k;
	sigset_t old;
	int r = 0;
	if (rtshim_runaway_armed() && rtshim_in_vfork_child())
		return real(SIGXCPU, act, oldact); /* a vfork child: the parent's records stay */
	block_all(&old);
	pthread_mutex_lock(&arm_lock);
	if (!armed) {
		r = real(SIGXCPU, act, oldact);
		goto out;
	}
	read_program_action(&prog);
	if (act) {
		guard_action_for(act, &mine);
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
		write_program_action(&now);
	}
	if (oldact)
		*oldact = prog;
out:
	pthread_mutex_unlock(&arm_lock);
	restore_mask(&old);
	return r;
}

int rtshim_runaway_rttime(const struct rlim64 *set, struct rlim64 *get)
{
	struct rlim64 want, was;
	if (set)
		want = *set; /* before get is written: they may be the same */
	if (sys_prlimit(set ? &want : NULL, &was) < 0)
		return -errno; /* the kernel's own checks and errno */
	if (!__atomic_load_n(&armed, __ATOMIC_ACQUIRE)) {
		if (get)
			*get = was;
		return 0;
	}
	uint64_t mine = __atomic_load_n(&prog_soft, __ATOMIC_RELAXED);
	if (get) {
		get->cur = mine < was.max ? mine : was.max;
		get->max = was.max;
	}
	if (set) {
		/* the program's own value is what it reads back; the guard keeps its share below
		 * the (new) hard limit */
		__atomic_store_n(&prog_soft, want.cur, __ATOMIC_RELAXED);
		rlim_t gs = rtshim_runaway_soft((rlim_t)want.cur, (rlim_t)want.max);
		__atomic_store_n(&guard_soft, gs, __ATOMIC_RELAXED);
		if (gs < want.cur) {
			struct rlim64 lower = { gs, want.max };
			sys_prlimit(&lower, NULL);
		}
	}
	return 0;
}

void rtshim_runaway_before_exec(bool guard_follows, struct rtshim_exec_undo *undo)
{
	memset(undo, 0, sizeof *undo);
	if (!__atomic_load_n(&armed, __ATOMIC_ACQUIRE))
		return;
	/* the kernel's soft limit back to the program's own: what rtkit alone would leave */
	struct rlim64 cur;
	uint64_t mine = __atomic_load_n(&prog_soft, __ATOMIC_RELAXED);
	if (sys_prlimit(NULL, &cur) == 0) {
		struct rlim64 own = { mine < cur.max ? mine : cur.max, cur.max };
		if (own.cur != cur.cur && sys_prlimit(&own, NULL) == 0) {
			undo->soft_restored = true;
			undo->guard_soft = cur.cur;
		}
	}
	if (guard_follows)
		return; /* the new image's shim adopts the realtime thread with its guard */
	/* no guard in the new image: it starts as it would have without the shim's grant */
	int pol = sys_policy(0);
	struct sched_param p;
	if (pol >= 0 && rtshim_is_rt(pol) && rtshim_raw_syscall(SYS_sched_getparam, 0, &p) == 0 && demote(0, pol)) {
		undo->demoted = true;
		undo->policy = pol;
		undo->prio = p.sched_priority;
	}
}

void rtshim_runaway_exec_failed(const struct rtshim_exec_undo *undo)
{
	int saved = errno;
	if (undo->soft_restored) {
		struct rlim64 cur;
		if (sys_prlimit(NULL, &cur) == 0) {
			cur.cur = undo->guard_soft < cur.max ? undo->guard_soft : cur.max;
			sys_prlimit(&cur, NULL);
		}
	}
	errno = saved;
}
