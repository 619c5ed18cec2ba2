/*
 * exec.c - the "ctl-exec" e2e test (checks/ctl.py): three images of one
 * process, each exec'ing the next with an empty environment. Image k
 * makes 100*k b_mul calls, says "phase k SUM", waits for a line on stdin,
 * makes 10*k more and execs image k+1 (argv[1]); image 3 ends. Whether
 * each image counts them is the pause state it inherited, and what the
 * test did to it meanwhile. stdin is read unbuffered: what one image's
 * buffer held would be lost to the next.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int b_mul(int x, int y);

static long muls(int n)
{
	long s = 0;

	for (int i = 0; i < n; i++)
		s += b_mul(i, 3);
	return s;
}

int main(int argc, char **argv)
{
	int k = argc > 1 ? atoi(argv[1]) : 1;
	char line[64], next[16];

	setvbuf(stdin, NULL, _IONBF, 0);        /* the next image reads on */
	printf("phase %d %ld\n", k, muls(100 * k));
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 3;
	printf("image %d %ld\n", k, muls(10 * k));
	fflush(stdout);
	if (k == 3)
		return 0;
	snprintf(next, sizeof(next), "%d", k + 1);
	char *args[] = {argv[0], next, NULL}, *env[] = {NULL};
	execve(argv[0], args, env);
	perror("execve");
	return 4;
}
