/* client.c — see client.h. */
#include "client.h"

#include "seccomp-probe.h"
#include "seccomp.h"

const struct rtshim_client_v1 *rtshim_client_get(int timeout_ms)
{
	rtshim_client_v1.set_timeout_ms(timeout_ms);
	return &rtshim_client_v1;
}

bool rtshim_client_filtered_out(int timeout_ms)
{
	return rtshim_seccomp_filtered() && !rtshim_client_passes_filter(timeout_ms);
}
