/*
 * main.c - the "forkchain" e2e program: a chain of fork children, each
 * the child of the one before, 100 deep (or argv[1]); no exec. Level L
 * (0: the first process) calls libsc_b.so b_mul L + 1 times, then forks
 * level L + 1, waits for it and exits with its status; the last level
 * prints "depth N acc A". checks/fork_parents.py wants every level's
 * counts: each has the import its first ancestor bound.
 * With argv[2] = K, level K starts with no descriptor to spare (its
 * parent forks it under RLIMIT_NOFILE 0): the runtime cannot create its
 * file there; the level gives the limit back at once and its child
 * (K + 1) has a file again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int b_mul(int x, int y);

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 100;
	int starved = argc > 2 ? atoi(argv[2]) : -1;
	struct rlimit fds, none;
	long acc = 0;

	if (getrlimit(RLIMIT_NOFILE, &fds) != 0)
		return 1;
	none = fds;
	none.rlim_cur = 0;
	for (int level = 0;; level++) {
		for (int i = 0; i <= level; i++)
			acc += b_mul(i, level);
		if (level == depth) {
			printf("depth %d acc %ld\n", level, acc);
			return 0;
		}
		if (level + 1 == starved && setrlimit(RLIMIT_NOFILE, &none) != 0)
			return 1;
		pid_t pid = fork();
		if (level + 1 == starved && setrlimit(RLIMIT_NOFILE, &fds) != 0)
			return 1;
		if (pid < 0)
			return 1;
		if (pid > 0) {
			int st;

			if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
				return 1;
			return WEXITSTATUS(st);
		}
	}
}
