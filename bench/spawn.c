/*
 * bench/spawn.c - start-up cost of a process: starts CMD N times, one after
 * the other (fork, exec, wait: what a shell does), and prints each run's
 * wall time and the CPU time the child used (user + system, which other
 * work on a shared machine moves less), in ns, one run a line. Run bare or
 * under `scaler record` (then every child is profiled, and the fork of
 * this driver is too, as a shell's is).
 *
 *   spawn N CMD [ARG...]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: spawn N CMD [ARG...]\n");
		return 2;
	}
	int n = atoi(argv[1]);
	long long *t = calloc(n > 0 ? (size_t)n : 1, 2 * sizeof(*t));
	if (!t)
		return 1;
	for (int i = 0; i < n; i++) {
		long long t0 = now_ns();
		pid_t pid = fork();
		if (pid < 0) {
			perror("spawn: fork");
			return 1;
		}
		if (pid == 0) {
			/* the command's own output is not ours */
			int null = open("/dev/null", O_WRONLY);
			if (null >= 0 && dup2(null, 1) >= 0)
				close(null);
			execvp(argv[2], argv + 2);
			_exit(127);
		}
		int st;
		struct rusage ru;
		if (wait4(pid, &st, 0, &ru) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "spawn: %s failed\n", argv[2]);
			return 1;
		}
		t[2 * i] = now_ns() - t0;
		t[2 * i + 1] = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ll +
			       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ll;
	}
	/* printed at the end: the runs above write nothing between them */
	for (int i = 0; i < n; i++)
		printf("%lld %lld\n", t[2 * i], t[2 * i + 1]);
	return 0;
}
