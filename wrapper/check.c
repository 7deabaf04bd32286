/* check.c — `rtrun --check [PROGRAM]`: would a program started with rtrun get realtime, at
 * what priority, and if not, why and what fixes it.  Every answer comes from trying: the direct
 * call and rtkit are each asked to make a short-lived helper thread of rtrun realtime at
 * priority 1 (or -p N), which is then dropped and ended.  This file gathers the facts and says
 * them; the verdict and its one fix come from a pure table (verdict.c).  Exit status 0 yes,
 * 1 no. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <pthread.h>
#include <pwd.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "config.h"
#include "prio.h"
#include "raw-syscall.h"
#include "sandbox.h"
#include "doctor-open.h"
#include "rtkit-client.h"
#include "rtkit-usage.h"
#include "rtrun.h"
#include "verdict.h"

struct helper {
	pthread_t thread;
	int tid_pipe[2], stop_pipe[2];
	pid_t tid;
	bool running;
};

static void *helper_main(void *arg)
{
	struct helper *h = arg;
	pid_t tid = gettid();
	char c;

	if (write(h->tid_pipe[1], &tid, sizeof tid) != (ssize_t)sizeof tid)
		return NULL;
	/* Sleep until the main thread closes the write end. */
	while (read(h->stop_pipe[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

static int helper_start(struct helper *h)
{
	int r;

	memset(h, 0, sizeof *h);
	if (pipe2(h->tid_pipe, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(h->stop_pipe, O_CLOEXEC) < 0) {
		r = -errno;
		close(h->tid_pipe[0]);
		close(h->tid_pipe[1]);
		return r;
	}
	r = pthread_create(&h->thread, NULL, helper_main, h);
	if (r) {
		close(h->tid_pipe[0]);
		close(h->tid_pipe[1]);
		close(h->stop_pipe[0]);
		close(h->stop_pipe[1]);
		return -r;
	}
	h->running = true;
	while (read(h->tid_pipe[0], &h->tid, sizeof h->tid) < 0 && errno == EINTR)
		;
	return h->tid > 0 ? 0 : -EIO;
}

static void helper_stop(struct helper *h)
{
	if (!h->running)
		return;
	close(h->stop_pipe[1]);
	pthread_join(h->thread, NULL);
	close(h->stop_pipe[0]);
	close(h->tid_pipe[0]);
	close(h->tid_pipe[1]);
	h->running = false;
}

/* Back to SCHED_OTHER; the flag must stay or the kernel refuses an unprivileged caller. */
static void drop(pid_t tid)
{
	struct sched_param sp = { .sched_priority = 0 };

	rtshim_raw_syscall(SYS_sched_setscheduler, tid, SCHED_OTHER | SCHED_RESET_ON_FORK, &sp);
}

static void item(const char *label, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void item(const char *label, const char *fmt, ...)
{
	va_list ap;

	printf("  %-15s ", label);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* the client's rule (daemon-client/sandbox.c): then it asks the Realtime portal, never rtkit */
static const char *sandbox(void)
{
	switch (rtshim_sandbox_detect(getenv)) {
	case RTSHIM_SANDBOX_FLATPAK:
		return "Flatpak (/.flatpak-info exists)";
	case RTSHIM_SANDBOX_SNAP:
		return "Snap ($SNAP is set)";
	case RTSHIM_SANDBOX_NONE:
		break;
	}
	return NULL;
}

static void config_warn(void *ctx, const char *text)
{
	(void)ctx;
	item("environment", "%s", text);
}

/* How priorities land in rtkit's range under --map/--top (RTSHIM_PRIO_MAP, RTSHIM_TOP). */
static const char *map_text(const struct rtshim_config *cfg, int max, char *buf, size_t size)
{
	int top = cfg->prio_top ? cfg->prio_top : RTSHIM_PRIO_DEFAULT_TOP;

	if (cfg->prio_map == RTSHIM_PRIO_SCALE)
		snprintf(buf, size, "--map scale: 1..99 scaled onto 1..%d, order kept", max);
	else if (cfg->prio_map == RTSHIM_PRIO_OFFSET)
		snprintf(buf, size, "--map offset: %d and above get %d, %d gets %d, and so on", top,
			 max, top - 1, max > 1 ? max - 1 : 1);
	else
		snprintf(buf, size, "--map clamp: requests above %d get %d", max, max);
	return buf;
}

static const char polkit_rule[] =
	"       polkit.addRule(function(action, subject) {\n"
	"           if (action.id == \"org.freedesktop.RealtimeKit1.acquire-real-time\" &&\n"
	"               subject.isInGroup(\"audio\"))\n"
	"               return polkit.Result.YES;\n"
	"       });\n";

/* What --check gathers, and what it needs to say it. */
struct check {
	const struct rtrun_options *o;
	struct rtshim_config cfg;
	int want;                     /* the priority a test thread asks for */
	struct passwd *pw;
	const char *box;              /* the sandbox, or NULL */
	bool cap;                     /* CAP_SYS_NICE */
	struct rlimit rtprio;
	struct rtrun_shim shim;
	const struct rtshim_client_v1 *client;
	const struct rtshim_doctor_v1 *doctor;
	const char *program_arg;      /* --check PROGRAM as given, or NULL */
	char program_path[PATH_MAX];  /* where it was found */
	struct rtrun_command program;
	int direct_max;
	struct rtshim_bus_report bus;
	struct rtkit_limits lim;
	struct rtrun_rt_result res;
	int granted_policy, granted_prio;
	struct rtrun_check_facts f;
};

static void show_limits(struct check *c)
{
	struct rlimit rttime, memlock;
	char b1[32], b2[32];

	getrlimit(RLIMIT_RTPRIO, &c->rtprio);
	getrlimit(RLIMIT_RTTIME, &rttime);
	getrlimit(RLIMIT_MEMLOCK, &memlock);
	rtrun_rlim_text(c->rtprio.rlim_cur, b1, sizeof b1);
	rtrun_rlim_text(c->rtprio.rlim_max, b2, sizeof b2);
	if (c->cap)
		item("RLIMIT_RTPRIO", "soft %s, hard %s, but CAP_SYS_NICE allows any priority "
		     "directly", b1, b2);
	else if (c->rtprio.rlim_cur == 0)
		item("RLIMIT_RTPRIO", "soft 0, hard %s: direct realtime requests fail with EPERM, so "
		     "rtkit is needed", b2);
	else
		item("RLIMIT_RTPRIO", "soft %s, hard %s: direct requests up to that priority "
		     "succeed", b1, b2);
	rtrun_rlim_text(rttime.rlim_cur, b1, sizeof b1);
	rtrun_rlim_text(rttime.rlim_max, b2, sizeof b2);
	if (rttime.rlim_max == 0 || rttime.rlim_cur == 0)
		item("RLIMIT_RTTIME", "soft %s, hard %s: a realtime thread would be killed at once",
		     b1, b2);
	else
		item("RLIMIT_RTTIME", "soft %s, hard %s (us): before asking rtkit the shim lowers the "
		     "hard limit to at most %lld us", b1, b2, (long long)c->cfg.rttime_us);
	rtrun_rlim_text(memlock.rlim_cur, b1, sizeof b1);
	rtrun_rlim_text(memlock.rlim_max, b2, sizeof b2);
	if (memlock.rlim_cur != RLIM_INFINITY && memlock.rlim_cur < RTRUN_MEMLOCK_WANTED)
		item("RLIMIT_MEMLOCK", "soft %s, hard %s bytes: programs that lock their memory "
		     "(jackd -R: \"Cannot lock down ... memory\") cannot; raise it for your group, "
		     "e.g. '@audio - memlock unlimited' in /etc/security/limits.d/audio.conf, and "
		     "log in again", b1, b2);
	else
		item("RLIMIT_MEMLOCK", "soft %s, hard %s bytes: enough to lock an audio program's "
		     "memory", b1, b2);
}

/* The sandbox, the environment, librtshim.so and its daemon client. */
static void show_setup(struct check *c, int bad)
{
	struct rtrun_shim *shim = &c->shim;

	struct rtshim_config said;

	item("sandbox", "%s", c->box ? c->box : "none detected");
	/* loaded again to say its warnings here, after the header */
	rtrun_config_load(&said, config_warn, NULL, false);
	if (!bad)
		item("environment", "RTSHIM_* settings valid");
	if (c->cfg.disabled)
		item("rtshim", "switched off (RTSHIM_DISABLE in %s): programs started with rtrun run "
		     "without librtshim.so, their requests go to the kernel as they are",
		     rtrun_config_off_source());
	c->f.shim = rtrun_locate_shim(shim);
	if (c->f.shim == 0)
		item("librtshim.so", "%s%s%s", shim->native, shim->lib_token ? ", preloaded as " : "",
		     shim->lib_token ? shim->value : "");
	else if (c->f.shim == -EINVAL)
		item("librtshim.so", "%s: its path contains a space or colon, which LD_PRELOAD "
		     "cannot carry", shim->native);
	else
		item("librtshim.so", "not found (looked for %s%s%s)", shim->tried[0],
		     shim->tried[1][0] ? " and " : "", shim->tried[1]);
	if (c->f.shim == -ENOENT)
		return;
	c->client = rtrun_client();
	c->doctor = c->client ? rtrun_doctor() : NULL;
	c->f.client = c->doctor != NULL;
	if (c->doctor)
		item("daemon client", "%s loaded", RTSHIM_CLIENT_FILE);
	else
		item("daemon client", "cannot be loaded: %s", rtrun_client_error());
}

/* --check PROGRAM: found as execvp would find it?  0, or rtrun's exit status (said). */
static int find_program(struct check *c, const char *cmd)
{
	int r = rtrun_resolve_command(cmd, c->program_path, sizeof c->program_path);

	if (r < 0) {
		rtrun_log(RTRUN_ERROR, "%s: %s%s%s", cmd, r == -ENOENT ? "command not found"
			  : r == -EACCES ? "not executable (" : "", r == -ENOENT ? "" : strerror(-r),
			  r == -EACCES ? ")" : "");
		return r == -ENOENT ? RTRUN_EXIT_NOT_FOUND : RTRUN_EXIT_CANNOT_EXEC;
	}
	c->program_arg = cmd;
	return 0;
}

/* ... and will the loader load the shim into it? */
static void show_program(struct check *c)
{
	char text[2 * PATH_MAX + 256];

	rtrun_command_reach(c->program_arg, c->program_path, &c->shim, &c->program);
	c->f.program = c->program.reach;
	item("program", "%s", rtrun_reach_text(&c->program, &c->shim, text, sizeof text));
}

/* Try the direct call on a helper thread. */
static void try_direct(struct check *c)
{
	struct sched_param sp = { .sched_priority = c->want };
	struct helper h;
	int r = helper_start(&h);

	if (r == 0) {
		if (rtshim_raw_syscall(SYS_sched_setscheduler, h.tid, SCHED_RR | SCHED_RESET_ON_FORK,
				       &sp) == 0) {
			c->f.direct_ok = true;
			drop(h.tid);
		} else {
			r = -errno;
		}
		helper_stop(&h);
	}
	if (c->f.direct_ok) {
		c->direct_max = c->cap || c->rtprio.rlim_cur >= 99 ? 99 : (int)c->rtprio.rlim_cur;
		item("direct call", "allowed up to priority %d (a test thread got SCHED_RR %d)",
		     c->direct_max, c->want);
	} else {
		item("direct call", "refused: sched_setscheduler(SCHED_RR, %d): %s", c->want,
		     strerror(-r));
	}
}

/* Inside a sandbox the client asks the Realtime portal, never rtkit directly. */
static void probe_portal(struct check *c)
{
	c->f.bus = 0;
	c->f.polkit = RTRUN_POLKIT_YES; /* not ours to check from here: the portal's host side does */
	c->f.limits = c->client->get_limits(&c->lim);
	if (c->f.limits == 0)
		item("portal", "org.freedesktop.portal.Realtime answers on the session bus: "
		     "MaxRealtimePriority %d, MinNiceLevel %d, RTTimeUSecMax %lld us",
		     c->lim.max_realtime_priority, c->lim.min_nice_level,
		     (long long)c->lim.rttime_usec_max);
	else
		item("portal", "org.freedesktop.portal.Realtime on the session bus does not answer: "
		     "%s", c->f.limits == -ENOTCONN ? "no session bus, or no xdg-desktop-portal on it"
		     : rtrun_rtkit_strerror(c->f.limits));
}

static void show_polkit(const struct rtshim_bus_report *bus)
{
	if (bus->polkit == RTRUN_POLKIT_YES)
		item("polkit", "allows org.freedesktop.RealtimeKit1.acquire-real-time here");
	else if (bus->polkit == RTRUN_POLKIT_AUTH)
		item("polkit", "would allow acquire-real-time only after authentication, which rtkit "
		     "never asks for");
	else if (bus->polkit == RTRUN_POLKIT_NO)
		item("polkit", "refuses org.freedesktop.RealtimeKit1.acquire-real-time here");
	else if (bus->polkit == -ENOTCONN) /* polkit's name has no owner on the bus */
		item("polkit", "polkitd is not running: rtkit refuses every request without it");
	else
		item("polkit", "no answer: %s", bus->polkit_error);
}

/* The system bus, rtkit on it, and (once rtkit answers: it is rtkit that asks) polkit. */
static void probe_bus(struct check *c)
{
	struct rtshim_bus_report *bus = &c->bus;

	c->doctor->bus_probe(c->cfg.timeout_ms, bus);
	c->f.bus = bus->bus;
	c->f.polkit = bus->polkit;
	if (bus->bus < 0) {
		item("system bus", "%s does not answer: %s", bus->address, bus->bus_error);
		return;
	}
	item("system bus", "%s answers", bus->address);
	c->f.limits = c->client->get_limits(&c->lim);
	if (c->f.limits == 0)
		item("rtkit-daemon", "answers%s: MaxRealtimePriority %d, MinNiceLevel %d, "
		     "RTTimeUSecMax %lld us", bus->rtkit_owner == 0 ? " (started on demand)" : "",
		     c->lim.max_realtime_priority, c->lim.min_nice_level,
		     (long long)c->lim.rttime_usec_max);
	else if (c->f.limits == -ENOTCONN && bus->rtkit_owner == 0 && bus->rtkit_activatable == 0)
		item("rtkit-daemon", "not running, and the bus cannot start it");
	else if (c->f.limits == -ETIMEDOUT)
		item("rtkit-daemon", "does not answer within %d ms, while the bus does: hung or "
		     "stopped", c->cfg.timeout_ms);
	else
		item("rtkit-daemon", "does not answer: %s", rtrun_rtkit_strerror(c->f.limits));
	if (c->f.limits == 0) {
		struct rtkit_usage u;
		char text[768];

		rtrun_rtkit_usage(&u);
		item("rtkit limits", "%s", rtrun_rtkit_limits_text(&u, text, sizeof text));
		show_polkit(bus);
	}
}

/* In a sandbox the portal is asked, and it asks rtkit. */
static const char *grant_label(const struct check *c)
{
	return c->box ? "portal grant" : "rtkit grant";
}

static void show_grant(struct check *c, int grant_r)
{
	const struct rtrun_rt_result *res = &c->res;
	char pol[64], mapped[160], why[400];

	rtrun_policy_text(c->granted_policy, pol, sizeof pol);
	if (c->f.grant_ok && res->d.prio_changed)
		item(grant_label(c), "a test thread asking for priority %d got %s %d (%s), then "
		     "dropped", c->want, pol, c->granted_prio,
		     map_text(&c->cfg, c->lim.max_realtime_priority, mapped, sizeof mapped));
	else if (c->f.grant_ok)
		item(grant_label(c), "a test thread got %s %d (then dropped)", pol, c->granted_prio);
	else if (res->d.why == RTSHIM_WHY_REFUSED && grant_r == -EPERM && res->d.why_err == -EPERM)
		item(grant_label(c), "refused (EPERM) although RLIMIT_RTTIME and the priority were "
		     "within rtkit's limits: %s", c->f.polkit == RTRUN_POLKIT_YES
		     ? "rtkit itself refuses (canary)" : "polkit said no");
	else
		item(grant_label(c), "%s: %s", res->d.why == RTSHIM_WHY_REFUSED ? "refused"
		     : "not asked", rtrun_rt_error_text(res, why, sizeof why));
}

/* The honest answer: ask for a helper thread exactly as the shim would under these options
 * (the decision core), then drop it. */
static void try_grant(struct check *c)
{
	struct rtrun_rt_request req = {
		.pid = 0, .priority = c->want, .policy = SCHED_RR, .cfg = &c->cfg,
		.guard_in_command = true,
	};
	struct helper h;
	int r = helper_start(&h);

	if (r < 0) {
		item(grant_label(c), "not tried: cannot start a test thread: %s", strerror(-r));
		return;
	}
	req.tid = h.tid;
	r = rtrun_make_realtime(&req, &c->res);
	c->f.grant_ok = r == 0 &&
			rtrun_thread_sched(h.tid, &c->granted_policy, &c->granted_prio) == 0;
	drop(h.tid);
	helper_stop(&h);
	show_grant(c, r);
}

/* "programs started with rtrun get" or, for --check PROGRAM, "jackd started with rtrun gets" */
static const char *subject(const struct check *c, char *buf, size_t size)
{
	if (c->program_arg)
		snprintf(buf, size, "%s started with rtrun gets", c->program_arg);
	else
		snprintf(buf, size, "programs started with rtrun get");
	return buf;
}

static void say_yes(const struct check *c, enum rtrun_answer answer)
{
	char pol[64], mapped[160], who[PATH_MAX + 64];

	subject(c, who, sizeof who);
	if (answer == RTRUN_YES_DIRECT) {
		printf("yes: %s realtime directly, at the priority they ask for up to %d%s.\n", who,
		       c->direct_max, c->f.grant_ok && c->direct_max < 99
		       ? "; higher requests go through rtkit" : "");
		return;
	}
	printf("yes: %s realtime through rtkit: %s at priority 1..%d (%s).\n", who,
	       rtrun_policy_text(c->granted_policy, pol, sizeof pol), c->lim.max_realtime_priority,
	       map_text(&c->cfg, c->lim.max_realtime_priority, mapped, sizeof mapped));
	if (c->cfg.runaway == RTSHIM_RUNAWAY_DEMOTE)
		printf("note: their hard RLIMIT_RTTIME becomes %llu us; a realtime thread that runs "
		       "%llu us without sleeping is demoted to SCHED_OTHER so that the kernel does "
		       "not kill the program (--runaway).\n", (unsigned long long)c->res.d.hard,
		       (unsigned long long)c->res.d.soft);
	else
		printf("note: their hard RLIMIT_RTTIME becomes %llu us: a realtime thread that runs "
		       "that long without sleeping is killed (--runaway kill).\n",
		       (unsigned long long)c->res.d.hard);
	if (c->box)
		printf("note: in this sandbox (%s) requests go through the Realtime portal "
		       "(xdg-desktop-portal), which forwards them to rtkit.\n", c->box);
}

/* The fixes for what stands before rtkit: the shim, the program, the client, the bus.  false
 * for any other. */
/* The command that does ACTION (start, restart) to the system bus here: systemd's unit when
 * systemd runs, else the init script, else the daemon itself. */
static const char *bus_command(const char *action, char *buf, size_t size)
{
	if (access("/run/systemd/system", F_OK) == 0)
		snprintf(buf, size, "systemctl %s dbus", action);
	else if (access("/etc/init.d/dbus", X_OK) == 0)
		snprintf(buf, size, "/etc/init.d/dbus %s", action);
	else
		snprintf(buf, size, "dbus-daemon --system");
	return buf;
}

static bool say_fix_setup(const struct check *c, enum rtrun_fix fix)
{
	char cmd[64];

	switch (fix) {
	case RTRUN_FIX_INSTALL_SHIM:
		printf("fix: reinstall rtshim (make install) so that librtshim.so is in "
		       "<prefix>/lib/<multiarch>/rtshim beside <prefix>/bin/rtrun.\n");
		break;
	case RTRUN_FIX_PROGRAM:
		printf("fix: use rtrun -p N to make its main thread realtime before it starts, or "
		       "rtrun --pid PID -p N for its threads once it runs.\n");
		break;
	case RTRUN_FIX_INSTALL_CLIENT:
		printf("fix: reinstall rtshim (make install) so that %s is beside librtshim.so "
		       "(%s), with libdbus-1 installed.\n", RTSHIM_CLIENT_FILE, c->shim.native);
		break;
	case RTRUN_FIX_PORTAL:
		printf("fix: in this sandbox (%s) rtshim asks the Realtime portal "
		       "(org.freedesktop.portal.Realtime of xdg-desktop-portal) on the session bus: "
		       "make sure xdg-desktop-portal runs on the host and the sandbox may talk to "
		       "org.freedesktop.portal.Desktop (DBUS_SESSION_BUS_ADDRESS).\n", c->box);
		break;
	case RTRUN_FIX_BUS_HUNG:
		printf("fix: the system bus (%s) did not answer within %d ms: its dbus-daemon may be "
		       "hung or stopped; restart it (%s), or give a longer --timeout.\n",
		       c->bus.address, c->cfg.timeout_ms, bus_command("restart", cmd, sizeof cmd));
		break;
	case RTRUN_FIX_START_BUS:
		printf("fix: start the system bus (%s), or point DBUS_SYSTEM_BUS_ADDRESS at it "
		       "(now: %s).\n", bus_command("start", cmd, sizeof cmd), c->bus.address);
		break;
	default:
		return false;
	}
	return true;
}

static const char polkit_fix[] =
	"fix: polkit refuses realtime to this session. rtkit's shipped policy allows only active "
	"local sessions (not SSH, not inactive ones): log in at the seat, or allow it with a rule, "
	"e.g. as root in /etc/polkit-1/rules.d/49-rtkit-audio.rules:\n%s"
	"     then add yourself to the group the rule names (adduser %s audio) and log in again: a "
	"group takes effect only in a new login session.\n";

/* The fixes once the bus answers: rtkit, the limits, polkit. */
static void say_fix_rtkit(const struct check *c, enum rtrun_fix fix)
{
	char why[256];
	int max = c->lim.max_realtime_priority;

	switch (fix) {
	case RTRUN_FIX_START_RTKIT:
		printf("fix: rtkit is installed (%s) but not running, and the bus did not start it: "
		       "start it (systemctl start rtkit-daemon, or service rtkit start), and check "
		       "its log (journalctl -u rtkit-daemon, or syslog).\n", RTRUN_RTKIT_DAEMON);
		break;
	case RTRUN_FIX_INSTALL_RTKIT:
		printf("fix: install and enable rtkit (Debian/Ubuntu: apt install rtkit; it is "
		       "started on demand through the bus).\n");
		break;
	case RTRUN_FIX_RTKIT_HUNG:
		printf("fix: rtkit-daemon did not answer within %d ms: it may be hung; restart it "
		       "(systemctl restart rtkit-daemon), or give a longer --timeout.\n",
		       c->cfg.timeout_ms);
		break;
	case RTRUN_FIX_NOT_RTKIT:
		printf("fix: whatever answers as org.freedesktop.RealtimeKit1 is not a working "
		       "rtkit-daemon (%s).\n", rtrun_rtkit_strerror(c->f.limits));
		break;
	case RTRUN_FIX_RTTIME_ZERO:
		printf("fix: RLIMIT_RTTIME is 0 in this shell, so a realtime thread would be killed at "
		       "once; start programs from a shell without that limit.\n");
		break;
	case RTRUN_FIX_STRICT:
		printf("fix: --strict (RTSHIM_STRICT=1) refuses priority %d, above rtkit's maximum %d: "
		       "ask for 1..%d, or drop --strict to have it lowered.\n", c->want, max, max);
		break;
	case RTRUN_FIX_POLKIT:
		printf(polkit_fix, polkit_rule, c->pw ? c->pw->pw_name : "$USER");
		break;
	case RTRUN_FIX_CANARY:
		printf("fix: rtkit refused although polkit allows it: rtkit refuses everything for "
		       "300 s after its canary fired (see rtkit-daemon's log); try again later.\n");
		break;
	case RTRUN_FIX_NO_POLKITD:
		printf("fix: rtkit could not check the request: polkitd is not running, or rtrun runs "
		       "in a PID namespace of its own (a container); start polkitd, or run on the "
		       "host.\n");
		break;
	case RTRUN_FIX_BUDGET:
		printf("fix: rtkit's per-user limits are reached (by default 25 realtime threads, 15 "
		       "processes, 25 requests per 20 s for all your programs): end other realtime "
		       "programs or wait 20 s; an admin raises them with rtkit-daemon's "
		       "--threads-per-user-max, --processes-per-user-max and "
		       "--actions-per-burst-max.\n");
		break;
	case RTRUN_FIX_PORTAL_FAILED:
		printf("fix: the Realtime portal answered, then failed the request with an error of "
		       "its own, not rtkit's; its log tells why (journalctl --user -u "
		       "xdg-desktop-portal).  'Could not get pidns for pid N' there is "
		       "xdg-desktop-portal 1.20's known fault (Debian 13; flatpak/xdg-desktop-portal "
		       "issues 1653 and 1756): that portal grants realtime to no program.\n");
		break;
	default:
		printf("fix: %s.\n", rtrun_rt_error_text(&c->res, why, sizeof why));
		break;
	}
}

static int say_verdict(const struct check *c)
{
	struct rtrun_verdict v = rtrun_verdict(&c->f);
	char who[PATH_MAX + 64];

	putchar('\n');
	if (v.answer != RTRUN_NO) {
		say_yes(c, v.answer);
		return 0;
	}
	if (v.fix == RTRUN_FIX_INSTALL_SHIM) {
		printf("no: rtrun cannot preload librtshim.so.\n");
	} else {
		subject(c, who, sizeof who);
		/* "… get" / "… gets" → "… will not get" */
		printf("no: %.*s will not get realtime.\n", (int)(strrchr(who, ' ') - who), who);
	}
	if (c->res.nice && v.fix != RTRUN_FIX_PROGRAM)
		printf("note: their threads that ask for realtime get rtkit's nice level %d instead "
		       "(--nice-fallback=refused, the default); their calls still fail as they would "
		       "without rtrun.\n", c->lim.min_nice_level);
	if (!say_fix_setup(c, v.fix))
		say_fix_rtkit(c, v.fix);
	return 1;
}

int rtrun_check(const struct rtrun_options *o, char *const *program)
{
	struct check c = {
		.o = o, .want = o->priority ? o->priority : 1, .pw = getpwuid(getuid()),
		.box = sandbox(), .cap = rtrun_have_cap_sys_nice(),
		.f = { .bus = -ENOTCONN, .limits = -ENOTCONN, .polkit = -ENOTCONN,
		       .rtkit_installed = access(RTRUN_RTKIT_DAEMON, X_OK) == 0 },
	};
	int bad = 0, r;

	/* what the shim in a command started with these options would use, its timeout included */
	if (rtrun_options_to_env(o) < 0)
		return 1;
	bad = rtrun_config_load(&c.cfg, NULL, NULL, false);
	rtrun_client_set_timeout_ms(c.cfg.timeout_ms);

	if (program[0] && (r = find_program(&c, program[0])) != 0)
		return r;
	printf("rtrun --check for user %s (uid %u)\n\n", c.pw ? c.pw->pw_name : "?",
	       (unsigned)getuid());
	show_limits(&c);
	show_setup(&c, bad);
	if (c.program_arg)
		show_program(&c);
	try_direct(&c);
	if (c.doctor && c.box)
		probe_portal(&c);
	else if (c.doctor)
		probe_bus(&c);
	if (c.f.limits == 0)
		try_grant(&c);
	/* rtkit's own answer, when it was asked (the program would see EPERM in every case) */
	c.f.sandbox = c.box != NULL;
	c.f.why = c.res.d.why;
	c.f.rtkit_said = c.res.d.why == RTSHIM_WHY_REFUSED ? c.res.d.why_err : 0;
	return say_verdict(&c);
}
