/* threads — figure 3: pthread_create + pthread_join of N threads, one at a time, nothing asked.
 *
 *   threads [N]     N threads (default 10000); prints "TOTAL-ns MEDIAN-ns P99-ns", the last two
 *                   over the N create+join pairs timed one by one
 *
 * Run with and without LD_PRELOAD=librtshim.so: measures the cost of the shim's pthread_create
 * hook (the TID-recording trampoline) on the commonest call a program makes.
 */
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

int main(int argc, char **argv)
{
	long n = bench_arg(argc, argv, 1, 10000), i;
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
	qsort(each, (size_t)n, sizeof(*each), cmp);
	printf("%lld %lld %lld\n", (long long)total, (long long)each[n / 2], (long long)each[n * 99 / 100]);
	free(each);
	return 0;
}
