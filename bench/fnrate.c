/*
 * fnrate.c - call-rate microbenchmark of a patched function's entry
 * (`scaler record --functions=fr_empty`): N calls of an empty static
 * function from its own executable, timed inside the program. Built with
 * -fpatchable-function-entry=5, as uftrace -P needs it, so the entry is
 * five nops (a compiler's patch site). Prints the mean and the quiet
 * figure (the fastest batch of BATCH calls) in ns per call, as
 * callrate.c does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BATCH 10000

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

__attribute__((noinline)) static void fr_empty(void)
{
	__asm__ volatile("");
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000000;
	double best = 1e300, t0 = now(), a = t0;
	for (long done = 0; done < n;) {
		long m = n - done < BATCH ? n - done : BATCH;
		for (long i = 0; i < m; i++)
			fr_empty();
		double b = now();
		if (m == BATCH && (b - a) / m < best)
			best = (b - a) / m;
		a = b;
		done += m;
	}
	printf("%.2f %.2f\n", (a - t0) / (double)n, best < 1e300 ? best : (a - t0) / (double)n);
	return 0;
}
