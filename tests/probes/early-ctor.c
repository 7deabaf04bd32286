/* early-ctor — linked with libearly.so, whose constructor calls pthread_setschedparam(self,
 * SCHED_FIFO, 60) before main (and before the shim's constructor).  Prints what it got.
 */
// link: -learly
#include "probe.h"

int libearly_result(int *err, int *tid);

int main(void)
{
	int err, tid;
	probe_start();
	probe_tid("main");
	int rc = libearly_result(&err, &tid);
	probe_rc("early-setschedparam", rc, err);
	probe_say("early-tid %d", tid);
	probe_kernel("main");
	probe_wait();
	return 0;
}
