/* syscall-guard — a program started realtime (chrt, rtrun -p) with a hard RLIMIT_RTTIME that
 * does its SIGXCPU and RLIMIT_RTTIME business through syscall(), as code written for musl or
 * for no libc at all does, then computes MS ms of CPU without sleeping.  Single-threaded: it
 * is also what the cross builds run under qemu-user (tests/bats/cross.bats).
 * Usage: syscall-guard MODE [MS]   (default MS 600)
 *   rttime    syscall(SYS_prlimit64, 0, RLIMIT_RTTIME): read, soft set to the hard one, read back
 *   handler   syscall(SYS_rt_sigaction, SIGXCPU): its own handler, read back
 *   mask      syscall(SYS_rt_sigprocmask): SIGXCPU blocked, the mask read back
 *   mask-errors  syscall(SYS_rt_sigprocmask) with a bad how, set, size or old (SIGXCPU blocked:
 *             the kernel blocks it, then says EFAULT): "case NAME rc=R err=E" each; then
 *             "kernel-blocked yes|no" (SigBlk in /proc/self/status) and "blocked yes|no" as mask
 * Lines: "rttime SOFT HARD" (what the program reads), "kernel-rttime SOFT HARD" (/proc/self/limits),
 * "disposition own|other", "blocked yes|no", "kernel start|end POLICY PRIO", "handler N" (how
 * often its own handler ran), "done". */
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <time.h>

#include "probe.h"

static volatile sig_atomic_t handled;

static void own(int sig)
{
	(void)sig;
	handled++;
}

/* The kernel's struct sigaction for rt_sigaction on x86, arm64 and arm (they have sa_restorer) */
struct kernel_sigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	unsigned long mask[8 / sizeof(unsigned long)];
};

/* prlimit64's layout */
struct rlim64 {
	uint64_t cur, max;
};

static void say_rttime(const char *label, const struct rlim64 *rl)
{
	probe_say("%s %lld %lld", label, rl->cur == UINT64_MAX ? -1LL : (long long)rl->cur,
		  rl->max == UINT64_MAX ? -1LL : (long long)rl->max);
}

/* The kernel's RLIMIT_RTTIME, read from /proc/self/limits, not through any interposer. */
static void kernel_rttime(void)
{
	char line[256];
	FILE *f = fopen("/proc/self/limits", "r");
	while (f && fgets(line, sizeof line, f)) {
		char soft[32], hard[32];
		if (sscanf(line, "Max realtime timeout %31s %31s", soft, hard) == 2)
			probe_say("kernel-rttime %s %s", soft, hard);
	}
	if (f)
		fclose(f);
}

static void rttime(void)
{
	struct rlim64 rl;
	if (syscall(SYS_prlimit64, 0, RLIMIT_RTTIME, NULL, &rl))
		probe_say("prlimit64 read failed %s", probe_errname(errno));
	say_rttime("rttime", &rl);
	rl.cur = rl.max;
	if (syscall(SYS_prlimit64, 0, RLIMIT_RTTIME, &rl, NULL))
		probe_say("prlimit64 set failed %s", probe_errname(errno));
	syscall(SYS_prlimit64, 0, RLIMIT_RTTIME, NULL, &rl);
	say_rttime("rttime", &rl);
}

/* The flags and restorer glibc gives a handler (x86's kernel needs a restorer), read back from
 * another signal it set. */
static void handler(void)
{
	struct kernel_sigaction k;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = own;
	sigaction(SIGUSR2, &sa, NULL);
	syscall(SYS_rt_sigaction, SIGUSR2, NULL, &k, sizeof k.mask);
	memset(k.mask, 0, sizeof k.mask);
	if (syscall(SYS_rt_sigaction, SIGXCPU, &k, NULL, sizeof k.mask))
		probe_say("rt_sigaction failed %s", probe_errname(errno));
	memset(&k, 0, sizeof k);
	syscall(SYS_rt_sigaction, SIGXCPU, NULL, &k, sizeof k.mask);
	probe_say("disposition %s", k.handler == (void *)own ? "own" : "other");
}

static void mask(void)
{
	enum { WORDS = 8 / sizeof(unsigned long), BITS = 8 * sizeof(unsigned long) };
	unsigned long set[WORDS] = { 0 }, now[WORDS] = { 0 };
	unsigned long bit = 1UL << ((SIGXCPU - 1) % BITS);
	size_t word = (SIGXCPU - 1) / BITS;
	set[word] = bit;
	if (syscall(SYS_rt_sigprocmask, SIG_BLOCK, set, NULL, sizeof set))
		probe_say("rt_sigprocmask failed %s", probe_errname(errno));
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, now, sizeof now);
	probe_say("blocked %s", now[word] & bit ? "yes" : "no");
}

static void mask_case(const char *name, long how, const void *set, void *old, long size)
{
	errno = 0;
	long r = syscall(SYS_rt_sigprocmask, how, set, old, size);
	probe_say("case %s rc=%ld err=%s", name, r, probe_errname(r < 0 ? errno : 0));
}

static void mask_errors(void)
{
	uint64_t x = 1ULL << (SIGXCPU - 1), o;
	void *bad = (void *)(uintptr_t)8; /* unmapped */
	mask_case("bad-how", 42, &x, NULL, sizeof x);
	mask_case("bad-set", SIG_BLOCK, bad, NULL, sizeof x);
	mask_case("size-4", SIG_BLOCK, &x, &o, 4);
	mask_case("bad-old", SIG_BLOCK, &x, bad, sizeof x);
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, "SigBlk:", 7))
			probe_say("kernel-blocked %s", strtoull(line + 7, NULL, 16) & x ? "yes" : "no");
	if (f)
		fclose(f);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &o, sizeof o);
	probe_say("blocked %s", o & x ? "yes" : "no");
}

static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	double ms = argc > 2 ? atof(argv[2]) : 600;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "rttime"))
		rttime();
	else if (!strcmp(mode, "handler"))
		handler();
	else if (!strcmp(mode, "mask"))
		mask();
	else if (!strcmp(mode, "mask-errors"))
		mask_errors();
	kernel_rttime();
	probe_kernel("start");
	double end = cpu_ms() + ms;
	volatile unsigned long spins = 0;
	while (cpu_ms() < end)
		spins++;
	probe_kernel("end");
	probe_say("handler %d", (int)handled);
	probe_say("done");
	return 0;
}
