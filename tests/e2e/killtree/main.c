/*
 * main.c - the "killtree" e2e test: a parent and two forked children each
 * call b_mul exactly 1000 times, then block in pause(). When both
 * children have said so through a pipe, the parent prints
 * "ready PARENT CHILD1 CHILD2" and blocks too; checks/killtree.py then sends
 * SIGKILL to all three. The report must still hold each process with its
 * 1000 calls (only the pause() calls in flight lose their timing).
 */
#include <stdio.h>
#include <unistd.h>

int b_mul(int x, int y);

static long calls(void)
{
	long acc = 0;
	for (int i = 0; i < 1000; i++)
		acc += b_mul(i, 3);
	return acc;
}

int main(void)
{
	int fds[2];
	pid_t kid[2];
	if (pipe(fds) != 0)
		return 1;
	fflush(stdout);
	for (int k = 0; k < 2; k++) {
		kid[k] = fork();
		if (kid[k] == 0) {
			long a = calls();
			char c = (char)(a & 1);
			if (write(fds[1], &c, 1) != 1)
				_exit(1);
			for (;;)
				pause();
		}
	}
	calls();
	char c[2];
	if (read(fds[0], c, 2) != 2 && read(fds[0], c + 1, 1) != 1)
		return 1;
	printf("ready %d %d %d\n", (int)getpid(), (int)kid[0], (int)kid[1]);
	fflush(stdout);
	for (;;)
		pause();
}
