/* rt-signals — realtime programs that do their own thing with SIGXCPU, then overrun
 * RLIMIT_RTTIME once and end normally.  Without rtshim they get EPERM, run SCHED_OTHER and exit 0;
 * the runaway guard must let them do the same when rtkit made them realtime.
 * Usage: rt-signals MODE [MS] [PRIO]   (default MS 300, PRIO 10)
 *   sigwait           main blocks every signal before it creates any thread (the sigwait
 *                     design: a thread sigwaits for SIGINT/SIGTERM/SIGHUP); a worker asks
 *                     pthread_setschedparam(self, SCHED_FIFO, PRIO) and computes MS ms of CPU
 *                     without blocking
 *   handler           the worker installs its own SIGXCPU handler with sigaction after the
 *                     grant, then computes; main then sends itself SIGXCPU (kill) and waits
 *                     for the handler to see it
 *   handler-signal    the same with signal(2)
 *   handler-raw       the same with syscall(SYS_rt_sigaction) (the restorer glibc uses, read
 *                     back from a signal it set)
 *   ignore            the worker sets SIGXCPU to SIG_IGN with sigaction after the grant
 *   ignore-signal     the same with signal(2)
 *   main              no thread: the main thread computes MS ms of CPU (made realtime from
 *                     outside, by rtrun -p)
 *   sigwait-all       as sigwait, but the signal thread waits on a FULL set (every signal)
 *   late-block        the worker blocks SIGXCPU only after its grant; a thread sigwaits for
 *                     SIGXCPU alone; main then sends the process SIGXCPU (kill) and prints
 *                     "sigwait got 24" when that thread took it ("kill-seen yes|no")
 *   late-block-raw    the same with syscall(SYS_rt_sigprocmask), and the mask read back the same
 *                     way: "mask-view SIGXCPU blocked|unblocked"
 *   soft-to-hard      the worker, after its grant, sets its soft RLIMIT_RTTIME to its hard one
 *                     (getrlimit + setrlimit, as stress-ng and many daemons do) and prints
 *                     "rttime SOFT HARD" read back with getrlimit, then computes
 *   soft-to-hard-prlimit  the same with prlimit(0, ...)
 *   soft-to-hard-syscall  the same with syscall(SYS_prlimit64, 0, ...)
 *   exec-clean        the worker, after its grant, execs `env -i THIS main MS` (a clean
 *                     environment: the new image has no shim)
 *   exec-keep         the worker, after its grant, execs `THIS main MS` with its environment
 *   exec-clean-at     the worker, after its grant, execveat(AT_FDCWD, THIS) `main MS` with an
 *                     empty environment (no shim)
 *   exec-clean-at-fd  the same through a descriptor: execveat(fd, "", AT_EMPTY_PATH), as
 *                     glibc's fexecve does
 *   busy-all          (MS PRIO N) every signal blocked in every thread, nobody waits; N workers (one per
 *                     CPU) realtime: worker0 computes MS ms without blocking, the others
 *                     compute MS ms in 100 ms slices with a 1 ms sleep between (they never
 *                     overrun: the kernel counts RLIMIT_RTTIME from the last sleep); each prints "kernel workerK-start/-end"
 * A realtime thread computes until it is no longer realtime, at most 10 x MS (see compute).
 * Prints "call setschedparam ...", "kernel LABEL-start/-end POLICY PRIO" (the kernel's view,
 * before and after the computation), "disposition own|ignore|default|other", "handler
 * kernel=N user=N plain=N" (what the handler saw so far: SI_KERNEL, other, signal(2)'s),
 * "kill-seen yes|no", and "done" before exiting 0. */
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <time.h>

#include "probe.h"

static const char *mode;
static double ms = 300;
static int prio = 10;
static int prio_n = 2; /* busy-all: workers */
static volatile sig_atomic_t from_kernel, from_user, plain_seen;

static void own_siginfo(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	if (si && si->si_code == SI_KERNEL)
		from_kernel++;
	else
		from_user++;
}

static void own_plain(int sig)
{
	(void)sig;
	plain_seen++; /* a signal(2) handler cannot tell where it came from */
}

static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static bool kernel_realtime(void)
{
	int policy = probe_kernel_policy(0) & ~SCHED_RESET_ON_FORK;
	return policy == SCHED_FIFO || policy == SCHED_RR;
}

/* MS ms of CPU without a system call that sleeps; a realtime thread goes on until it is no
 * longer realtime (demoted, or killed at the hard limit), at most 10 x MS.  The kernel counts
 * RLIMIT_RTTIME in timer ticks that find the thread running, the thread's CPU clock in time:
 * in a VM that does not account steal time (kvm-clock, steal 0 in /proc/stat) the ticks the
 * host took are missing, and SIGXCPU at a soft 160 ms came at 160-214 ms of CPU clock on a
 * loaded 2-CPU guest; 300 ms of CPU clock were once not enough. */
static void compute(const char *label)
{
	char l[64];
	snprintf(l, sizeof l, "%s-start", label);
	probe_kernel(l);
	bool realtime = kernel_realtime();
	double end = cpu_ms() + (realtime ? 10 * ms : ms);
	volatile unsigned long spins = 0;
	while (cpu_ms() < end && (!realtime || kernel_realtime()))
		spins++;
	snprintf(l, sizeof l, "%s-end", label);
	probe_kernel(l);
}

static volatile sig_atomic_t waited_xcpu;

static void *sigwaiter(void *p)
{
	(void)p;
	sigset_t set;
	int sig;
	sigemptyset(&set);
	if (!strcmp(mode, "sigwait-all")) {
		sigfillset(&set);
	} else if (!strncmp(mode, "late-block", 10)) {
		sigaddset(&set, SIGXCPU);
		pthread_sigmask(SIG_BLOCK, &set, NULL);
	} else {
		sigaddset(&set, SIGINT);
		sigaddset(&set, SIGTERM);
		sigaddset(&set, SIGHUP);
	}
	for (;;)
		if (sigwait(&set, &sig) == 0) {
			probe_say("sigwait got %d", sig);
			if (sig == SIGXCPU)
				waited_xcpu++;
		}
	return NULL;
}

/* busy-all: worker K of N; 0 overruns, the others sleep 1 ms every 100 ms of CPU */
static void *busy_worker(void *p)
{
	long k = (long)p;
	char l[32];
	struct sched_param sp = { .sched_priority = prio };
	snprintf(l, sizeof l, "setschedparam%ld", k);
	if (PROBE_PTHREAD(l, pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp)))
		probe_say("not realtime");
	snprintf(l, sizeof l, "worker%ld", k);
	if (k == 0) {
		compute(l);
		return NULL;
	}
	double total = ms;
	char s0[40], s1[40];
	snprintf(s0, sizeof s0, "%s-start", l);
	snprintf(s1, sizeof s1, "%s-end", l);
	probe_kernel(s0);
	struct timespec nap = { 0, 1000 * 1000 };
	for (double done = 0; done < total; done += 100) {
		double end = cpu_ms() + 100;
		while (cpu_ms() < end)
			;
		nanosleep(&nap, NULL);
	}
	probe_kernel(s1);
	return NULL;
}

/* exec-*: this program again, mode main, as the mode says; returns only to exit 4 */
static void exec_main(void)
{
	char self[4096], arg[32];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	self[n > 0 ? n : 0] = '\0';
	snprintf(arg, sizeof arg, "%g", ms);
	char *argv_main[] = { self, "main", arg, NULL }, *no_env[] = { NULL };
	if (!strcmp(mode, "exec-clean"))
		execl("/usr/bin/env", "env", "-i", self, "main", arg, (char *)NULL);
	else if (!strcmp(mode, "exec-clean-at"))
		execveat(AT_FDCWD, self, argv_main, no_env, 0);
	else if (!strcmp(mode, "exec-clean-at-fd"))
		execveat(open(self, O_RDONLY | O_CLOEXEC), "", argv_main, no_env, AT_EMPTY_PATH);
	else
		execl(self, self, "main", arg, (char *)NULL);
	probe_say("exec failed %s", probe_errname(errno));
	exit(4);
}

static void *worker(void *p)
{
	(void)p;
	struct sched_param sp = { .sched_priority = prio };
	if (PROBE_PTHREAD("setschedparam", pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp)))
		probe_say("not realtime");
	if (!strncmp(mode, "exec-", 5))
		exec_main();
	if (!strncmp(mode, "soft-to-hard", 12)) {
		struct rlimit rl;
		bool pr = !strcmp(mode, "soft-to-hard-prlimit");
		bool sys = !strcmp(mode, "soft-to-hard-syscall");
		if (sys ? syscall(SYS_prlimit64, 0, RLIMIT_RTTIME, NULL, &rl)
			: pr ? prlimit(0, RLIMIT_RTTIME, NULL, &rl) : getrlimit(RLIMIT_RTTIME, &rl))
			probe_say("getrlimit failed");
		rl.rlim_cur = rl.rlim_max;
		if (sys ? syscall(SYS_prlimit64, 0, RLIMIT_RTTIME, &rl, NULL)
			: pr ? prlimit(0, RLIMIT_RTTIME, &rl, NULL) : setrlimit(RLIMIT_RTTIME, &rl))
			probe_say("setrlimit failed %s", probe_errname(errno));
		getrlimit(RLIMIT_RTTIME, &rl);
		if (rl.rlim_cur == RLIM_INFINITY)
			probe_say("rttime unlimited %s", rl.rlim_max == RLIM_INFINITY ? "unlimited" : "?");
		else
			probe_say("rttime %llu %llu", (unsigned long long)rl.rlim_cur, (unsigned long long)rl.rlim_max);
	} else if (!strcmp(mode, "late-block")) {
		sigset_t x;
		sigemptyset(&x);
		sigaddset(&x, SIGXCPU);
		pthread_sigmask(SIG_BLOCK, &x, NULL);
	} else if (!strcmp(mode, "late-block-raw")) {
		uint64_t x = 1ULL << (SIGXCPU - 1), now = 0; /* the kernel's 64-bit mask */
		if (syscall(SYS_rt_sigprocmask, SIG_BLOCK, &x, NULL, sizeof x))
			probe_say("rt_sigprocmask failed %s", probe_errname(errno));
		syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &now, sizeof now);
		probe_say("mask-view SIGXCPU %s", now & x ? "blocked" : "unblocked");
	} else if (!strcmp(mode, "handler")) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = own_siginfo;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGXCPU, &sa, NULL);
	} else if (!strcmp(mode, "handler-signal")) {
		signal(SIGXCPU, own_plain);
	} else if (!strcmp(mode, "handler-raw")) {
		struct { void *handler; unsigned long flags; void *restorer; unsigned long long mask; } k;
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = own_siginfo;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGUSR2, &sa, NULL);
		syscall(SYS_rt_sigaction, SIGUSR2, NULL, &k, 8); /* glibc's flags and restorer */
		k.handler = (void *)own_siginfo;
		k.mask = 0;
		if (syscall(SYS_rt_sigaction, SIGXCPU, &k, NULL, 8))
			probe_say("rt_sigaction failed %s", probe_errname(errno));
	} else if (!strcmp(mode, "ignore")) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = SIG_IGN;
		sigaction(SIGXCPU, &sa, NULL);
	} else if (!strcmp(mode, "ignore-signal")) {
		signal(SIGXCPU, SIG_IGN);
	}
	compute("worker");
	return NULL;
}

static const char *disposition(void)
{
	struct sigaction cur;
	sigaction(SIGXCPU, NULL, &cur);
	if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == own_siginfo)
		return "own";
	if (!(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == own_plain)
		return "own";
	if (!(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_IGN)
		return "ignore";
	if (!(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_DFL)
		return "default";
	return "other";
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	mode = argv[1];
	if (argc > 2)
		ms = atof(argv[2]);
	if (argc > 3)
		prio = atoi(argv[3]);
	if (argc > 4)
		prio_n = atoi(argv[4]);
	probe_start();
	if (!strcmp(mode, "main")) {
		compute("main");
		char line[128];
		FILE *st = fopen("/proc/self/status", "r");
		while (st && fgets(line, sizeof line, st))
			if (!strncmp(line, "Threads:", 8))
				probe_say("threads %d", atoi(line + 8));
		if (st)
			fclose(st);
		probe_say("done");
		return 0;
	}
	pthread_t w, s;
	if (!strcmp(mode, "busy-all")) {
		int n = prio_n;
		pthread_t t[64];
		sigset_t all;
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, NULL);
		for (long k = 0; k < n && k < 64; k++)
			if (pthread_create(&t[k], NULL, busy_worker, (void *)k))
				return 3;
		for (int k = 0; k < n && k < 64; k++)
			pthread_join(t[k], NULL);
		probe_say("done");
		return 0;
	}
	if (!strcmp(mode, "sigwait") || !strcmp(mode, "sigwait-all") || !strncmp(mode, "late-block", 10)) {
		sigset_t all;
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, NULL);
		pthread_create(&s, NULL, sigwaiter, NULL);
	}
	if (pthread_create(&w, NULL, worker, NULL))
		return 3;
	pthread_join(w, NULL);
	probe_say("disposition %s", disposition());
	if (!strncmp(mode, "late-block", 10)) {
		kill(getpid(), SIGXCPU);
		struct timespec t = { 0, 10 * 1000 * 1000 };
		for (int i = 0; i < 200 && !waited_xcpu; i++)
			nanosleep(&t, NULL);
		probe_say("kill-seen %s", waited_xcpu ? "yes" : "no");
	}
	if (!strncmp(mode, "handler", 7)) {
		/* a SIGXCPU that is not RLIMIT_RTTIME's still reaches the program's handler */
		int before = from_user + plain_seen;
		probe_say("handler kernel=%d user=%d plain=%d", (int)from_kernel, (int)from_user, (int)plain_seen);
		kill(getpid(), SIGXCPU);
		struct timespec t = { 0, 10 * 1000 * 1000 };
		for (int i = 0; i < 200 && from_user + plain_seen == before; i++)
			nanosleep(&t, NULL);
		probe_say("kill-seen %s", from_user + plain_seen > before ? "yes" : "no");
	}
	probe_say("done");
	if (!strncmp(mode, "soft-to-hard", 12))
		probe_wait(); /* for /proc/PID/limits, until stdin closes */
	return 0;
}
