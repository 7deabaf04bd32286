/* threads — figure 3: pthread_create + pthread_join of N threads, one at a time, nothing asked.
 *
 *   threads [N]     N threads (default 10000); prints "TOTAL-ns MEDIAN-ns P99-ns USER-ns SYS-ns":
 *                   the median and p99 over the N create+join pairs timed one by one, and the
 *                   CPU time of the whole process (all its threads) over the N pairs
 *
 * Run with and without LD_PRELOAD=librtshim.so: measures what the shim adds to the commonest
 * call a program makes (its pthread_create interposer, its TLS block in every new thread).
 */
#include <sys/resource.h>

#include "bench.h"

static void *nothing(void *arg)
{
	return arg;
}

static int cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int64_t tv_ns(struct timeval tv)
{
	return (int64_t)tv.tv_sec * 1000000000LL + (int64_t)tv.tv_usec * 1000;
}

int main(int argc, char **argv)
{
	long n = bench_arg(argc, argv, 1, 10000), i;
	struct rusage r0, r1;
	pthread_t t;
	int64_t t0, total, *each;
	int rc;

	/* warm-up: the first thread maps its stack cache, resolves lazily bound symbols */
	if ((rc = pthread_create(&t, NULL, nothing, NULL)) || pthread_join(t, NULL)) {
		fprintf(stderr, "pthread_create: %s\n", strerror(rc));
		return 1;
	}
	if (n < 1 || !(each = calloc((size_t)n, sizeof(*each))))
		return 1;
	getrusage(RUSAGE_SELF, &r0);
	total = bench_now_ns();
	for (i = 0; i < n; i++) {
		t0 = bench_now_ns();
		if ((rc = pthread_create(&t, NULL, nothing, NULL))) {
			fprintf(stderr, "pthread_create: %s\n", strerror(rc));
			return 1;
		}
		pthread_join(t, NULL);
		each[i] = bench_now_ns() - t0;
	}
	total = bench_now_ns() - total;
	getrusage(RUSAGE_SELF, &r1);
	qsort(each, (size_t)n, sizeof(*each), cmp);
	printf("%lld %lld %lld %lld %lld\n", (long long)total, (long long)each[n / 2],
	       (long long)each[n * 99 / 100], (long long)(tv_ns(r1.ru_utime) - tv_ns(r0.ru_utime)),
	       (long long)(tv_ns(r1.ru_stime) - tv_ns(r0.ru_stime)));
	free(each);
	return 0;
}
