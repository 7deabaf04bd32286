/* client.c — see client.h. */
#include "client.h"

const struct rtshim_client_v1 *rtshim_client_get(int timeout_ms)
{
	rtshim_client_v1.set_timeout_ms(timeout_ms);
	return &rtshim_client_v1;
}
