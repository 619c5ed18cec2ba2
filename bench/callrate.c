/*
 * callrate.c - call-rate microbenchmark: N calls of an empty function in a
 * shared library, timed inside the program (so start-up and report costs
 * are excluded). Prints nanoseconds per call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void bench_empty(void);

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000000;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		bench_empty();
	clock_gettime(CLOCK_MONOTONIC, &b);
	double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
	printf("%.2f\n", ns / (double)n);
	return 0;
}
