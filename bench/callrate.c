/*
 * callrate.c - call-rate microbenchmark: N calls of an empty function in a
 * shared library, timed inside the program (so start-up and report costs
 * are excluded). Prints two figures, nanoseconds per call:
 *   mean   over all N calls
 *   quiet  in the fastest batch of BATCH calls
 * Our machines are shared VMs whose speed moves in steps for seconds at a
 * time (a timed call measured 33, 45, 50 or 63 ns in back-to-back runs of
 * one build): the mean says what a run cost, the quiet figure what the
 * code costs when the host leaves the core alone, and it is the one that
 * tells two builds apart.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void bench_empty(void);

#define BATCH 10000

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000000;
	double best = 1e300, t0 = now(), a = t0;
	for (long done = 0; done < n;) {
		long m = n - done < BATCH ? n - done : BATCH;
		for (long i = 0; i < m; i++)
			bench_empty();
		double b = now();
		if (m == BATCH && (b - a) / m < best)
			best = (b - a) / m;
		a = b;
		done += m;
	}
	printf("%.2f %.2f\n", (a - t0) / (double)n, best < 1e300 ? best : (a - t0) / (double)n);
	return 0;
}
