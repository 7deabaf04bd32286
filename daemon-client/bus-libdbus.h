/* bus-libdbus.h — one-shot libdbus connections for the doctor (doctor.c, rtrun --check), which
 * asks polkit and the bus questions the request client (wire-bus.h) has no marshalling for.
 * Nothing here waits past `deadline`; errors are negative errnos of errors.c's map, with the
 * bus's own words in err (when err is not NULL; left as it is when there are none).  Call them
 * with cancellation disabled. */
#ifndef RTSHIM_BUS_LIBDBUS_H
#define RTSHIM_BUS_LIBDBUS_H

#include <dbus/dbus.h>
#include <time.h>

/* now + `ms` milliseconds (CLOCK_MONOTONIC). */
void rtshim_deadline_after(struct timespec *deadline, int ms);

/* A private connection to `address` (no exit on disconnect, close-on-exec, SIGPIPE left alone)
 * whose Hello was answered: 0 and *out, or -errno (-ENOTCONN: no usable bus, -ETIMEDOUT). */
int rtshim_bus_open(const char *address, const struct timespec *deadline, DBusConnection **out,
		    char *err, size_t errlen);
/* Send `msg` on `c` and wait for the reply: 0 and a method return in *reply (caller unrefs). */
int rtshim_bus_call(DBusConnection *c, DBusMessage *msg, const struct timespec *deadline,
		    DBusMessage **reply, char *err, size_t errlen);
/* Close and release a connection of rtshim_bus_open (NULL: nothing). */
void rtshim_bus_close(DBusConnection *c);

#endif
