/*
 * main.c - the "fork" e2e program: the parent calls libsc_b.so b_mul 100
 * times and forks; the child calls it 200 times and libc strlen 300 times,
 * then exits 0 after flushing its output; the parent waits and prints.
 * The report's rows are the sums over both processes (see expect).
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int b_mul(int x, int y);

int main(void)
{
	char buf[32] = "forked process";
	long acc = 0;
	for (int i = 0; i < 100; i++)
		acc += b_mul(i, 2);
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		unsigned long n = 0;
		for (int i = 0; i < 200; i++)
			acc += b_mul(i, 5);
		for (int i = 0; i < 300; i++) {
			__asm__ volatile("" : : "r"(buf) : "memory");
			n += strlen(buf + (i & 7));
		}
		printf("child acc=%ld n=%lu\n", acc, n);
		fflush(stdout);
		_exit(0);
	}
	int st;
	if (waitpid(pid, &st, 0) != pid)
		return 1;
	printf("parent acc=%ld child status=%d\n", acc, WEXITSTATUS(st));
	return 0;
}
