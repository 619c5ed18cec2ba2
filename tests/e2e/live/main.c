/*
 * main.c - the "live" e2e test (checks/live.py): known calls per phase,
 * and between phases the program waits for a line on stdin, so that
 * `scaler live --once` can read its running profile at a known state.
 * Phase 1: 1000 b_mul; phase 2: 2000 more and a thread that makes 500;
 * phase 3: 3000 more and a child process that makes 700. Each phase ends
 * with "phase N SUM" on stdout; then "done". First it blanks its
 * environment's strings, as setproctitle does (redis, nginx): -p must find
 * the profile without SCALER_DIR in /proc/PID/environ.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int b_mul(int x, int y);

extern char **environ;

static long muls(int n)
{
	long s = 0;

	for (int i = 0; i < n; i++)
		s += b_mul(i, 3);
	return s;
}

static void *worker(void *arg)
{
	*(long *)arg = muls(500);
	return NULL;
}

/* the end of a phase: its line, then wait for the go-ahead */
static void phase_end(int k, long sum)
{
	char line[64];

	printf("phase %d %ld\n", k, sum);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		exit(3);
}

int main(void)
{
	pthread_t t;
	long from_thread = 0;
	pid_t pid;
	int st;

	for (char **e = environ; *e; e++)
		memset(*e, 0, strlen(*e));
	phase_end(1, muls(1000));

	long sum = muls(2000);
	pthread_create(&t, NULL, worker, &from_thread);
	pthread_join(t, NULL);
	phase_end(2, sum + from_thread);

	sum = muls(3000);
	pid = fork();
	if (pid == 0) {
		muls(700);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	phase_end(3, sum + WEXITSTATUS(st));
	puts("done");
	return 0;
}
