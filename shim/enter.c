/* enter.c — the re-entrancy guard and secure-execution mode behind rtshim_enter (enter.h). */
#include <sys/auxv.h>

#include "enter.h"

/* initial-exec: the shim is loaded at start-up (LD_PRELOAD); no __tls_get_addr, no libc-only
 * violation (NEEDED ld-linux), and cheap in every hook. */
static __thread __attribute__((tls_model("initial-exec"))) int in_shim;
static int secure_mode = -1;

/* Secure-execution (set-user-ID, file capabilities): the shim does nothing at all there. */
bool rtshim_secure_execution(void)
{
	int s = __atomic_load_n(&secure_mode, __ATOMIC_RELAXED);
	if (s < 0) {
		s = getauxval(AT_SECURE) != 0;
		__atomic_store_n(&secure_mode, s, __ATOMIC_RELAXED);
	}
	return s;
}

bool rtshim_enter(void)
{
	if (rtshim_secure_execution() || in_shim)
		return false;
	in_shim = 1;
	return true;
}

void rtshim_leave(void)
{
	in_shim = 0;
}
