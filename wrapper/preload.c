/* preload.c — where librtshim.so is, and the LD_PRELOAD value that loads it.
 *
 * The shim is looked for beside rtrun's own executable first (<exe dir>/../lib/<multiarch>/
 * rtshim/: the build tree and every install that keeps the standard layout, whatever PREFIX or
 * DESTDIR was), then in the compiled-in RTSHIM_PKGLIBDIR.  Never relative to the current
 * directory: every path is absolute.
 *
 * When the shim sits at <prefix>/lib/<multiarch>/rtshim/librtshim.so, the LD_PRELOAD entry is
 * written <prefix>/$LIB/rtshim/librtshim.so: the dynamic loader of each program expands $LIB to
 * its own library directory (lib/x86_64-linux-gnu, lib/i386-linux-gnu on Debian), so one value
 * serves 64- and 32-bit programs and every child they start.  rtrun uses that form only after
 * asking this process's own loader (dlopen RTLD_NOLOAD, which expands $LIB, opens and checks
 * the ELF header but loads nothing) that it leads to a loadable shim; else the absolute path.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rtrun.h"

#ifndef RTSHIM_PKGLIBDIR
#define RTSHIM_PKGLIBDIR "/usr/local/lib/x86_64-linux-gnu/rtshim"
#endif
#ifndef RTSHIM_MULTIARCH
#define RTSHIM_MULTIARCH "x86_64-linux-gnu"
#endif

static bool regular_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool rtrun_preload_entry_ok(const char *path)
{
	return path[0] == '/' && !strpbrk(path, " :\t\n");
}

int rtrun_prefix_of_pkglibdir(const char *libdir, const char *multiarch, char *out, size_t size)
{
	char suffix[256];
	size_t len = strlen(libdir), slen;
	int n;

	while (len > 1 && libdir[len - 1] == '/')
		len--;
	n = snprintf(suffix, sizeof suffix, "/lib/%s/rtshim", multiarch);
	if (n < 0 || (size_t)n >= sizeof suffix || !*multiarch || strchr(multiarch, '/'))
		return -EINVAL;
	slen = (size_t)n;
	if (len < slen || memcmp(libdir + len - slen, suffix, slen) != 0)
		return -EINVAL;
	if (len - slen >= size)
		return -ENAMETOOLONG;
	memcpy(out, libdir, len - slen);
	out[len - slen] = '\0';
	return 0;
}

/* Would this process's dynamic loader find a loadable object at `path` ($LIB expanded)? */
static bool loader_accepts(const char *path)
{
	void *h;

	dlerror();
	h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
	if (h) {
		/* Already loaded here (rtrun itself runs under the shim): certainly loadable. */
		dlclose(h);
		return true;
	}
	/* RTLD_NOLOAD on a loadable file that is not loaded fails without an error text; a
	 * missing file or a wrong ELF class sets one. */
	return dlerror() == NULL;
}

int rtrun_locate_shim(struct rtrun_shim *s)
{
	char exe[PATH_MAX], up[PATH_MAX + 4], prefix[PATH_MAX];
	ssize_t n;

	memset(s, 0, sizeof *s);

	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		char *slash;

		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash && exe[0] == '/') {
			*slash = '\0';
			snprintf(up, sizeof up, "%s/..", exe);
			if (realpath(up, prefix)) {
				if (!strcmp(prefix, "/"))
					prefix[0] = '\0';
				if (snprintf(s->tried[0], sizeof s->tried[0], "%s/lib/%s/rtshim/%s", prefix,
					     RTSHIM_MULTIARCH, RTRUN_SHIM_FILE) < (int)sizeof s->tried[0] &&
				    regular_file(s->tried[0])) {
					strcpy(s->native, s->tried[0]);
					strcpy(s->prefix, prefix);
					s->layout = true;
					goto found;
				}
			}
		}
	}

	if (RTSHIM_PKGLIBDIR[0] == '/' &&
	    snprintf(s->tried[1], sizeof s->tried[1], "%s/%s", RTSHIM_PKGLIBDIR, RTRUN_SHIM_FILE) <
		    (int)sizeof s->tried[1] &&
	    regular_file(s->tried[1])) {
		strcpy(s->native, s->tried[1]);
		s->layout = rtrun_prefix_of_pkglibdir(RTSHIM_PKGLIBDIR, RTSHIM_MULTIARCH, s->prefix,
						      sizeof s->prefix) == 0;
		goto found;
	}
	return -ENOENT;

found:
	if (s->layout &&
	    snprintf(s->value, sizeof s->value, "%s/$LIB/rtshim/%s", s->prefix, RTRUN_SHIM_FILE) <
		    (int)sizeof s->value &&
	    loader_accepts(s->value))
		s->lib_token = true;
	else
		strcpy(s->value, s->native);
	return rtrun_preload_entry_ok(s->value) ? 0 : -EINVAL;
}

/* Does this LD_PRELOAD entry name a librtshim.so (any copy of it)? */
static bool names_shim(const char *entry, size_t len)
{
	static const char file[] = RTRUN_SHIM_FILE;
	const size_t flen = sizeof file - 1;

	if (len < flen || memcmp(entry + len - flen, file, flen) != 0)
		return false;
	return len == flen || entry[len - flen - 1] == '/';
}

char *rtrun_compose_preload(const char *entry, const char *old)
{
	size_t elen = strlen(entry), olen = old ? strlen(old) : 0, used;
	char *out = malloc(elen + olen + 2);
	const char *p;

	if (!out)
		return NULL;
	memcpy(out, entry, elen);
	used = elen;
	/* ld.so splits LD_PRELOAD on spaces and colons and skips empty entries. */
	for (p = old; p && *p;) {
		size_t len = strcspn(p, " :");

		if (len > 0 && !names_shim(p, len)) {
			out[used++] = ':';
			memcpy(out + used, p, len);
			used += len;
		}
		p += len;
		if (*p)
			p++;
	}
	out[used] = '\0';
	return out;
}
