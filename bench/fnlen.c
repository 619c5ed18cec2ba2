/*
 * fnlen.c - a function of known length for bench/fnlen.py: f is a chain of
 * K dependent multiplies (-DK=), called 1000 times per call of drive with
 * a chain of 4 around each call, so that drive's exclusive time and f's
 * are known in units of one multiply. base does the same work with f's
 * chain inlined: its time per iteration, printed on stderr, gives the
 * length of one multiply on this run's machine (the call itself costs
 * nothing measurable beside a dependent chain). Prints a checksum.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "spin.h"

#ifndef K
#define K 4
#endif

NOINLINE static unsigned f(unsigned x)
{
	return spin(K, x);
}

NOINLINE static unsigned drive(unsigned x)
{
	for (int i = 0; i < 1000; i++)
		x = spin(4, f(x));
	return x;
}

NOINLINE static unsigned base(unsigned x)
{
	for (int i = 0; i < 1000; i++) {
		x = spin(K, x);
		__asm__ volatile("" : "+r"(x));
		x = spin(4, x);
	}
	return x;
}

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2000;
	unsigned x = 1;
	double best = 1e30;

	for (int i = 0; i < n; i++)
		x = drive(x);
	for (int r = 0; r < 5; r++) {           /* the fastest of 5 rounds */
		double t0 = now_ns();
		for (int i = 0; i < n / 5; i++)
			x = base(x);
		double t = now_ns() - t0;
		if (t < best)
			best = t;
	}
	fprintf(stderr, "base %.3f ns per iteration\n", best / (n / 5 * 1000.0));
	printf("%u\n", x);
	return 0;
}
