/* rtkit-client.c — rtkit's methods and properties, and the exported API.
 *
 * Properties through org.freedesktop.DBus.Properties.Get (rtkit 0.13 has no GetAll), each
 * value accepted as int32 or int64; the three are read once per process and cached.
 * Every libdbus call (messages included: libdbus has global locks of its own) runs under the
 * connection lock, so a fork never happens while this library is inside libdbus.
 */
#include <errno.h>
#include <stdint.h>
#include <unistd.h>

#include "client-internal.h"
#include "rtkit-client.h"

/* Written once under the connection lock, then published by limits_cached. */
static struct rtkit_limits limits_cache;
static int limits_cached;

/* With the lock held: the value of one of rtkit's integer properties. */
static int get_property_locked(const char *property, const struct timespec *deadline,
			       int64_t *out)
{
	const struct rtshim_backend *b = rtshim_backend();
	const char *interface = b->interface;
	DBusMessage *m, *reply = NULL;
	DBusMessageIter it, variant;
	int r;

	m = dbus_message_new_method_call(b->service, b->path, DBUS_INTERFACE_PROPERTIES, "Get");
	if (!m)
		return -ENOMEM;
	if (!dbus_message_append_args(m, DBUS_TYPE_STRING, &interface, DBUS_TYPE_STRING, &property,
				      DBUS_TYPE_INVALID)) {
		dbus_message_unref(m);
		return -ENOMEM;
	}

	r = rtshim_conn_call_locked(m, deadline, &reply);
	dbus_message_unref(m);
	if (r < 0)
		return r;

	r = -EPROTO;
	if (!dbus_message_has_signature(reply, "v") || !dbus_message_iter_init(reply, &it))
		goto out;
	dbus_message_iter_recurse(&it, &variant);
	switch (dbus_message_iter_get_arg_type(&variant)) {
	case DBUS_TYPE_INT32: {
		dbus_int32_t v;

		dbus_message_iter_get_basic(&variant, &v);
		*out = v;
		r = 0;
		break;
	}
	case DBUS_TYPE_INT64: {
		dbus_int64_t v;

		dbus_message_iter_get_basic(&variant, &v);
		*out = v;
		r = 0;
		break;
	}
	default:
		break;
	}
out:
	dbus_message_unref(reply);
	return r;
}

int rtkit_get_limits(struct rtkit_limits *out)
{
	struct timespec deadline;
	int64_t prio, nice, rttime;
	int r;

	if (!out)
		return -EINVAL;
	if (__atomic_load_n(&limits_cached, __ATOMIC_ACQUIRE)) {
		*out = limits_cache;
		return 0;
	}

	rtshim_deadline_start(&deadline);
	r = rtshim_conn_lock(&deadline);
	if (r < 0)
		return r;
	if (__atomic_load_n(&limits_cached, __ATOMIC_RELAXED)) {
		/* Another thread read them while we waited for the lock. */
		*out = limits_cache;
		goto unlock;
	}

	if ((r = get_property_locked("MaxRealtimePriority", &deadline, &prio)) < 0 ||
	    (r = get_property_locked("MinNiceLevel", &deadline, &nice)) < 0 ||
	    (r = get_property_locked("RTTimeUSecMax", &deadline, &rttime)) < 0)
		goto unlock;

	/* Values rtkit itself would never report mean we are not talking to rtkit. */
	if (prio < 1 || prio > 99 || nice < -20 || nice > 19 || rttime < 0) {
		r = -EPROTO;
		goto unlock;
	}

	limits_cache.max_realtime_priority = (int32_t)prio;
	limits_cache.min_nice_level = (int32_t)nice;
	limits_cache.rttime_usec_max = rttime;
	__atomic_store_n(&limits_cached, 1, __ATOMIC_RELEASE);
	*out = limits_cache;
unlock:
	rtshim_conn_unlock();
	return r;
}

/* MakeThread<what>(t thread, <sig> value) or MakeThread<what>WithPID(t process, t thread, ...),
 * with an empty reply. */
static int make_thread(const char *method, const char *method_with_pid, pid_t pid, pid_t tid,
		       int value_type, const void *value)
{
	const struct rtshim_backend *b = rtshim_backend();
	struct timespec deadline;
	DBusMessage *m, *reply = NULL;
	dbus_uint64_t process, thread = (dbus_uint64_t)tid;
	dbus_bool_t ok;
	int r;

	/* the portal has the WithPID methods only; it maps our (sandbox) PIDs to the host's */
	if (b->portal && pid == 0)
		pid = getpid();
	process = (dbus_uint64_t)pid;

	rtshim_deadline_start(&deadline);
	r = rtshim_conn_lock(&deadline);
	if (r < 0)
		return r;
	/* rtkit reads our TIDs in the bus's PID namespace: never send one from another (the
	 * portal maps a sandbox's PIDs itself) */
	if (!b->portal && (r = rtshim_conn_ready_locked(&deadline)) < 0) {
		rtshim_conn_unlock();
		return r;
	}

	if (!b->portal && (pid == 0 || pid == getpid())) {
		m = dbus_message_new_method_call(b->service, b->path, b->interface, method);
		ok = m && dbus_message_append_args(m, DBUS_TYPE_UINT64, &thread, value_type, value,
						   DBUS_TYPE_INVALID);
	} else {
		m = dbus_message_new_method_call(b->service, b->path, b->interface, method_with_pid);
		ok = m && dbus_message_append_args(m, DBUS_TYPE_UINT64, &process, DBUS_TYPE_UINT64,
						   &thread, value_type, value, DBUS_TYPE_INVALID);
	}
	if (!ok) {
		r = -ENOMEM;
		goto out;
	}

	r = rtshim_conn_call_locked(m, &deadline, &reply);
	if (r == 0 && !dbus_message_has_signature(reply, ""))
		r = -EPROTO;
out:
	if (reply)
		dbus_message_unref(reply);
	if (m)
		dbus_message_unref(m);
	rtshim_conn_unlock();
	return r;
}

int rtkit_make_realtime(pid_t pid, pid_t tid, int priority)
{
	dbus_uint32_t prio;

	/* Ranges are rtkit's business (it answers EINVAL or EPERM); only what the wire cannot
	 * carry, and tid 0 (which rtkit reads as "the main thread"), are refused here. */
	if (pid < 0 || tid <= 0 || priority < 0)
		return -EINVAL;
	prio = (dbus_uint32_t)priority;
	return make_thread("MakeThreadRealtime", "MakeThreadRealtimeWithPID", pid, tid,
			   DBUS_TYPE_UINT32, &prio);
}

int rtkit_make_high_priority(pid_t pid, pid_t tid, int nice)
{
	dbus_int32_t n = nice;

	if (pid < 0 || tid <= 0)
		return -EINVAL;
	return make_thread("MakeThreadHighPriority", "MakeThreadHighPriorityWithPID", pid, tid,
			   DBUS_TYPE_INT32, &n);
}

RTSHIM_EXPORT const struct rtshim_client_v1 rtshim_client_v1 = {
	.set_timeout_ms = rtkit_set_timeout_ms,
	.get_limits = rtkit_get_limits,
	.make_realtime = rtkit_make_realtime,
	.make_high_priority = rtkit_make_high_priority,
	.strerror = rtkit_strerror,
};
