/* enter.c — the re-entrancy guard's state and secure-execution mode behind rtshim_enter
 * (enter.h). */
#include <sys/auxv.h>

#include "enter.h"

__thread int rtshim_in_shim __attribute__((tls_model("initial-exec")));
int rtshim_secure_mode = -1;

RTSHIM_UNINSTRUMENTED bool rtshim_secure_execution(void)
{
	int s = __atomic_load_n(&rtshim_secure_mode, __ATOMIC_RELAXED);
	if (s < 0) {
		s = getauxval(AT_SECURE) != 0;
		__atomic_store_n(&rtshim_secure_mode, s, __ATOMIC_RELAXED);
	}
	return s;
}
