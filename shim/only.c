/* only.c — RTSHIM_ONLY's pattern list (see trace.h). */
#include <fnmatch.h>
#include <string.h>

#include "trace.h"

bool rtshim_only_match(const char *patterns, const char *name)
{
	char pat[256];
	const char *p = patterns;

	if (!patterns || !name)
		return false;
	while (*p) {
		size_t n = strcspn(p, ",");
		if (n > 0 && n < sizeof pat) {
			memcpy(pat, p, n);
			pat[n] = '\0';
			if (fnmatch(pat, name, 0) == 0)
				return true;
		}
		p += n;
		if (*p == ',')
			p++;
	}
	return false;
}
