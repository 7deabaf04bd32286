/* keeper.c — grants that last: rtshim-keeper, the process rtrun leaves beside its COMMAND.
 *
 * rtkit takes realtime away from every thread it granted when its canary fires (a suspend and
 * resume looks like a starved machine) and when it exits; nobody asks again, so a long session
 * goes on without realtime.  rtrun starts one keeper per COMMAND, detached (one clone that
 * shares rtrun's memory until rtrun's exec, with no exit signal: a child of COMMAND that its
 * wait() and SIGCHLD never see, and rtrun waits for nothing; its own session, so a terminal's ^C
 * is for COMMAND alone).  The keeper adds no thread to COMMAND and keeps nothing open in it.
 * Four times a second it reads, for each thread of COMMAND, what the kernel has (sched_getattr);
 * a thread that was realtime with SCHED_RESET_ON_FORK and is SCHED_OTHER without it was demoted
 * by a privileged hand, and is asked for once more (MakeThreadRealtimeWithPID) when rtkit grants
 * again: at once from a new rtkit or one without canary, after the refusal window of the one
 * whose canary fired (its --canary-refuse-sec).  What the program dropped itself keeps the flag
 * and is never asked for (core/keep.h); neither are threads of an image COMMAND exec'd into
 * later.  Events go to $XDG_RUNTIME_DIR/rtshim/PID.kept for rtrun --status, and, -v, to
 * COMMAND's standard error as rtrun found it.  The keeper ends with COMMAND.  RTSHIM_KEEP=0 or
 * rtrun --no-keep: no keeper. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "asked-line.h"
#include "config.h"
#include "file-size.h"
#include "keep.h"
#include "procfs.h"
#include "raw-syscall.h"
#include "rtkit-client.h"
#include "rtkit-usage.h"
#include "rtrun.h"

#define KEEP_TICK_MS 250
#define KEEP_SCAN_MS 1000 /* new realtime threads: looked for once a second */
#define KEEP_DAEMON_CHECK_MS 500
#define KEEP_MAX_THREADS 1024

struct kept {
	pid_t tid;
	unsigned long long start;   /* the thread's start time: a reused TID is another thread */
	enum rtshim_keep_state state;
	int prio;                   /* what it had while realtime */
	pid_t daemon;               /* the rtkit-daemon that granted (0: unknown) */
	unsigned long long daemon_start;
	int64_t seen_ms, ask_at, checked_ms;
	bool listed;                /* in this tick's /proc/PID/task */
	bool left_said;             /* "left" recorded: once a thread (a program may toggle) */
};

static struct {
	pid_t pid;                  /* COMMAND */
	unsigned long long start, image; /* its start time; the stack of the image it watches */
	int log_level;
	const struct rtshim_client_v1 *client;
	struct kept t[KEEP_MAX_THREADS];
	int n;
	struct rtshim_keep_budget budget;
	int burst_sec, burst_max;
	pid_t daemon;               /* the daemon last seen, and its start */
	unsigned long long daemon_start;
} k;

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void say(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(int level, const char *fmt, ...)
{
	char line[768];
	va_list ap;
	int n;

	if (k.log_level < level)
		return;
	n = snprintf(line, sizeof line, "rtshim-keeper[%d]: ", (int)getpid());
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
	va_end(ap);
	strcat(line, "\n");
	if (rtshim_write_cannot_signal(2) && write(2, line, strlen(line)) < 0) {
		/* nothing to do: the line is for people */
	}
}

/* One event line for rtrun --status: "START TID EVENT EPOCH-SECONDS TEXT". */
static void record(const struct kept *t, const char *event, const char *text)
{
	const char *runtime = getenv("XDG_RUNTIME_DIR");
	char path[256], line[640];
	int fd, n;

	if (!runtime || !rtshim_asked_dir(runtime, path, sizeof path) ||
	    (mkdir(path, 0700) < 0 && errno != EEXIST) ||
	    !rtshim_kept_path(runtime, k.pid, path, sizeof path))
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return;
	n = snprintf(line, sizeof line, "%llu %d %s %lld %s\n", k.start, (int)t->tid, event,
		     (long long)time(NULL), text);
	if (n > 0 && rtshim_write_cannot_signal(fd) && write(fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1) < 0) {
		/* the record is for people */
	}
	close(fd);
}

static void remove_record(void)
{
	const char *runtime = getenv("XDG_RUNTIME_DIR");
	char path[256];

	if (runtime && rtshim_kept_path(runtime, k.pid, path, sizeof path))
		unlink(path);
}

/* The kernel's view of a thread: 0, or -errno (-ESRCH: it ended). */
static int sched_of(pid_t tid, struct rtshim_keep_seen *s)
{
	struct {
		uint32_t size, policy;
		uint64_t flags;
		int32_t nice;
		uint32_t prio;
		uint64_t runtime, deadline, period;
	} a = { 0 };

	if (syscall(SYS_sched_getattr, tid, &a, sizeof a, 0) < 0)
		return -errno;
	s->policy = (int)a.policy;
	s->reset_on_fork = a.flags & 1; /* SCHED_FLAG_RESET_ON_FORK */
	s->prio = (int)a.prio;
	return 0;
}

static int thread_start(pid_t tid, unsigned long long *start)
{
	/* /proc/TID/stat: every thread has its own, unlisted, beside the processes */
	return rtshim_proc_start_time(tid, start);
}

/* The stack's start of the process's image (/proc/PID/stat field 28): a new one with each
 * exec (address space layout randomisation), the same for the image's life.  0 or -errno. */
static int image_of(pid_t pid, unsigned long long *out)
{
	return rtshim_proc_stat_field(pid, 28, out);
}

/* The rtkit-daemon that owns its name now: 0 and *pid, *start, or -errno (-ENOTCONN: none). */
static int daemon_now(pid_t *pid, unsigned long long *start)
{
	int r;

	if (!k.client || !k.client->daemon_pid)
		return -ENOTSUP;
	r = k.client->daemon_pid(pid);
	if (r < 0)
		return r;
	return rtshim_proc_start_time(*pid, start);
}

static bool daemon_alive(pid_t pid, unsigned long long start)
{
	unsigned long long s;

	return pid > 0 && rtshim_proc_start_time(pid, &s) == 0 && s == start;
}

static void canary_of(pid_t daemon, struct rtshim_keep_canary *c)
{
	char path[64], args[4096];
	ssize_t n;

	snprintf(path, sizeof path, "/proc/%d/cmdline", (int)daemon);
	n = rtshim_proc_read(path, args, sizeof args);
	rtshim_keep_canary_parse(args, n > 0 ? (int)n : 0, c);
}

static struct kept *find(pid_t tid)
{
	for (int i = 0; i < k.n; i++)
		if (k.t[i].tid == tid)
			return &k.t[i];
	return NULL;
}

static const char *comm(pid_t tid, char *buf, size_t size)
{
	rtrun_comm_of(k.pid, tid, buf, size);
	return buf;
}

/* A thread seen realtime with the flag: watched from now on. */
static void watch(struct kept *t, const struct rtshim_keep_seen *s)
{
	if (!daemon_alive(k.daemon, k.daemon_start) && daemon_now(&k.daemon, &k.daemon_start) < 0)
		k.daemon = 0;
	t->state = RTSHIM_KEEP_WATCHING;
	t->prio = s->prio;
	t->daemon = k.daemon;
	t->daemon_start = k.daemon_start;
}

/* Decide, for a thread just seen demoted, when to ask: 0, or -errno when rtkit's state cannot
 * be known from here (another PID namespace than the bus, the portal): then never. */
static int plan(struct kept *t, int64_t now)
{
	struct rtshim_keep_canary canary = { .on = false };
	enum rtshim_keep_daemon who = RTSHIM_KEEP_DAEMON_NONE;
	pid_t pid;
	unsigned long long start;
	int r = daemon_now(&pid, &start);

	if (r < 0 && r != -ENOTCONN)
		return r;
	if (r == 0) {
		who = t->daemon == pid && t->daemon_start == start ? RTSHIM_KEEP_DAEMON_SAME
								    : RTSHIM_KEEP_DAEMON_NEW;
		if (who == RTSHIM_KEEP_DAEMON_SAME)
			canary_of(pid, &canary);
		t->daemon = pid;
		t->daemon_start = start;
	}
	t->ask_at = rtshim_keep_ask_at(now, who, &canary);
	t->checked_ms = now;
	return 0;
}

static void describe_wait(const struct kept *t, int64_t now, char *buf, size_t size)
{
	if (t->ask_at < 0)
		snprintf(buf, size, "rtkit is not on the bus: asking when it is back");
	else if (t->ask_at > now)
		snprintf(buf, size, "asking after rtkit's refusal window, in %lld s",
			 (long long)((t->ask_at - now + 999) / 1000));
	else
		snprintf(buf, size, "asking again now");
}

static void ask(struct kept *t, int64_t now)
{
	struct rtshim_keep_seen s;
	unsigned long long start;
	char name[64], text[512];
	int r;

	if (sched_of(t->tid, &s) < 0 || thread_start(t->tid, &start) < 0 || start != t->start)
		return; /* ended: the next tick forgets it */
	if (rtshim_keep_observe(RTSHIM_KEEP_WATCHING, &s) != RTSHIM_KEEP_DEMOTED) {
		t->state = RTSHIM_KEEP_WATCHING; /* came back meanwhile (the program asked) */
		return;
	}
	rtshim_keep_budget_spend(&k.budget, now, k.burst_sec);
	pid_t asked = 0;
	unsigned long long asked_start = 0;
	if (daemon_now(&asked, &asked_start) < 0)
		asked = 0;
	r = k.client ? k.client->make_realtime(k.pid, t->tid, t->prio) : -ENOTSUP;
	if (r == 0 && sched_of(t->tid, &s) == 0 && rtshim_keep_observe(RTSHIM_KEEP_TAKEN, &s) ==
							  RTSHIM_KEEP_GRANTED) {
		t->state = RTSHIM_KEEP_WATCHING;
		t->prio = s.prio;
		snprintf(text, sizeof text, "SCHED_%s %d, %lld ms after rtkit took it",
			 s.policy == SCHED_FIFO ? "FIFO" : "RR", s.prio, (long long)(now_ms() - t->seen_ms));
		record(t, "back", text);
		say(RTSHIM_LOG_INFO, "thread %d (%s) of %d is realtime again: %s", (int)t->tid,
		    comm(t->tid, name, sizeof name), (int)k.pid, text);
		return;
	}
	if (r == -ENOTCONN || r == -ETIMEDOUT) {
		/* no answer, no refusal: the daemon asked is going (rtkit's Exit demotes, then it
		 * releases its name) or hung; asked again of the next rtkit, never of this one */
		if (asked) {
			t->daemon = asked;
			t->daemon_start = asked_start;
		}
		t->ask_at = -1;
		say(RTSHIM_LOG_INFO, "rtkit did not answer for thread %d (%s) of %d (%s): asking the "
		    "next rtkit", (int)t->tid, comm(t->tid, name, sizeof name), (int)k.pid,
		    k.client->strerror(r));
		return;
	}
	if (r == 0)
		r = -EPROTO; /* success the kernel does not show */
	t->state = RTSHIM_KEEP_REFUSED;
	if (r == -EBUSY) {
		struct rtkit_usage u;

		rtrun_rtkit_usage(&u);
		rtrun_rtkit_limits_text(&u, text, sizeof text);
	} else {
		snprintf(text, sizeof text, "%s", k.client ? k.client->strerror(r) : strerror(-r));
	}
	record(t, "refused", text);
	say(RTSHIM_LOG_WARN, "rtkit took realtime away from thread %d (%s) of %d and refused it "
	    "again: %s; not asking again", (int)t->tid, comm(t->tid, name, sizeof name),
	    (int)k.pid, text);
}

/* What one observation of a watched thread means. */
static void observe(struct kept *t, const struct rtshim_keep_seen *s, int64_t now)
{
	char name[64], text[160];

	switch (rtshim_keep_observe(t->state, s)) {
	case RTSHIM_KEEP_NOTHING:
		if (t->state == RTSHIM_KEEP_WATCHING)
			t->prio = s->prio;
		break;
	case RTSHIM_KEEP_GRANTED:
		watch(t, s);
		break;
	case RTSHIM_KEEP_DROPPED:
	case RTSHIM_KEEP_FOREIGN:
		t->state = RTSHIM_KEEP_LEFT;
		if (!t->left_said) {
			t->left_said = true;
			record(t, "left", s->reset_on_fork ? "the program, or rtshim's runaway guard"
							    : "set by a privileged hand, not rtkit");
		}
		break;
	case RTSHIM_KEEP_DEMOTED: {
		unsigned long long start, image;

		if (thread_start(t->tid, &start) < 0 || start != t->start) {
			t->listed = false; /* another thread with a reused TID */
			break;
		}
		if (image_of(k.pid, &image) < 0 || image != k.image) {
			t->state = RTSHIM_KEEP_LEFT; /* the process exec'd: not the image that asked */
			break;
		}
		t->state = RTSHIM_KEEP_TAKEN;
		t->seen_ms = now;
		int r = plan(t, now);
		if (r < 0) {
			t->state = RTSHIM_KEEP_REFUSED;
			snprintf(text, sizeof text, "not asking again: rtkit's state cannot be read "
				 "from here (%s)", k.client ? k.client->strerror(r) : strerror(-r));
		} else {
			describe_wait(t, now, text, sizeof text);
		}
		record(t, "taken", text);
		say(RTSHIM_LOG_INFO, "rtkit took realtime away from thread %d (%s) of %d; %s",
		    (int)t->tid, comm(t->tid, name, sizeof name), (int)k.pid, text);
		break;
	}
	}
}

/* The threads of the process that are new since the last scan and realtime: watched. */
static void scan(void)
{
	pid_t *tids = NULL;
	size_t count = 0;

	if (rtrun_list_threads(k.pid, &tids, &count) < 0)
		return;
	for (int i = 0; i < k.n; i++)
		k.t[i].listed = false;
	for (size_t j = 0; j < count; j++) {
		struct rtshim_keep_seen s;
		struct kept *t = find(tids[j]);

		if (t) {
			t->listed = true;
			continue;
		}
		if (sched_of(tids[j], &s) < 0 ||
		    rtshim_keep_observe(RTSHIM_KEEP_LEFT, &s) != RTSHIM_KEEP_GRANTED ||
		    k.n == KEEP_MAX_THREADS)
			continue;
		/* the image that asks: read at its first grant, not when rtrun's exec closed the
		 * pipe (the kernel sets the new stack's start after that) */
		if (!k.n && image_of(k.pid, &k.image) < 0)
			continue;
		t = &k.t[k.n++];
		*t = (struct kept){ .tid = tids[j], .listed = true };
		if (thread_start(t->tid, &t->start) < 0) {
			k.n--;
			continue;
		}
		watch(t, &s);
		record(t, "watched", "");
	}
	free(tids);
}

/* One look at every watched thread (sched_getattr alone); once a second, a scan for new ones. */
static void tick(void)
{
	static int64_t scanned_ms = -KEEP_SCAN_MS;
	int64_t now = now_ms();

	if (now - scanned_ms >= KEEP_SCAN_MS) {
		scanned_ms = now;
		scan();
	}
	for (int i = 0; i < k.n; i++) {
		struct rtshim_keep_seen s;

		if (!k.t[i].listed || sched_of(k.t[i].tid, &s) < 0)
			k.t[i].listed = false; /* ended */
		else
			observe(&k.t[i], &s, now);
	}
	/* threads that ended (or whose TID another thread has) are forgotten */
	for (int i = 0; i < k.n;)
		if (!k.t[i].listed)
			k.t[i] = k.t[--k.n];
		else
			i++;
	for (int i = 0; i < k.n; i++) {
		struct kept *t = &k.t[i];
		int64_t next;

		if (t->state != RTSHIM_KEEP_TAKEN)
			continue;
		if (now - t->checked_ms >= KEEP_DAEMON_CHECK_MS) {
			t->checked_ms = now;
			if (t->ask_at < 0) {
				pid_t pid;
				unsigned long long start;

				/* a new rtkit: no refusal window (the one that granted, or did not
				 * answer, is not asked) */
				if (daemon_now(&pid, &start) == 0 &&
				    (pid != t->daemon || start != t->daemon_start)) {
					t->daemon = pid;
					t->daemon_start = start;
					t->ask_at = now;
				}
			} else if (t->ask_at > now && !daemon_alive(t->daemon, t->daemon_start)) {
				t->ask_at = -1; /* the daemon whose window it was has gone */
			}
		}
		if (t->ask_at < 0 || t->ask_at > now)
			continue;
		if (!k.burst_sec) { /* rtkit's burst, read when first needed: a /proc scan */
			struct rtkit_usage u;

			rtrun_rtkit_usage(&u);
			k.burst_sec = u.burst_sec;
			k.burst_max = u.burst_max;
		}
		if (!rtshim_keep_budget_allows(&k.budget, now, k.burst_sec, k.burst_max, &next)) {
			t->ask_at = next;
			continue;
		}
		ask(t, now);
	}
}

static bool process_is_ours(void)
{
	unsigned long long start;

	return rtshim_proc_start_time(k.pid, &start) == 0 && start == k.start;
}

/* The keeper's process shares rtrun's memory until rtrun's execve of COMMAND (or its exit):
 * one clone(CLONE_VM) with exit signal 0, where the raw entry exists.  rtrun copies no page
 * tables and waits for nothing; the keeper never execs (an exec would give it SIGCHLD as its
 * exit signal again), so it stays a child of COMMAND that COMMAND's wait(), waitpid(-1) and
 * SIGCHLD never see (only __WALL or __WCLONE waits do), reparented to init when COMMAND ends.
 * Elsewhere, and under valgrind (which runs no such clone), a double fork as before: no child
 * of COMMAND at all. */
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define KEEPER_ON_OWN_STACK() \
	(__sanitizer_start_switch_fiber(NULL, keeper_stack, sizeof keeper_stack), \
	 __sanitizer_finish_switch_fiber(NULL, NULL, NULL))
#else
#define KEEPER_ON_OWN_STACK() ((void)0)
#endif
#ifndef RTSHIM_SYSCALL_ENTRY
#define rtshim_raw_syscall_result syscall /* (there, the child has memory of its own) */
#endif

/* The keeper's child blocked every signal until here: one sent to rtrun's process group in the
 * meantime (a terminal's ^C) was for COMMAND, and is discarded rather than delivered now. */
static void unblock_signals(void)
{
	sigset_t pending, none;

	if (sigpending(&pending) == 0)
		for (int sig = 1; sig < NSIG; sig++) {
			struct sigaction old, ignore = { .sa_handler = SIG_IGN };

			if (sig != SIGKILL && sig != SIGSTOP && sigismember(&pending, sig) == 1 &&
			    sigaction(sig, &ignore, &old) == 0)
				sigaction(sig, &old, NULL);
		}
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* What the keeper's child reads before rtrun has left: written before the clone, never again. */
static struct {
	pid_t pid;                  /* COMMAND */
	bool child_of_command;      /* made by the clone */
	int read_fd, write_fd, log_level, timeout_ms;
} spawn;
#define KEEPER_STACK_SIZE (256 * 1024)
static _Alignas(65536) unsigned char keeper_stack[KEEPER_STACK_SIZE];

/* The keeper, once rtrun's memory is its own. */
static void keeper_main(void)
{
	unsigned long long start;
	int pidfd, null;

	/* ASan builds: the sanitizer's record of this thread's stack is rtrun's main stack's */
	if (spawn.child_of_command)
		KEEPER_ON_OWN_STACK();
	/* the lowest page of its stack: a guard, as a thread's has */
	if (spawn.child_of_command)
		mprotect(keeper_stack, (size_t)getpagesize(), PROT_NONE);
	/* the start time of COMMAND: read while COMMAND is still its parent, so it is COMMAND's */
	if (rtshim_proc_start_time(spawn.pid, &start) == 0 &&
	    (!spawn.child_of_command || getppid() == spawn.pid))
		k.start = start;
	setsid();
	signal(SIGPIPE, SIG_IGN);
	unblock_signals();
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
	}
	close_range(3, ~0U, 0);
	k.pid = spawn.pid;
	k.log_level = spawn.log_level;
	if (!k.start || !process_is_ours())
		_exit(0);
	k.client = rtrun_client();
	rtrun_client_set_timeout_ms(spawn.timeout_ms);
	pidfd = (int)syscall(SYS_pidfd_open, k.pid, 0);
	for (;;) {
		struct pollfd p = { .fd = pidfd, .events = POLLIN };

		if (pidfd >= 0 ? poll(&p, 1, KEEP_TICK_MS) > 0 : (usleep(KEEP_TICK_MS * 1000), 0))
			break; /* COMMAND ended */
		if (pidfd < 0 && !process_is_ours())
			break; /* (a pidfd names the process itself: no reused PID) */
		tick();
	}
	remove_record();
	_exit(0);
}

/* The child, while it shares memory with rtrun: raw system calls on its own stack alone (its
 * errno and thread-local storage are rtrun's; no sanitizer bookkeeping, which lives there),
 * every signal blocked.  The end of file on the pipe says rtrun has left the memory: the kernel
 * replaces the memory of an execve before it closes the close-on-exec descriptors, and an exit
 * releases it before the descriptors. */
__attribute__((no_sanitize("address", "thread", "undefined")))
static int keeper_child(void *unused)
{
	uint64_t all = ~(uint64_t)0;
	char c;

	(void)unused;
	rtshim_raw_syscall_result(SYS_rt_sigprocmask, (long)SIG_SETMASK, (long)&all, 0L, 8L);
	rtshim_raw_syscall_result(SYS_prctl, (long)PR_SET_NAME, (long)"rtshim-keeper", 0L, 0L, 0L);
	rtshim_raw_syscall_result(SYS_close, (long)spawn.write_fd);
	while (rtshim_raw_syscall_result(SYS_read, (long)spawn.read_fd, (long)&c, 1L) == -EINTR)
		;
	keeper_main();
	return 0;
}

/* The keeper's process, as said above: its PID (the middle one's after a double fork), or -1. */
static pid_t keeper_clone(void)
{
	int status;
	pid_t middle;

#ifdef RTSHIM_SYSCALL_ENTRY
	if (!RUNNING_ON_VALGRIND) {
		spawn.child_of_command = true;
		pid_t pid = clone(keeper_child, keeper_stack + sizeof keeper_stack, CLONE_VM, NULL);

		if (pid > 0)
			return pid;
		spawn.child_of_command = false; /* refused (qemu-user, a filter): as below */
	}
#endif
	fflush(NULL);
	middle = fork();
	if (middle == 0) {
		if (fork() == 0)
			keeper_child(NULL);
		_exit(0);
	}
	if (middle > 0)
		while (waitpid(middle, &status, 0) < 0 && errno == EINTR)
			;
	return middle;
}

void rtrun_keeper_start(const struct rtshim_config *cfg)
{
	int fds[2];

	if (!cfg->keep || pipe2(fds, O_CLOEXEC) < 0)
		return;
	spawn.pid = getpid();
	spawn.read_fd = fds[0];
	spawn.write_fd = fds[1];
	spawn.log_level = cfg->log_level;
	spawn.timeout_ms = cfg->timeout_ms;
	if (keeper_clone() < 0)
		close(fds[1]);
	close(fds[0]);
	/* fds[1] stays open until exec closes it: the keeper's signal to start */
}
