/* seccomp-sandbox — a program that installs a seccomp filter, as browser and service sandboxes
 * do, then asks for SCHED_FIFO 10 and goes on (an EPERM is fine with it).  Raw BPF, no libseccomp.
 * FILTER: kill-socket (SECCOMP_RET_KILL_PROCESS on socket and connect), trap-socket
 * (SECCOMP_RET_TRAP on them), kill-exec (SECCOMP_RET_KILL_PROCESS on mmap or mprotect with
 * PROT_EXEC), errno-flatpak (what Flatpak's filter refuses: EPERM for ptrace, personality,
 * mount, umount2, pivot_root, chroot, unshare, setns, perf_event_open, add_key, keyctl,
 * request_key, syslog, acct, quotactl; ENOSYS for clone3, as Flatpak answers it).
 * WHO: main (the main thread asks), thread (a thread created after the filter asks), child (a
 * forked child asks), handler (main asks, with a SIGSYS handler that counts), before (main is
 * granted before the filter, then computes 100 ms and drops to SCHED_OTHER).
 * none: no filter of its own (one installed by bwrap --seccomp, say).
 * Usage: seccomp-sandbox FILTER WHO, or seccomp-sandbox --bpf FILTER (the filter's BPF program
 * on stdout, for bwrap --seccomp)
 * Lines: "call fifo rc=R err=E", "kernel LABEL POLICY PRIO", "call drop rc=R err=E",
 * "child exit N" or "child signal N", "sigsys N"; exit 0 when the program got to its end. */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>

#include "probe.h"

static volatile sig_atomic_t sigsys_seen;

static void on_sigsys(int sig)
{
	(void)sig;
	sigsys_seen++;
}

#define NR offsetof(struct seccomp_data, nr)
/* the low half of args[2] (prot, for mmap and mprotect), little-endian */
#define ARG2 (offsetof(struct seccomp_data, args) + 2 * sizeof(__u64))

/* Install FILTER, or with `dump` write its BPF program to stdout instead (the form bwrap
 * --seccomp FD reads, as Flatpak hands it its filter); "none" installs nothing. */
static void install(const char *filter, bool dump)
{
	struct sock_filter sockets[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, NR),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_connect, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, strcmp(filter, "trap-socket") == 0 ? SECCOMP_RET_TRAP
									    : SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_filter exec[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, NR),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mmap, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mprotect, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG2),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
#define REFUSE(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1), \
		   BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM)
	struct sock_filter flatpak[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, NR),
		REFUSE(__NR_ptrace), REFUSE(__NR_personality), REFUSE(__NR_mount),
		REFUSE(__NR_umount2), REFUSE(__NR_pivot_root), REFUSE(__NR_chroot),
		REFUSE(__NR_unshare), REFUSE(__NR_setns), REFUSE(__NR_perf_event_open),
		REFUSE(__NR_add_key), REFUSE(__NR_keyctl), REFUSE(__NR_request_key),
		REFUSE(__NR_syslog), REFUSE(__NR_acct), REFUSE(__NR_quotactl),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
#undef REFUSE
	struct sock_fprog prog = { .len = sizeof sockets / sizeof sockets[0], .filter = sockets };
	if (strcmp(filter, "kill-exec") == 0)
		prog = (struct sock_fprog){ .len = sizeof exec / sizeof exec[0], .filter = exec };
	else if (strcmp(filter, "errno-flatpak") == 0)
		prog = (struct sock_fprog){ .len = sizeof flatpak / sizeof flatpak[0], .filter = flatpak };
	if (dump) {
		size_t n = prog.len * sizeof prog.filter[0];
		exit(fwrite(prog.filter, 1, n, stdout) == n && fflush(stdout) == 0 ? 0 : 2);
	}
	if (strcmp(filter, "none") == 0)
		return;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("seccomp");
		exit(2);
	}
}

static void ask(const char *label)
{
	struct sched_param p = { .sched_priority = 10 };
	PROBE_SCHED("fifo", sched_setscheduler(0, SCHED_FIFO, &p));
	probe_kernel(label);
}

static void *thread_asks(void *arg)
{
	(void)arg;
	ask("thread");
	return NULL;
}

static void compute_ms(long ms)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--bpf") == 0)
		install(argv[2], true);
	const char *filter = argc > 1 ? argv[1] : "kill-socket", *who = argc > 2 ? argv[2] : "main";
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(who, "handler") == 0)
		signal(SIGSYS, on_sigsys);
	if (strcmp(who, "before") == 0)
		ask("granted");
	install(filter, false);
	if (strcmp(who, "thread") == 0) {
		pthread_t t;
		pthread_create(&t, NULL, thread_asks, NULL);
		pthread_join(t, NULL);
	} else if (strcmp(who, "child") == 0) {
		int status;
		pid_t child = fork();
		if (child == 0) {
			ask("child");
			_exit(0);
		}
		waitpid(child, &status, 0);
		if (WIFSIGNALED(status))
			probe_say("child signal %d", WTERMSIG(status));
		else
			probe_say("child exit %d", WEXITSTATUS(status));
	} else if (strcmp(who, "before") == 0) {
		compute_ms(100);
		probe_kernel("sandboxed");
		struct sched_param p0 = { 0 };
		PROBE_SCHED("drop", sched_setscheduler(0, SCHED_OTHER, &p0));
		probe_kernel("dropped");
	} else {
		ask("main");
	}
	probe_say("sigsys %d", (int)sigsys_seen);
	return 0;
}
