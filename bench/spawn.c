/* spawn — figure 4: start-up time of two commands, alternated, each run timed from fork to exit.
 *
 *   spawn N CMD-A [ARGS...] -- CMD-B [ARGS...]
 *
 * Runs A, B, A, B ... N times each (posix_spawn + waitpid, output to /dev/null) and prints one
 * line per pair: "A-ns B-ns".  Alternating keeps slow drifts of the machine out of the ratio.
 */
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include "bench.h"

extern char **environ;

static int64_t run(char **argv, posix_spawn_file_actions_t *fa)
{
	int64_t t0 = bench_now_ns();
	pid_t pid;
	int status, rc = posix_spawnp(&pid, argv[0], fa, NULL, argv, environ);

	if (rc) {
		fprintf(stderr, "%s: %s\n", argv[0], strerror(rc));
		return -1;
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "%s did not exit 0 (status %#x)\n", argv[0], status);
		return -1;
	}
	return bench_now_ns() - t0;
}

int main(int argc, char **argv)
{
	posix_spawn_file_actions_t fa;
	char **a = argv + 2, **b = NULL;
	long n = bench_arg(argc, argv, 1, 100), i;
	int k;

	for (k = 2; k < argc; k++)
		if (!strcmp(argv[k], "--")) {
			argv[k] = NULL;
			b = argv + k + 1;
		}
	if (argc < 3 || !b || !*a || !*b) {
		fprintf(stderr, "usage: spawn N CMD-A [ARGS...] -- CMD-B [ARGS...]\n");
		return 2;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	run(a, &fa); /* warm-up: page cache, dynamic loader cache */
	run(b, &fa);
	for (i = 0; i < n; i++) {
		int64_t ta = run(a, &fa), tb = run(b, &fa);

		if (ta < 0 || tb < 0)
			return 1;
		printf("%lld %lld\n", (long long)ta, (long long)tb);
	}
	return 0;
}
