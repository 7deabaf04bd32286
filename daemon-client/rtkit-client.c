/* rtkit-client.c — rtkit's methods and properties, and the exported API, on wire-bus.h: each
 * API call opens its own connection, asks, and closes it before returning.  No allocation, no
 * lock, no fork handler, nothing kept between calls but the limits (read once per process) and
 * two stamps, each one atomic word:
 * - A silent daemon: once a call timed out, later calls do not each wait the whole timeout
 *   again.  For SILENT_QUIET_MS they fail at once (-ETIMEDOUT); then one call at a time asks,
 *   bounded by SILENT_PROBE_MS, while the others still fail at once.  An answer ends the
 *   silence (the daemon resumed: the next call is served); no answer starts it again.
 * - The PID namespace: rtkit reads the TIDs we send in the bus's PID namespace, so the bus is
 *   asked for our PID (GetConnectionUnixProcessID) before a TID is first sent: on the limits'
 *   connection (which the shim opens before its first grant), else on the first call's own;
 *   another PID than getpid() means another namespace (-EXDEV, nothing sent).  Kept with the
 *   PID it was read for: a child in a new PID namespace (or any child) asks again.
 * Properties through org.freedesktop.DBus.Properties.Get (rtkit 0.13 has no GetAll), each value
 * accepted as int32 or int64.  Every call writes what it can ask at once in its first write
 * (with the authentication and Hello) and reads the replies as they come: round trips, not
 * bytes, are what a call costs.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "client-internal.h"
#include "late-answer.h"
#include "raw-syscall.h"
#include "raw-time.h"
#include "rtkit-client.h"
#include "wire-bus.h"

#define BUS_NAME "org.freedesktop.DBus"
#define BUS_PATH "/org/freedesktop/DBus"
#define PROPERTIES_INTERFACE "org.freedesktop.DBus.Properties"

/* How long a silent daemon is left alone after a call timed out, and how long a call then waits
 * for it. */
#define SILENT_QUIET_MS 100
#define SILENT_PROBE_MS 100

static int timeout_ms = RTSHIM_CLIENT_DEFAULT_TIMEOUT_MS;
/* when the last call timed out (0: the daemon answers); 1 while a call asks a silent daemon */
static int64_t silent_since_ns;
static int probing;
/* (pid << 1) | another namespace, for process pid; 0: not known */
static int64_t pid_namespace;
/* published by limits_cached (release) after the three values */
static int32_t cached_prio, cached_nice;
static int64_t cached_rttime;
static int limits_cached;

void rtkit_set_timeout_ms(int ms)
{
	__atomic_store_n(&timeout_ms, ms > 0 ? ms : RTSHIM_CLIENT_DEFAULT_TIMEOUT_MS,
			 __ATOMIC_RELAXED);
}

void rtshim_conn_forget_silence(void)
{
	__atomic_store_n(&silent_since_ns, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&probing, 0, __ATOMIC_RELAXED);
}

enum silence { ASK, FAIL_AT_ONCE, ASK_SILENT };

/* What this call does about a silent daemon: ask as usual (it answers), fail at once, or ask it
 * with the short bound, as the one call that does. */
static enum silence silence(void)
{
	int64_t since = __atomic_load_n(&silent_since_ns, __ATOMIC_RELAXED);
	if (!since)
		return ASK;
	if (rtshim_raw_now_ns() - since < (int64_t)SILENT_QUIET_MS * 1000000)
		return FAIL_AT_ONCE;
	int idle = 0;
	return __atomic_compare_exchange_n(&probing, &idle, 1, false, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED) ? ASK_SILENT : FAIL_AT_ONCE;
}

/* One API call's connection. */
struct session {
	struct rtshim_wire_conn conn;
	const struct rtshim_backend *backend;
	int64_t deadline;
	int cancel_state;
	bool asked;            /* the bus was asked (not failed at once for a silent daemon) */
	bool probe;            /* ... as the one call that asks a silent daemon */
};

/* Connected (the authentication and Hello queued): 0, or the error, with nothing open.  A thread
 * is never cancelled inside a call (send, recv and close are cancellation points): its state is
 * restored by end(). */
static int begin(struct session *s)
{
	char address[512];
	int r;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &s->cancel_state);
	s->conn.fd = -1;
	s->backend = rtshim_backend();
	int ms = __atomic_load_n(&timeout_ms, __ATOMIC_RELAXED);
	enum silence what = silence();
	/* the daemon still works on a request of ours that timed out (late-answer.h) */
	if (rtshim_late_pending())
		what = FAIL_AT_ONCE;
	s->asked = what != FAIL_AT_ONCE;
	s->probe = what == ASK_SILENT;
	if (!s->asked)
		return -ETIMEDOUT;
	if (s->probe && ms > SILENT_PROBE_MS)
		ms = SILENT_PROBE_MS;
	s->deadline = rtshim_raw_now_ns() + (int64_t)ms * 1000000;
	/* the system bus (rtkit), or in a sandbox the session bus (the Realtime portal) */
	if (rtshim_backend_address(s->backend, address, sizeof address) < 0)
		r = -ENOTCONN;
	else
		r = rtshim_wire_open(&s->conn, address, s->deadline);
	return r;
}

/* Close, note whether the daemon answered (when it was asked), and return r. */
static int end(struct session *s, int r)
{
	int saved = errno;
	rtshim_wire_close(&s->conn);
	if (s->asked)
		__atomic_store_n(&silent_since_ns, r == -ETIMEDOUT ? rtshim_raw_now_ns() : 0,
				 __ATOMIC_RELAXED);
	if (s->probe)
		__atomic_store_n(&probing, 0, __ATOMIC_RELEASE);
	pthread_setcancelstate(s->cancel_state, NULL);
	errno = saved;
	return r;
}

/* The reply to `serial`: 0 and a method return in *m, or the error (an error reply mapped with
 * `map`). */
static int reply(struct session *s, uint32_t serial, struct rtshim_wire_msg *m,
		 int (*map)(const char *, const char *))
{
	int r = rtshim_wire_reply(&s->conn, serial, s->deadline, m);
	if (r < 0)
		return r;
	if (m->type == RTSHIM_WIRE_ERROR)
		return map(m->error_name, rtshim_wire_error_message(m));
	return 0;
}

/* Queue GetConnectionUnixProcessID(name): its serial, or -ENOSPC. */
static long queue_pid_of(struct session *s, const char *name)
{
	struct rtshim_wire_arg arg = { .type = 's', .s = name };
	struct rtshim_wire_call c = { .destination = BUS_NAME, .path = BUS_PATH,
				      .interface = BUS_NAME, .member = "GetConnectionUnixProcessID",
				      .signature = "s", .args = &arg };
	return rtshim_wire_queue(&s->conn, &c);
}

/* Hello's reply `m` (a method return: our unique name) read: GetConnectionUnixProcessID of
 * that name queued; its serial, or -ENOTCONN (Hello refused), -EPROTO, -ENOMEM. */
static long queue_pid_of_us(struct session *s, const struct rtshim_wire_msg *m)
{
	const char *name;
	if (m->type == RTSHIM_WIRE_ERROR) {
		int r = rtshim_errno_from_connect_error(m->error_name, rtshim_wire_error_message(m));
		return r == -ETIMEDOUT || r == -ENOMEM ? r : -ENOTCONN;
	}
	if (rtshim_wire_body_string(m, &name) < 0)
		return -EPROTO;
	long serial = queue_pid_of(s, name);
	return serial < 0 ? -ENOMEM : serial;
}

/* The bus's PID for this connection, from its unique name (Hello's reply). */
static int bus_pid_of_us(struct session *s, uint32_t *pid)
{
	struct rtshim_wire_msg m;
	int r = rtshim_wire_reply(&s->conn, RTSHIM_WIRE_HELLO_SERIAL, s->deadline, &m);
	if (r < 0)
		return r == -ETIMEDOUT || r == -ENOMEM ? r : -ENOTCONN;
	long serial = queue_pid_of_us(s, &m);
	if (serial < 0)
		return (int)serial;
	r = reply(s, (uint32_t)serial, &m, rtshim_errno_from_dbus_error);
	return r < 0 ? r : rtshim_wire_body_u32(&m, pid);
}

/* Whether this process's PID namespace, as the bus sees it, still has to be asked. */
static bool pid_namespace_unknown(void)
{
	int64_t known = __atomic_load_n(&pid_namespace, __ATOMIC_RELAXED);
	return !known || known >> 1 != getpid();
}

/* Keep what the bus said our PID is: true when it reads PIDs in another namespace. */
static bool note_bus_pid(uint32_t seen)
{
	pid_t self = getpid();
	bool other = seen != (uint32_t)self;
	__atomic_store_n(&pid_namespace, (int64_t)self << 1 | other, __ATOMIC_RELAXED);
	return other;
}

/* 0 when the bus reads our PIDs in our own namespace, -EXDEV when not, or the error of asking.
 * A bus that cannot say keeps the assumption of the same namespace for this call; a timeout is
 * an error.  Only the bus's answer is kept: a failed exchange asks again next time. */
static int same_pid_namespace(struct session *s)
{
	if (!pid_namespace_unknown())
		return __atomic_load_n(&pid_namespace, __ATOMIC_RELAXED) & 1 ? -EXDEV : 0;
	uint32_t seen = 0;
	int r = bus_pid_of_us(s, &seen);
	if (r == -ETIMEDOUT || r == -ENOMEM)
		return r;
	return r == 0 && note_bus_pid(seen) ? -EXDEV : 0;
}

/* rtkit's three limits, in the order they are asked. */
enum { LIMIT_PRIO, LIMIT_NICE, LIMIT_RTTIME, LIMITS };
static const char *const limit_names[LIMITS] = { "MaxRealtimePriority", "MinNiceLevel",
						 "RTTimeUSecMax" };

/* Queue Properties.Get(interface, property): its serial, or -ENOSPC. */
static long queue_get_property(struct session *s, const char *property)
{
	struct rtshim_wire_arg args[2] = { { .type = 's', .s = s->backend->interface },
					   { .type = 's', .s = property } };
	struct rtshim_wire_call c = { .destination = s->backend->service, .path = s->backend->path,
				      .interface = PROPERTIES_INTERFACE, .member = "Get",
				      .signature = "ss", .args = args };
	return rtshim_wire_queue(&s->conn, &c);
}

/* The three limits into value[], asked in one write with the authentication and Hello, their
 * replies read as they come.  When this process's PID namespace is not known yet (and the
 * backend is rtkit), the bus is asked for our PID on the same connection once Hello's reply
 * gives our name: the first grant then needs no round trip of its own for it.  0, or the
 * error of the limits (the PID's answer, or its absence, changes nothing but what is kept). */
static int read_limits(struct session *s, int64_t value[LIMITS])
{
	long first = 0;
	for (int i = 0; i < LIMITS; i++) {
		long serial = queue_get_property(s, limit_names[i]);
		if (serial < 0)
			return -ENOMEM;
		if (i == 0)
			first = serial;
	}
	bool ask_pid = !s->backend->portal && pid_namespace_unknown();
	uint32_t lo = ask_pid ? RTSHIM_WIRE_HELLO_SERIAL : (uint32_t)first;
	uint32_t hi = (uint32_t)first + LIMITS - 1, pid_serial = 0;
	unsigned have = 0, all = (1u << LIMITS) - 1;
	int r = 0;
	while (have != all || pid_serial) {
		struct rtshim_wire_msg m;
		if ((r = rtshim_wire_reply_among(&s->conn, lo, hi, s->deadline, &m)) < 0)
			break;
		uint32_t at = m.reply_serial;
		if (at == RTSHIM_WIRE_HELLO_SERIAL) {
			long serial = queue_pid_of_us(s, &m);
			if (serial > 0)
				hi = pid_serial = (uint32_t)serial;
			lo = (uint32_t)first;
			continue;
		}
		if (at == pid_serial) {
			uint32_t seen;
			if (m.type == RTSHIM_WIRE_METHOD_RETURN && rtshim_wire_body_u32(&m, &seen) == 0)
				note_bus_pid(seen);
			pid_serial = 0;
			hi = (uint32_t)first + LIMITS - 1;
			continue;
		}
		int i = (int)(at - (uint32_t)first);
		if (m.type == RTSHIM_WIRE_ERROR)
			r = rtshim_errno_from_dbus_error(m.error_name, rtshim_wire_error_message(&m));
		else
			r = rtshim_wire_body_variant_int(&m, &value[i]);
		if (r < 0)
			break;
		have |= 1u << i;
	}
	return have == all ? 0 : r;
}

static void limits_from_cache(struct rtkit_limits *out)
{
	out->max_realtime_priority = __atomic_load_n(&cached_prio, __ATOMIC_RELAXED);
	out->min_nice_level = __atomic_load_n(&cached_nice, __ATOMIC_RELAXED);
	out->rttime_usec_max = __atomic_load_n(&cached_rttime, __ATOMIC_RELAXED);
}

int rtkit_get_limits(struct rtkit_limits *out)
{
	struct session s;
	int64_t value[LIMITS];
	int r;

	if (!out)
		return -EINVAL;
	if (__atomic_load_n(&limits_cached, __ATOMIC_ACQUIRE)) {
		limits_from_cache(out);
		return 0;
	}
	if ((r = begin(&s)) < 0 || (r = read_limits(&s, value)) < 0)
		return end(&s, r);
	int64_t prio = value[LIMIT_PRIO], nice = value[LIMIT_NICE], rttime = value[LIMIT_RTTIME];
	/* Values rtkit itself would never report mean we are not talking to rtkit. */
	if (prio < 1 || prio > 99 || nice < -20 || nice > 19 || rttime < 0)
		return end(&s, -EPROTO);
	/* two threads may both read them: they store the same values */
	__atomic_store_n(&cached_prio, (int32_t)prio, __ATOMIC_RELAXED);
	__atomic_store_n(&cached_nice, (int32_t)nice, __ATOMIC_RELAXED);
	__atomic_store_n(&cached_rttime, rttime, __ATOMIC_RELAXED);
	__atomic_store_n(&limits_cached, 1, __ATOMIC_RELEASE);
	limits_from_cache(out);
	return end(&s, 0);
}

/* Once the call timed out: 0 if the kernel shows the grant already, else -ETIMEDOUT, the
 * connection handed to a watcher that undoes a late grant (late-answer.h). */
static int timed_out(struct session *s, uint32_t serial, const struct rtshim_late_undo *u)
{
	if (rtshim_late_granted(u))
		return 0;
	rtshim_late_hand_over(&s->conn, serial, u);
	return -ETIMEDOUT;
}

/* MakeThread<what>(t thread, <type> value) or MakeThread<what>WithPID(t process, t thread, ...),
 * with an empty reply; `realtime`: what the thread is when granted (realtime at `value`, or else
 * nice `value`). */
static int make_thread(const char *method, const char *method_with_pid, pid_t pid, pid_t tid,
		       struct rtshim_wire_arg value, bool realtime)
{
	struct session s;
	struct rtshim_wire_msg m;
	int r = begin(&s);
	if (r < 0)
		return end(&s, r);
	const struct rtshim_backend *b = s.backend;
	/* the portal has the WithPID methods only; it maps our (sandbox) PIDs to the host's */
	if (b->portal && pid == 0)
		pid = getpid();
	/* rtkit reads our TIDs in the bus's PID namespace: never send one from another (the portal
	 * maps a sandbox's PIDs itself) */
	if (!b->portal && (r = same_pid_namespace(&s)) < 0)
		return end(&s, r);

	char sig[4] = { 't', 't', value.type, '\0' };
	struct rtshim_wire_arg args[3] = { { .type = 't', .t = (uint64_t)pid },
					   { .type = 't', .t = (uint64_t)tid }, value };
	struct rtshim_wire_call c = { .destination = b->service, .path = b->path,
				      .interface = b->interface, .member = method_with_pid,
				      .signature = sig, .args = args };
	if (!b->portal && (pid == 0 || pid == getpid())) {
		c.member = method;
		c.signature = sig + 1;
		c.args = args + 1;
	}
	struct rtshim_late_undo undo;
	rtshim_late_before(pid, tid, realtime, realtime ? (int)value.u : value.i, &undo);
	long serial = rtshim_wire_queue(&s.conn, &c);
	if (serial < 0)
		return end(&s, -ENOMEM);
	r = reply(&s, (uint32_t)serial, &m, rtshim_errno_from_dbus_error);
	if (r == -ETIMEDOUT)
		r = timed_out(&s, (uint32_t)serial, &undo);
	else if (r == 0 && m.signature[0])
		r = -EPROTO;
	return end(&s, r);
}

int rtkit_make_realtime(pid_t pid, pid_t tid, int priority)
{
	/* Ranges are rtkit's business (it answers EINVAL or EPERM); only what the wire cannot
	 * carry, and tid 0 (which rtkit reads as "the main thread"), are refused here. */
	if (pid < 0 || tid <= 0 || priority < 0)
		return -EINVAL;
	int r = make_thread("MakeThreadRealtime", "MakeThreadRealtimeWithPID", pid, tid,
			    (struct rtshim_wire_arg){ .type = 'u', .u = (uint32_t)priority }, true);
	/* A success is the kernel's to show: something other than rtkit may own its name (a
	 * user's own bus as the system bus, a test double).  Read with the raw system call:
	 * the shim's own reader would wait for this very request. */
	if (r == 0) {
		long policy = rtshim_raw_syscall(SYS_sched_getscheduler, (long)tid);
		if (policy >= 0 && (policy & ~SCHED_RESET_ON_FORK) != SCHED_FIFO &&
		    (policy & ~SCHED_RESET_ON_FORK) != SCHED_RR)
			r = -EPROTO;
	}
	return r;
}

int rtkit_make_high_priority(pid_t pid, pid_t tid, int nice)
{
	if (pid < 0 || tid <= 0)
		return -EINVAL;
	return make_thread("MakeThreadHighPriority", "MakeThreadHighPriorityWithPID", pid, tid,
			   (struct rtshim_wire_arg){ .type = 'i', .i = nice }, false);
}

/* rtkit's PID is asked in the first write with the authentication and Hello; ours, when this
 * process's PID namespace is not known yet, once Hello's reply names us.  A bus that cannot say
 * ours keeps the assumption of the same namespace, as same_pid_namespace does. */
int rtkit_daemon_pid(pid_t *pid)
{
	struct session s;
	struct rtshim_wire_msg m;
	uint32_t seen = 0;
	int r = begin(&s);
	if (r < 0)
		return end(&s, r);
	if (s.backend->portal) /* the portal's owner is not rtkit */
		return end(&s, -ENOTSUP);
	long daemon = queue_pid_of(&s, s.backend->service);
	if (daemon < 0)
		return end(&s, -ENOMEM);
	uint32_t lo = pid_namespace_unknown() ? RTSHIM_WIRE_HELLO_SERIAL : (uint32_t)daemon, us = 0;
	bool answered = false;
	while (!answered || us) {
		uint32_t hi = us ? us : (uint32_t)daemon;
		if ((r = rtshim_wire_reply_among(&s.conn, lo, hi, s.deadline, &m)) < 0)
			return end(&s, r);
		if (m.reply_serial == RTSHIM_WIRE_HELLO_SERIAL) {
			long serial = queue_pid_of_us(&s, &m);
			if (serial == -ETIMEDOUT || serial == -ENOMEM)
				return end(&s, (int)serial);
			us = serial > 0 ? (uint32_t)serial : 0;
			lo = (uint32_t)daemon;
		} else if (us && m.reply_serial == us) {
			uint32_t ours;
			if (m.type == RTSHIM_WIRE_METHOD_RETURN && rtshim_wire_body_u32(&m, &ours) == 0)
				note_bus_pid(ours);
			us = 0;
		} else {
			answered = true;
			if (m.type == RTSHIM_WIRE_ERROR)
				r = rtshim_errno_from_dbus_error(m.error_name,
								 rtshim_wire_error_message(&m));
			else
				r = rtshim_wire_body_u32(&m, &seen);
			if (r < 0)
				return end(&s, r);
		}
	}
	if (!pid_namespace_unknown() && __atomic_load_n(&pid_namespace, __ATOMIC_RELAXED) & 1)
		return end(&s, -EXDEV);
	*pid = (pid_t)seen;
	return end(&s, 0);
}

const struct rtshim_client_v1 rtshim_client_v1 = {
	.set_timeout_ms = rtkit_set_timeout_ms,
	.get_limits = rtkit_get_limits,
	.make_realtime = rtkit_make_realtime,
	.make_high_priority = rtkit_make_high_priority,
	.strerror = rtkit_strerror,
	.daemon_pid = rtkit_daemon_pid,
};
