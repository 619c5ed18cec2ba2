/*
 * sc_kcpu: kernel time in a process that makes it hard for per-CPU
 * kernel sampling to reach it (checks/kernel_cpu.py). Prints "MODE NS",
 * the time of its getrandom loop by its own clock.
 *
 *   random      getrandom of 8 MB buffers, 16 times
 *   fork UID    writes over its environment (as nginx's process titles
 *               do), then forks a child that drops to UID (when root) and
 *               makes the same 16 getrandom calls; the parent waits and
 *               prints the child's time and how many perf mappings of
 *               ring length LEN bytes (the recorder's per-CPU rings) the
 *               child had before and after the drop: "fork NS BEFORE AFTER"
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;
static char big[8 << 20];

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* perf rings of len bytes mapped in this process */
static int rings(unsigned long len)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int n = 0;
	unsigned long lo, hi;
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "[perf_event]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2 &&
		    hi - lo == len)
			n++;
	if (f)
		fclose(f);
	return n;
}

static long long randoms(void)
{
	long long t0 = now_ns();
	for (int i = 0; i < 16; i++)
		if (getrandom(big, sizeof(big), 0) != (ssize_t)sizeof(big))
			exit(2);
	return now_ns() - t0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "random")) {
		printf("random %lld\n", randoms());
		return 0;
	}
	if (argc != 4 || strcmp(argv[1], "fork")) {
		fprintf(stderr, "usage: sc_kcpu random | fork UID LEN\n");
		return 2;
	}
	int p[2];
	if (pipe(p))
		return 2;
	for (char **e = environ; *e; e++)
		memset(*e, 'x', strlen(*e));
	pid_t pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		unsigned long len = strtoul(argv[3], NULL, 10);
		int before = rings(len);
		if (getuid() == 0 && (setgid((gid_t)atoi(argv[2])) || setuid((uid_t)atoi(argv[2]))))
			_exit(3);
		long long r[3] = {randoms(), before, rings(len)};
		if (write(p[1], r, sizeof(r)) != sizeof(r))
			_exit(4);
		_exit(0);
	}
	long long r[3];
	int st;
	if (read(p[0], r, sizeof(r)) != sizeof(r) || waitpid(pid, &st, 0) != pid ||
	    !WIFEXITED(st) || WEXITSTATUS(st))
		return 1;
	printf("fork %lld %lld %lld\n", r[0], r[1], r[2]);
	return 0;
}
