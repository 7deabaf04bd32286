/* sandbox.c — see sandbox.h. */
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

enum rtshim_sandbox rtshim_sandbox_of(bool flatpak_info, const char *snap, const char *label)
{
	if (flatpak_info)
		return RTSHIM_SANDBOX_FLATPAK;
	/* an empty $SNAP (e.g. `env SNAP= cmd`, or a shell that exports it cleared) is no snap */
	if (!snap || !*snap)
		return RTSHIM_SANDBOX_NONE;
	if (label && strncmp(label, "snap.", 5) != 0)
		return RTSHIM_SANDBOX_NONE; /* "unconfined", or another program's profile */
	return RTSHIM_SANDBOX_SNAP;
}

/* The AppArmor label into buf (its first line, without the mode): 0, or -1 when no AppArmor
 * label can be read.  attr/apparmor/current where security modules are stacked (Linux 5.8+),
 * else attr/current, which only AppArmor fills with a label of that form. */
static int apparmor_label(char *buf, size_t size)
{
	static const char *const paths[] = { "/proc/self/attr/apparmor/current", "/proc/self/attr/current" };
	for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
		int fd = open(paths[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t n;
		do
			n = read(fd, buf, size - 1);
		while (n < 0 && errno == EINTR);
		close(fd);
		if (n <= 0)
			continue; /* EINVAL: no module answers there */
		buf[n] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		return buf[0] ? 0 : -1;
	}
	return -1;
}

enum rtshim_sandbox rtshim_sandbox_detect(char *(*get)(const char *))
{
	bool flatpak = access("/.flatpak-info", F_OK) == 0;
	const char *snap = get("SNAP");
	char label[256];
	int saved = errno;
	bool labelled = !flatpak && snap && *snap && apparmor_label(label, sizeof label) == 0;
	errno = saved;
	return rtshim_sandbox_of(flatpak, snap, labelled ? label : NULL);
}
