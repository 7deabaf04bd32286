/* check.c — `rtrun --check`: would a program started with rtrun get realtime, at what
 * priority, and if not, why and what fixes it.  Every answer comes from trying: the direct
 * call and rtkit are each asked to make a short-lived helper thread of rtrun realtime at
 * priority 1 (or -p N), which is then dropped and ended.  Exit status 0 yes, 1 no. */
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
#include "client-open.h"
#include "rtkit-client.h"
#include "rtrun.h"

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

/* the client's rule (core/sandbox.c): then it asks the Realtime portal, never rtkit */
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

static void config_warn(void *ctx, const struct rtshim_config_var *var, const char *value)
{
	int *bad = ctx;

	item("environment", "%s=\"%s\" is not valid (accepted: %s): the shim uses %s", var->name,
	     value, var->accepted, var->default_text);
	(*bad)++;
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

int rtrun_check(const struct rtrun_options *o)
{
	int timeout = o->timeout_ms ? o->timeout_ms : RTRUN_CHECK_TIMEOUT_MS;
	struct rtshim_config cfg;
	struct rlimit rtprio, rttime, memlock;
	struct rtrun_shim shim;
	struct rtshim_bus_report bus;
	const struct rtshim_client_v1 *client = NULL;
	const struct rtshim_doctor_v1 *doctor = NULL;
	struct rtkit_limits lim;
	struct helper h;
	struct passwd *pw = getpwuid(getuid());
	char b1[32], b2[32], pol[64];
	const char *box = sandbox();
	struct rtrun_rt_result res;
	int shim_r, limits_r = -ENOTCONN, grant_r = -ENOTCONN, direct_r, bad = 0, rtkit_said;
	int want = o->priority ? o->priority : 1, granted_prio = 0, granted_policy = 0;
	int direct_max = 0;
	bool direct_ok = false, grant_ok = false, cap = rtrun_have_cap_sys_nice();
	char why[256], mapped[160];

	memset(&res, 0, sizeof res);
	rtrun_client_set_timeout_ms(timeout);
	/* what the shim in a command started with these options would use */
	if (rtrun_options_to_env(o) < 0)
		return 1;
	rtshim_config_load(&cfg, getenv, config_warn, &bad);

	printf("rtrun --check for user %s (uid %u)\n\n", pw ? pw->pw_name : "?", (unsigned)getuid());

	/* Limits of this shell: what a program started from it inherits. */
	getrlimit(RLIMIT_RTPRIO, &rtprio);
	getrlimit(RLIMIT_RTTIME, &rttime);
	if (cap)
		item("RLIMIT_RTPRIO", "soft %s, hard %s, but CAP_SYS_NICE allows any priority directly",
		     rtrun_rlim_text(rtprio.rlim_cur, b1, sizeof b1),
		     rtrun_rlim_text(rtprio.rlim_max, b2, sizeof b2));
	else if (rtprio.rlim_cur == 0)
		item("RLIMIT_RTPRIO", "soft 0, hard %s: direct realtime requests fail with EPERM, so "
		     "rtkit is needed", rtrun_rlim_text(rtprio.rlim_max, b2, sizeof b2));
	else
		item("RLIMIT_RTPRIO", "soft %s, hard %s: direct requests up to that priority succeed",
		     rtrun_rlim_text(rtprio.rlim_cur, b1, sizeof b1),
		     rtrun_rlim_text(rtprio.rlim_max, b2, sizeof b2));
	if (rttime.rlim_max == 0 || rttime.rlim_cur == 0)
		item("RLIMIT_RTTIME", "soft %s, hard %s: a realtime thread would be killed at once",
		     rtrun_rlim_text(rttime.rlim_cur, b1, sizeof b1),
		     rtrun_rlim_text(rttime.rlim_max, b2, sizeof b2));
	else
		item("RLIMIT_RTTIME", "soft %s, hard %s (us): before asking rtkit the shim lowers the "
		     "hard limit to at most %lld us",
		     rtrun_rlim_text(rttime.rlim_cur, b1, sizeof b1),
		     rtrun_rlim_text(rttime.rlim_max, b2, sizeof b2), (long long)cfg.rttime_us);
	getrlimit(RLIMIT_MEMLOCK, &memlock);
	if (memlock.rlim_cur != RLIM_INFINITY && memlock.rlim_cur < RTRUN_MEMLOCK_WANTED)
		item("RLIMIT_MEMLOCK", "soft %s, hard %s bytes: programs that lock their memory "
		     "(jackd -R: \"Cannot lock down ... memory\") cannot; raise it for your group, "
		     "e.g. '@audio - memlock unlimited' in /etc/security/limits.d/audio.conf, and "
		     "log in again", rtrun_rlim_text(memlock.rlim_cur, b1, sizeof b1),
		     rtrun_rlim_text(memlock.rlim_max, b2, sizeof b2));
	else
		item("RLIMIT_MEMLOCK", "soft %s, hard %s bytes: enough to lock an audio program's "
		     "memory", rtrun_rlim_text(memlock.rlim_cur, b1, sizeof b1),
		     rtrun_rlim_text(memlock.rlim_max, b2, sizeof b2));
	item("sandbox", "%s", box ? box : "none detected");
	if (!bad)
		item("environment", "RTSHIM_* settings valid");

	shim_r = rtrun_locate_shim(&shim);
	if (shim_r == 0)
		item("librtshim.so", "%s%s%s", shim.native, shim.lib_token ? ", preloaded as " : "",
		     shim.lib_token ? shim.value : "");
	else if (shim_r == -EINVAL)
		item("librtshim.so", "%s: its path contains a space or colon, which LD_PRELOAD "
		     "cannot carry", shim.native);
	else
		item("librtshim.so", "not found (looked for %s%s%s)", shim.tried[0],
		     shim.tried[1][0] ? " and " : "", shim.tried[1]);

	if (shim_r != -ENOENT) {
		client = rtrun_client();
		doctor = client ? rtrun_doctor() : NULL;
		if (doctor)
			item("daemon client", "%s loaded", RTSHIM_CLIENT_FILE);
		else
			item("daemon client", "cannot be loaded: %s", rtrun_client_error());
	}

	/* Try the direct call on a helper thread. */
	direct_r = helper_start(&h);
	if (direct_r == 0) {
		struct sched_param sp = { .sched_priority = want };

		if (rtshim_raw_syscall(SYS_sched_setscheduler, h.tid, SCHED_RR | SCHED_RESET_ON_FORK, &sp) == 0) {
			direct_ok = true;
			drop(h.tid);
		} else {
			direct_r = -errno;
		}
		helper_stop(&h);
	}
	if (direct_ok) {
		direct_max = cap || rtprio.rlim_cur >= 99 ? 99 : (int)rtprio.rlim_cur;
		item("direct call", "allowed up to priority %d (a test thread got SCHED_RR %d)",
		     direct_max, want);
	} else {
		item("direct call", "refused: sched_setscheduler(SCHED_RR, %d): %s", want,
		     strerror(-direct_r));
	}

	memset(&bus, 0, sizeof bus);
	bus.bus = -ENOTCONN;
	if (!doctor) {
		/* Without the client nothing on the bus can be asked. */
	} else if (box) {
		/* inside a sandbox the client asks the Realtime portal, never rtkit directly */
		bus.bus = 0;
		bus.polkit = 1; /* not ours to check from here: the portal's host side does */
		limits_r = client->get_limits(&lim);
		if (limits_r == 0)
			item("portal", "org.freedesktop.portal.Realtime answers on the session "
			     "bus: MaxRealtimePriority %d, MinNiceLevel %d, RTTimeUSecMax %lld us",
			     lim.max_realtime_priority, lim.min_nice_level,
			     (long long)lim.rttime_usec_max);
		else
			item("portal", "org.freedesktop.portal.Realtime on the session bus does "
			     "not answer: %s", limits_r == -ENOTCONN
			     ? "no session bus, or no xdg-desktop-portal on it"
			     : rtrun_rtkit_strerror(limits_r));
	} else {
		doctor->bus_probe(timeout, &bus);
		if (bus.bus == 0)
			item("system bus", "%s answers", bus.address);
		else
			item("system bus", "%s does not answer: %s", bus.address, bus.bus_error);
	}

	if (doctor && !box && bus.bus == 0) {
		limits_r = client->get_limits(&lim);
		if (limits_r == 0)
			item("rtkit-daemon", "answers%s: MaxRealtimePriority %d, MinNiceLevel %d, "
			     "RTTimeUSecMax %lld us",
			     bus.rtkit_owner == 0 ? " (started on demand)" : "",
			     lim.max_realtime_priority, lim.min_nice_level,
			     (long long)lim.rttime_usec_max);
		else if (limits_r == -ENOTCONN && bus.rtkit_owner == 0 && bus.rtkit_activatable == 0)
			item("rtkit-daemon", "not running, and the bus cannot start it");
		else
			item("rtkit-daemon", "does not answer: %s", rtrun_rtkit_strerror(limits_r));

		if (bus.polkit == 1)
			item("polkit", "allows org.freedesktop.RealtimeKit1.acquire-real-time here");
		else if (bus.polkit == 2)
			item("polkit", "would allow acquire-real-time only after authentication, "
			     "which rtkit never asks for");
		else if (bus.polkit == 0)
			item("polkit", "refuses org.freedesktop.RealtimeKit1.acquire-real-time here");
		else if (bus.polkit == -ENOTCONN) /* polkit's name has no owner on the bus */
			item("polkit", "polkitd is not running: rtkit refuses every request without it");
		else
			item("polkit", "no answer: %s", bus.polkit_error);
	}

	/* The honest answer: ask for a helper thread exactly as the shim would under these
	 * options (the decision core), then drop it. */
	if (limits_r == 0) {
		if ((grant_r = helper_start(&h)) == 0) {
			struct rtrun_rt_request req = {
				.pid = 0, .tid = h.tid, .priority = want, .policy = SCHED_RR, .cfg = &cfg,
				.guard_in_command = true,
			};

			grant_r = rtrun_make_realtime(&req, &res);
			if (grant_r == 0 && rtrun_thread_sched(h.tid, &granted_policy, &granted_prio) == 0)
				grant_ok = true;
			drop(h.tid);
			helper_stop(&h);
			if (grant_ok && res.d.prio_changed)
				item("rtkit grant", "a test thread asking for priority %d got %s %d (%s), "
				     "then dropped", want, rtrun_policy_text(granted_policy, pol, sizeof pol),
				     granted_prio, map_text(&cfg, lim.max_realtime_priority, mapped,
							    sizeof mapped));
			else if (grant_ok)
				item("rtkit grant", "a test thread got %s %d (then dropped)",
				     rtrun_policy_text(granted_policy, pol, sizeof pol), granted_prio);
			else if (res.d.why == RTSHIM_WHY_REFUSED && grant_r == -EPERM &&
				 res.d.why_err == -EPERM)
				item("rtkit grant", "refused (EPERM) although RLIMIT_RTTIME and the "
				     "priority were within rtkit's limits: %s",
				     bus.polkit == 1 ? "rtkit itself refuses (canary)" : "polkit said no");
			else
				item("rtkit grant", "%s: %s", res.d.why == RTSHIM_WHY_REFUSED ? "refused"
				     : "not asked", rtrun_rt_error_text(&res, why, sizeof why));
		} else {
			item("rtkit grant", "not tried: cannot start a test thread: %s",
			     strerror(-grant_r));
		}
	}
	putchar('\n');
	/* rtkit's own answer, when it was asked (the program would see EPERM in every case) */
	rtkit_said = res.d.why == RTSHIM_WHY_REFUSED ? res.d.why_err : 0;

	if (shim_r < 0) {
		printf("no: rtrun cannot preload librtshim.so.\n");
		printf("fix: reinstall rtshim (make install) so that librtshim.so is in "
		       "<prefix>/lib/<multiarch>/rtshim beside <prefix>/bin/rtrun.\n");
		return 1;
	}
	if (direct_ok) {
		printf("yes: programs started with rtrun get realtime directly, at the priority they "
		       "ask for up to %d%s.\n", direct_max,
		       grant_ok && direct_max < 99 ? "; higher requests go through rtkit" : "");
		return 0;
	}
	if (grant_ok) {
		printf("yes: programs started with rtrun get realtime through rtkit: %s at priority "
		       "1..%d (%s).\n", rtrun_policy_text(granted_policy, pol, sizeof pol),
		       lim.max_realtime_priority,
		       map_text(&cfg, lim.max_realtime_priority, mapped, sizeof mapped));
		if (cfg.runaway == RTSHIM_RUNAWAY_DEMOTE)
			printf("note: their hard RLIMIT_RTTIME becomes %llu us; a realtime thread that "
			       "runs %llu us without sleeping is demoted to SCHED_OTHER so that the kernel "
			       "does not kill the program (--runaway).\n",
			       (unsigned long long)res.d.hard, (unsigned long long)res.d.soft);
		else
			printf("note: their hard RLIMIT_RTTIME becomes %llu us: a realtime thread that "
			       "runs that long without sleeping is killed (--runaway kill).\n",
			       (unsigned long long)res.d.hard);
		if (box)
			printf("note: inside this %s sandbox requests go through the Realtime portal "
			       "(xdg-desktop-portal), which forwards them to rtkit.\n", box);
		return 0;
	}

	printf("no: programs started with rtrun will not get realtime.\n");
	if (res.nice)
		printf("note: their threads that ask for realtime get rtkit's nice level %d instead "
		       "(--nice-fallback=refused, the default); their calls still fail as they would "
		       "without rtrun.\n", lim.min_nice_level);
	if (!doctor) {
		printf("fix: reinstall rtshim (make install) so that %s is beside librtshim.so "
		       "(%s), with libdbus-1 installed.\n", RTSHIM_CLIENT_FILE, shim.native);
		return 1;
	}
	if (box && limits_r < 0) {
		printf("fix: inside a %s sandbox rtshim asks the Realtime portal "
		       "(org.freedesktop.portal.Realtime of xdg-desktop-portal) on the session bus: "
		       "make sure xdg-desktop-portal runs on the host and the sandbox may talk to "
		       "org.freedesktop.portal.Desktop (DBUS_SESSION_BUS_ADDRESS).\n", box);
	} else if (bus.bus == -ETIMEDOUT) {
		printf("fix: the system bus (%s) did not answer within %d ms: its dbus-daemon may be "
		       "hung or stopped; restart it (systemctl restart dbus), or give a longer "
		       "--timeout.\n", bus.address, timeout);
	} else if (bus.bus < 0) {
		if (box)
			printf("fix: this %s sandbox has no system bus; give it access "
			       "(flatpak: --system-talk-name=org.freedesktop.RealtimeKit1) or run the "
			       "program outside the sandbox.\n", box);
		else
			printf("fix: start the system bus (dbus-daemon --system, or systemctl start "
			       "dbus), or point DBUS_SYSTEM_BUS_ADDRESS at it (now: %s).\n",
			       bus.address);
	} else if (limits_r == -ENOTCONN && access(RTRUN_RTKIT_DAEMON, X_OK) == 0) {
		printf("fix: rtkit is installed (%s) but not running, and the bus did not start it: "
		       "start it (systemctl start rtkit-daemon, or service rtkit start), and check "
		       "its log (journalctl -u rtkit-daemon, or syslog).\n", RTRUN_RTKIT_DAEMON);
	} else if (limits_r == -ENOTCONN) {
		printf("fix: install and enable rtkit (Debian/Ubuntu: apt install rtkit; it is "
		       "started on demand through the bus).\n");
	} else if (limits_r == -ETIMEDOUT || rtkit_said == -ETIMEDOUT) {
		printf("fix: rtkit-daemon did not answer within %d ms: it may be hung; restart it "
		       "(systemctl restart rtkit-daemon), or give a longer --timeout.\n", timeout);
	} else if (limits_r < 0) {
		printf("fix: whatever answers as org.freedesktop.RealtimeKit1 is not a working "
		       "rtkit-daemon (%s).\n", rtrun_rtkit_strerror(limits_r));
	} else if (res.d.why == RTSHIM_WHY_RTTIME_ZERO) {
		printf("fix: RLIMIT_RTTIME is 0 in this shell, so a realtime thread would be killed at "
		       "once; start programs from a shell without that limit.\n");
	} else if (res.d.why == RTSHIM_WHY_STRICT) {
		printf("fix: --strict (RTSHIM_STRICT=1) refuses priority %d, above rtkit's maximum %d: "
		       "ask for 1..%d, or drop --strict to have it lowered.\n", want,
		       lim.max_realtime_priority, lim.max_realtime_priority);
	} else if (rtkit_said == -EPERM && (bus.polkit == 0 || bus.polkit == 2)) {
		printf("fix: polkit refuses realtime to this session. rtkit's shipped policy allows "
		       "only active local sessions (not SSH, not inactive ones): log in at the seat, "
		       "or allow it with a rule, e.g. as root in "
		       "/etc/polkit-1/rules.d/49-rtkit-audio.rules:\n%s"
		       "     then add yourself to the group the rule names (adduser %s audio) and log "
		       "in again: a group takes effect only in a new login session.\n", polkit_rule,
		       pw ? pw->pw_name : "$USER");
	} else if (rtkit_said == -EPERM) {
		printf("fix: rtkit refused although polkit allows it: rtkit refuses everything for "
		       "300 s after its canary fired (see rtkit-daemon's log); try again later.\n");
	} else if (rtkit_said == -ENOENT) {
		printf("fix: rtkit could not check the request: polkitd is not running, or rtrun runs "
		       "in a PID namespace of its own (a container); start polkitd, or run on the "
		       "host.\n");
	} else if (rtkit_said == -EBUSY) {
		printf("fix: rtkit's per-user limits are reached (by default 25 realtime threads, 15 "
		       "processes, 25 requests per 20 s for all your programs): end other realtime "
		       "programs or wait 20 s.\n");
	} else {
		printf("fix: %s.\n", rtrun_rt_error_text(&res, why, sizeof why));
	}
	return 1;
}
