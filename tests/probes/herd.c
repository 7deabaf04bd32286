/* herd — N threads (default 64) ask for SCHED_FIFO/PRIO at the same moment: all wait on a
 * barrier, then each calls pthread_setschedparam(pthread_self(), SCHED_FIFO, PRIO).  Each thread
 * reports "thread I tid=T rc=R err=E kernel=POLICY PRIO" (the kernel's view right after its call),
 * then stays alive; main reports a summary that ties each result to the kernel:
 *   "threads=N ok=K eperm=M other_errors=0 ok_but_not_rt=0 failed_but_rt=0"
 * then "ready", and waits for stdin to close.
 * Usage: herd [N [PRIO]] */
#include "probe.h"

static pthread_barrier_t barrier;
static int prio = 10;

struct result {
	pid_t tid;
	int rc;
	int policy;
	int kprio;
};

static struct result *results;
static int done_count;
static pthread_mutex_t done_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;

static void *body(void *p)
{
	struct result *r = p;
	struct sched_param sp = { .sched_priority = prio };
	r->tid = probe_gettid();
	pthread_barrier_wait(&barrier);
	r->rc = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	r->policy = probe_kernel_policy(r->tid);
	r->kprio = probe_kernel_prio(r->tid);
	pthread_mutex_lock(&done_lock);
	done_count++;
	pthread_cond_signal(&done_cond);
	pthread_mutex_unlock(&done_lock);
	probe_park();
	return NULL;
}

static int is_rt(int policy)
{
	policy &= ~SCHED_RESET_ON_FORK;
	return policy == SCHED_FIFO || policy == SCHED_RR;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 64;
	if (argc > 2)
		prio = atoi(argv[2]);
	if (n < 1 || n > 4096)
		return 2;
	probe_start();
	results = calloc((size_t)n, sizeof *results);
	if (!results || pthread_barrier_init(&barrier, NULL, (unsigned)n))
		return 2;
	for (int i = 0; i < n; i++) {
		pthread_t t;
		int e = pthread_create(&t, NULL, body, &results[i]);
		if (e) {
			probe_say("pthread_create %d failed: %s", i, probe_errname(e));
			return 1;
		}
		pthread_detach(t);
	}
	pthread_mutex_lock(&done_lock);
	while (done_count < n)
		pthread_cond_wait(&done_cond, &done_lock);
	pthread_mutex_unlock(&done_lock);

	int ok = 0, eperm = 0, other = 0, ok_not_rt = 0, failed_rt = 0;
	for (int i = 0; i < n; i++) {
		struct result *r = &results[i];
		probe_say("thread %d tid=%d rc=%d err=%s kernel=%s %d", i, (int)r->tid, r->rc,
			  probe_errname(r->rc), probe_policy(r->policy), r->kprio);
		if (r->rc == 0)
			ok++;
		else if (r->rc == EPERM)
			eperm++;
		else
			other++;
		if (r->rc == 0 && !is_rt(r->policy))
			ok_not_rt++;
		if (r->rc != 0 && is_rt(r->policy))
			failed_rt++;
	}
	probe_say("threads=%d ok=%d eperm=%d other_errors=%d ok_but_not_rt=%d failed_but_rt=%d", n, ok,
		  eperm, other, ok_not_rt, failed_rt);
	probe_wait();
	return 0;
}
