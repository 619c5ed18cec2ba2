/*
 * main.c - the "forkexec" e2e test: what a shell does, as a profiled
 * parent's fork child sees it. The parent calls b_mul 5 times and starts
 * three children one after the other; child i calls b_mul 10 + i times,
 * sends its output to /dev/null (open, dup2, close: first calls, bound in
 * the child) and execs this program as `sc_forkexec image i`, which calls
 * b_mul 100 * (i + 1) times. Child 1 first forks a grandchild that calls
 * b_mul 7 times and exits: a fork child of a fork child. Each image must
 * hold exactly its own calls (checks/fork_exec.py).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int b_mul(int x, int y);

static long calls(int n)
{
	long acc = 0;
	for (int i = 0; i < n; i++)
		acc += b_mul(i, 3);
	return acc;
}

static int wait_ok(pid_t p)
{
	int st;
	return p > 0 && waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "image")) {
		calls(100 * (atoi(argv[2]) + 1));
		return 0;
	}
	calls(5);
	int ok = 1;
	for (int i = 0; i < 3; i++) {
		pid_t p = fork();
		if (p == 0) {
			calls(10 + i);
			if (i == 1) {
				pid_t g = fork();
				if (g == 0) {
					calls(7);
					_exit(0);
				}
				if (!wait_ok(g))
					_exit(3);
			}
			int null = open("/dev/null", O_WRONLY);
			if (null < 0 || dup2(null, 1) < 0)
				_exit(4);
			close(null);
			char k[2] = {(char)('0' + i), 0};
			execl(argv[0], argv[0], "image", k, (char *)NULL);
			_exit(5);
		}
		ok &= wait_ok(p);
	}
	printf("forkexec %s\n", ok ? "ok" : "failed");
	return !ok;
}
