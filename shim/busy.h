/* busy.h — which of rtkit's per-user limits refused a request (busy.c). */
#ifndef RTSHIM_BUSY_H
#define RTSHIM_BUSY_H

#include <stdbool.h>
#include <stddef.h>

#include "enter.h" /* RTSHIM_HIDDEN */
#include "rtkit-client.h"

/* For the process's first EBUSY refusal: the limit, its holders and the option that raises it,
 * into buf; false (buf untouched) for the later ones. */
bool rtshim_busy_explain(const struct rtshim_client_v1 *client, char *buf, size_t size) RTSHIM_HIDDEN;

#endif
