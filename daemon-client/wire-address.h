/* wire-address.h — a D-Bus server address (DBUS_SYSTEM_BUS_ADDRESS's syntax) as the socket
 * address to connect to.  Pure code.  An address is a list of alternatives separated by ';',
 * each "transport:key=value,key=value" with %XX escapes in the values; this client connects
 * to "unix:path=FILE" and "unix:abstract=NAME" (other keys, such as guid, are ignored). */
#ifndef RTSHIM_WIRE_ADDRESS_H
#define RTSHIM_WIRE_ADDRESS_H

#include <sys/socket.h>
#include <sys/un.h>

struct rtshim_wire_sockaddr {
	struct sockaddr_un un;
	socklen_t length;
};

/* Alternative number `index` (from 0) of `address`: 0 and *out; -EINVAL when it is not one
 * this client connects to (another transport, a malformed one: try the next); -ENOENT when
 * the list has no alternative of that number. */
int rtshim_wire_address(const char *address, int index, struct rtshim_wire_sockaddr *out);

#endif
