/* enter.c — the re-entrancy guard's state and secure-execution mode behind rtshim_enter
 * (enter.h). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/auxv.h>

#include "enter.h"

__thread int rtshim_in_shim __attribute__((tls_model("initial-exec")));
int rtshim_secure_mode = -1;

/* RTSHIM_DISABLE set true in the environment: rtshim is switched off from the first call (the
 * configuration files are read later, on the first request: settings.c).  Without the
 * configuration's parser, which a sanitizer instruments: this may run before its runtime. */
RTSHIM_UNINSTRUMENTED static bool switched_off(void)
{
	const char *v = getenv("RTSHIM_DISABLE");
	return v && (!strcmp(v, "1") || !strcasecmp(v, "yes") || !strcasecmp(v, "true") ||
		     !strcasecmp(v, "on"));
}

RTSHIM_UNINSTRUMENTED bool rtshim_secure_execution(void)
{
	int s = __atomic_load_n(&rtshim_secure_mode, __ATOMIC_RELAXED);
	if (s < 0) {
		s = getauxval(AT_SECURE) != 0 || switched_off();
		__atomic_store_n(&rtshim_secure_mode, s, __ATOMIC_RELAXED);
	}
	return s;
}
