/* vfork-signals — a program with a SIGXCPU handler asks for SCHED_FIFO 10 (EPERM is fine with
 * it), then starts a helper with vfork() (or clone(CLONE_VM|CLONE_VFORK)) that resets SIGXCPU to
 * SIG_DFL ("disposition") or unblocks every signal ("mask", after the parent blocked SIGXCPU)
 * before it execs /bin/true, as spawn helpers do.  The child shares the parent's memory until
 * the exec; the parent's own disposition and mask are its own.  Then the parent reads them back
 * and sends itself SIGXCPU.
 * Usage: vfork-signals vfork|clone disposition|mask
 * Lines: "call fifo rc=R err=E", "child exit N", "read handler ours|default|other",
 * "read blocked yes|no", "sigxcpu handled N" or "sigxcpu pending yes|no"; exit 0. */
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>

#include "probe.h"

static volatile sig_atomic_t handled;

static void on_sigxcpu(int sig)
{
	(void)sig;
	handled++;
}

static int mask_mode;

static int helper(void *arg)
{
	(void)arg;
	if (mask_mode) {
		sigset_t all;
		sigfillset(&all);
		sigprocmask(SIG_UNBLOCK, &all, NULL);
	} else {
		signal(SIGXCPU, SIG_DFL);
	}
	execl("/bin/true", "true", (char *)NULL);
	_exit(127);
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "vfork";
	mask_mode = argc > 2 && strcmp(argv[2], "mask") == 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct sigaction sa = { .sa_handler = on_sigxcpu };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGXCPU, &sa, NULL);
	struct sched_param p = { .sched_priority = 10 };
	PROBE_SCHED("fifo", sched_setscheduler(0, SCHED_FIFO, &p));
	sigset_t x;
	sigemptyset(&x);
	sigaddset(&x, SIGXCPU);
	if (mask_mode)
		sigprocmask(SIG_BLOCK, &x, NULL);

	pid_t child;
	if (strcmp(how, "clone") == 0) {
		static char stack[64 * 1024] __attribute__((aligned(16)));
		child = clone(helper, stack + sizeof stack, CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);
	} else {
		child = vfork();
		if (child == 0)
			helper(NULL);
	}
	int status = 0;
	waitpid(child, &status, 0);
	probe_say("child exit %d", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));

	struct sigaction now;
	sigaction(SIGXCPU, NULL, &now);
	probe_say("read handler %s", now.sa_handler == on_sigxcpu ? "ours"
				     : now.sa_handler == SIG_DFL ? "default" : "other");
	sigset_t cur;
	sigprocmask(SIG_BLOCK, NULL, &cur);
	probe_say("read blocked %s", sigismember(&cur, SIGXCPU) ? "yes" : "no");
	kill(getpid(), SIGXCPU);
	if (mask_mode) {
		struct timespec zero = { 0, 0 };
		probe_say("sigxcpu pending %s", sigtimedwait(&x, NULL, &zero) == SIGXCPU ? "yes" : "no");
	} else {
		probe_say("sigxcpu handled %d", (int)handled);
	}
	return 0;
}
