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
 *
 * `callrate N 16` calls sixteen distinct empty functions instead, in a
 * fixed pseudo-random order: as in a real program, whatever an
 * interposer has in common between APIs (one shared jump on to them) no
 * longer sees the same API every time. The program's own switch is
 * mispredicted too, so only the figure a profiler adds means anything.
 *
 * `callrate N own` calls fr_empty, an empty static function of this
 * program with a compiler's patch site at its entry (five nops, as
 * uftrace -P needs), for `scaler record --functions=fr_empty`: a patched
 * entry called from its own component (bench/run.sh, part functions).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void bench_empty(void);
#define D(n) void bench_f##n(void);
D(0) D(1) D(2) D(3) D(4) D(5) D(6) D(7) D(8) D(9) D(10) D(11) D(12) D(13) D(14) D(15)

#define BATCH 10000

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

__attribute__((noinline, patchable_function_entry(5, 0))) static void fr_empty(void)
{
	__asm__ volatile("");
}

/* one of the sixteen, by number */
static inline void call_one(unsigned k)
{
#define C(n) case n: bench_f##n(); break;
	switch (k) {
	C(0) C(1) C(2) C(3) C(4) C(5) C(6) C(7) C(8) C(9) C(10) C(11) C(12) C(13) C(14)
	default: bench_f15(); break;
	}
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000000;
	int varied = argc > 2 && atoi(argv[2]) > 1, own = argc > 2 && !strcmp(argv[2], "own");
	static unsigned char seq[BATCH];
	unsigned x = 12345;
	for (int i = 0; i < BATCH; i++) {
		x = x * 1103515245u + 12345u;
		seq[i] = (x >> 16) % 16;
	}
	double best = 1e300, t0 = now(), a = t0;
	for (long done = 0; done < n;) {
		long m = n - done < BATCH ? n - done : BATCH;
		if (varied)
			for (long i = 0; i < m; i++)
				call_one(seq[i]);
		else if (own)
			for (long i = 0; i < m; i++)
				fr_empty();
		else
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
