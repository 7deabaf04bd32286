/* command.c — will the dynamic loader load librtshim.so into COMMAND?  What rtrun warns about
 * before it runs a command (run.c), and what `rtrun --check PROGRAM` answers (check.c).  A
 * script is answered for its interpreter: that is what the kernel runs and the loader loads
 * into. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "rtrun.h"

#ifndef RTSHIM_MULTIARCH
#define RTSHIM_MULTIARCH "x86_64-linux-gnu"
#endif

static bool nosuid_mount(const char *path)
{
	struct statvfs sv;

	return statvfs(path, &sv) == 0 && (sv.f_flag & ST_NOSUID);
}

/* What rtrun itself is: the native ELF class and machine. */
static void native_elf(struct rtrun_elf *self)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	memset(self, 0, sizeof *self);
	if (fd >= 0) {
		rtrun_elf_inspect(fd, self);
		close(fd);
	}
}

/* Secure execution: the loader ignores LD_PRELOAD (set-ID, or file capabilities). */
static enum rtrun_reach secure_exec(int fd, const struct stat *st, const char *path)
{
	if (nosuid_mount(path))
		return RTRUN_REACH_YES;
	if ((st->st_mode & S_ISUID) && st->st_uid != getuid())
		return RTRUN_REACH_SETUID;
	if ((st->st_mode & S_ISGID) && (st->st_mode & S_IXGRP) && st->st_gid != getgid())
		return RTRUN_REACH_SETGID;
	if (getuid() != 0 && fgetxattr(fd, "security.capability", NULL, 0) > 0)
		return RTRUN_REACH_FILE_CAPS;
	return RTRUN_REACH_YES;
}

/* Another architecture than rtrun's: its own librtshim.so beside ours ($LIB form), or none. */
static enum rtrun_reach architecture(const struct rtrun_elf *elf, const struct rtrun_shim *shim,
				     struct rtrun_command *out)
{
	struct rtrun_elf self;
	struct stat sst;

	native_elf(&self);
	if (!self.is_elf || (elf->elf_class == self.elf_class && elf->machine == self.machine &&
			     elf->native_endian))
		return RTRUN_REACH_YES;
	out->multiarch = elf->native_endian ? rtrun_elf_multiarch(elf->elf_class, elf->machine)
					    : NULL;
	if (!out->multiarch || !shim->lib_token)
		return RTRUN_REACH_OTHER_ARCH;
	if (snprintf(out->other_shim, sizeof out->other_shim, "%s/lib/%s/rtshim/%s", shim->prefix,
		     out->multiarch, RTRUN_SHIM_FILE) < (int)sizeof out->other_shim &&
	    stat(out->other_shim, &sst) == 0)
		return RTRUN_REACH_YES;
	return RTRUN_REACH_NO_SHIM_FOR_ARCH;
}

static enum rtrun_reach reach(const char *path, const struct rtrun_shim *shim, int depth,
			      struct rtrun_command *out)
{
	struct rtrun_elf elf;
	struct stat st;
	enum rtrun_reach r = RTRUN_REACH_YES;
	int inspected, fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		/* Execute-only: the loader will still run it; we just cannot look inside. */
		out->err = -errno;
		return RTRUN_REACH_UNKNOWN;
	}
	if (fstat(fd, &st) < 0 || (depth == 0 && (r = secure_exec(fd, &st, path)))) {
		close(fd);
		return r;
	}
	inspected = rtrun_elf_inspect(fd, &elf);
	close(fd);
	if (inspected < 0) /* neither ELF nor script: the kernel will say what it is */
		return RTRUN_REACH_YES;
	if (elf.is_script) {
		if (depth > 0 || elf.interpreter[0] != '/')
			return RTRUN_REACH_YES;
		snprintf(out->name, sizeof out->name, "%s", elf.interpreter);
		return reach(elf.interpreter, shim, depth + 1, out);
	}
	if (!elf.is_elf)
		return RTRUN_REACH_YES;
	if (elf.native_endian && !elf.has_interp)
		return RTRUN_REACH_STATIC;
	if (elf.go)
		return RTRUN_REACH_GO;
	memcpy(out->first_library, elf.first_library, sizeof out->first_library);
	return architecture(&elf, shim, out);
}

void rtrun_command_reach(const char *cmd, const char *path, const struct rtrun_shim *shim,
			 struct rtrun_command *out)
{
	memset(out, 0, sizeof *out);
	snprintf(out->name, sizeof out->name, "%s", cmd);
	out->reach = reach(path, shim, 0, out);
}

const char *rtrun_reach_text(const struct rtrun_command *c, const struct rtrun_shim *shim,
			     char *buf, size_t size)
{
	switch (c->reach) {
	case RTRUN_REACH_YES:
		if (c->other_shim[0])
			snprintf(buf, size, "%s is a %s program: the loader will take %s", c->name,
				 c->multiarch, c->other_shim);
		else
			snprintf(buf, size, "%s is dynamically linked: the loader will load "
				 "librtshim.so into it", c->name);
		if (c->first_library[0]) {
			size_t used = strlen(buf);

			snprintf(buf + used, size - used, " (it is built with a sanitizer: its "
				 "runtime %s goes first in LD_PRELOAD, as the sanitizer requires)",
				 c->first_library);
		}
		break;
	case RTRUN_REACH_UNKNOWN:
		snprintf(buf, size, "cannot inspect %s: open: %s", c->name, strerror(-c->err));
		break;
	case RTRUN_REACH_SETUID:
	case RTRUN_REACH_SETGID:
		snprintf(buf, size, "%s is set-%s-ID: the dynamic loader ignores LD_PRELOAD for it, "
			 "so librtshim.so cannot help", c->name,
			 c->reach == RTRUN_REACH_SETUID ? "user" : "group");
		break;
	case RTRUN_REACH_FILE_CAPS:
		snprintf(buf, size, "%s has file capabilities (security.capability): the dynamic "
			 "loader ignores LD_PRELOAD for it, so librtshim.so cannot help", c->name);
		break;
	case RTRUN_REACH_STATIC:
		snprintf(buf, size, "%s is statically linked: LD_PRELOAD has no effect on it, so "
			 "librtshim.so cannot help", c->name);
		break;
	case RTRUN_REACH_GO:
		snprintf(buf, size, "%s is a Go program: Go makes its system calls itself, so "
			 "librtshim.so sees none of its own scheduling requests (only those of C "
			 "libraries it calls)", c->name);
		break;
	case RTRUN_REACH_NO_SHIM_FOR_ARCH:
		snprintf(buf, size, "%s is a %s program and no librtshim.so for it is installed "
			 "(%s/lib/%s/rtshim/%s): the dynamic loader will skip the shim", c->name,
			 c->multiarch, shim->prefix, c->multiarch, RTRUN_SHIM_FILE);
		break;
	case RTRUN_REACH_OTHER_ARCH:
		snprintf(buf, size, "%s is built for another architecture (%s) than librtshim.so "
			 "(%s): the dynamic loader will skip the shim", c->name,
			 c->multiarch ? c->multiarch : "unknown", RTSHIM_MULTIARCH);
		break;
	}
	return buf;
}
