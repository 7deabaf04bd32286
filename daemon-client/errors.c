/* errors.c — D-Bus error replies → negative errno, and one-line explanations.
 *
 * Pure functions: no bus, no state, no libdbus (the error names are the specification's).
 * rtkit 0.13 sends EPERM/EACCES/EBUSY as AccessDenied and
 * everything else (but ENOMEM) as Failed, with strerror() as the message, so the message is
 * the only way to tell EBUSY from EPERM and EINVAL from ENOENT.
 */
#include <errno.h>
#include <string.h>

#include "client-internal.h"
#include "rtkit-client.h"

#define BUS_ERROR(name) "org.freedesktop.DBus.Error." name

static int name_is(const char *name, const char *what)
{
	return strcmp(name, what) == 0;
}

static int message_has(const char *message, const char *what)
{
	return message && strcasestr(message, what);
}

int rtshim_errno_from_dbus_error(const char *name, const char *message)
{
	if (!name || !*name)
		return -EIO;

	if (name_is(name, BUS_ERROR("AccessDenied")) ||
	    name_is(name, BUS_ERROR("InteractiveAuthorizationRequired")))
		return message_has(message, "busy") ? -EBUSY : -EPERM;

	if (name_is(name, BUS_ERROR("Failed"))) {
		if (message_has(message, "Invalid argument"))
			return -EINVAL;
		if (message_has(message, "No such file or directory") ||
		    message_has(message, "No such process"))
			return -ENOENT;
		if (message_has(message, "busy"))
			return -EBUSY;
		return -EIO;
	}

	if (name_is(name, BUS_ERROR("InvalidArgs")))
		return -EINVAL;

	/* the Realtime portal's own refusals (its forwarding of rtkit's errors keeps their names) */
	if (name_is(name, "org.freedesktop.portal.Error.NotAllowed"))
		return -EPERM;
	if (name_is(name, "org.freedesktop.portal.Error.Failed"))
		return rtshim_errno_from_dbus_error(BUS_ERROR("Failed"), message);

	if (name_is(name, BUS_ERROR("NoMemory")))
		return -ENOMEM;

	/* The bus says this when the daemon left the bus during our call: it is gone, not hung. */
	if (name_is(name, BUS_ERROR("NoReply")) && message_has(message, "disconnected"))
		return -ENOTCONN;

	if (name_is(name, BUS_ERROR("NoReply")) || name_is(name, BUS_ERROR("Timeout")) ||
	    name_is(name, BUS_ERROR("TimedOut")))
		return -ETIMEDOUT;

	if (name_is(name, BUS_ERROR("ServiceUnknown")) || name_is(name, BUS_ERROR("NameHasNoOwner")) ||
	    name_is(name, BUS_ERROR("NoServer")) || name_is(name, BUS_ERROR("Disconnected")) ||
	    name_is(name, BUS_ERROR("FileNotFound")) || name_is(name, BUS_ERROR("NoNetwork")) ||
	    name_is(name, BUS_ERROR("BadAddress")) || name_is(name, BUS_ERROR("AuthFailed")) ||
	    strncmp(name, "org.freedesktop.DBus.Error.Spawn.", 33) == 0)
		return -ENOTCONN;

	if (name_is(name, BUS_ERROR("UnknownMethod")) || name_is(name, BUS_ERROR("UnknownObject")) ||
	    name_is(name, BUS_ERROR("UnknownInterface")) || name_is(name, BUS_ERROR("UnknownProperty")) ||
	    name_is(name, BUS_ERROR("InvalidSignature")) ||
	    name_is(name, BUS_ERROR("InconsistentMessage")))
		return -EPROTO;

	return -EIO;
}

int rtshim_errno_from_connect_error(const char *name, const char *message)
{
	int r = rtshim_errno_from_dbus_error(name, message);

	return r == -ETIMEDOUT || r == -ENOMEM ? r : -ENOTCONN;
}

const char *rtkit_strerror(int err)
{
	/* Negating INT_MIN would be undefined; in unsigned arithmetic it is just "unknown". */
	unsigned int e = err < 0 ? 0u - (unsigned int)err : (unsigned int)err;

	switch (e) {
	case 0:
		return "success";
	case EPERM:
		return "rtkit refused: priority above its maximum, RLIMIT_RTTIME not set or too high, "
		       "or polkit denied this session";
	case EBUSY:
		return "rtkit refused: a per-user limit was reached (realtime threads, processes, "
		       "or requests in the last burst interval)";
	case EINVAL:
		return "rtkit refused the value: priority outside 1..99 or nice level outside -20..19";
	case ENOENT:
		return "rtkit did not find the thread or process (or polkitd is not running)";
	case ENOTCONN:
		return "no system bus, or rtkit-daemon is not running on it";
	case ETIMEDOUT:
		return "no answer from rtkit-daemon or the system bus within the timeout";
	case EPROTO:
		return "rtkit's reply does not match the API this client knows, or it said yes and "
		       "the kernel shows no realtime (is something else answering under rtkit's name?)";
	case ENOMEM:
		return "out of memory while talking to rtkit";
	case EIO:
		return "unexpected error while talking to rtkit over D-Bus";
	case EXDEV:
		return "this process runs in a PID namespace of its own (a container): rtkit would read "
		       "its thread IDs as other processes' and the Realtime portal is not in use, so "
		       "nothing was sent";
	default:
		return "unknown error from the rtkit client";
	}
}
