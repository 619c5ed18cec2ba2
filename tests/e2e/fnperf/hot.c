/*
 * hot.c - a CPU-bound program whose time lies in four static functions of
 * known shares, for checks/fnperf.py (scaler's function view against
 * perf's self overhead): per call of run_top, leaf 40 %, side 30 %, mid
 * 20 %, run_top itself 10 %. The work is a dependent chain of multiplies
 * (spin), inlined into each function, so its cost is proportional to its
 * length on any x86-64. leaf is three calls deep (run_top -> mid -> leaf)
 * and called 400 times per run_top: the cost of timing it must not be
 * left in run_top's exclusive time. Prints a checksum, the same with or
 * without a profiler.
 */
#include <stdio.h>
#include <stdlib.h>

#include "spin.h"

NOINLINE static unsigned leaf(unsigned x)
{
	return spin(100, x);
}

NOINLINE static unsigned mid(unsigned x)
{
	for (int i = 0; i < 40; i++)
		x = leaf(x);
	return spin(2000, x);
}

NOINLINE static unsigned side(unsigned x)
{
	return spin(30000, x);
}

NOINLINE static unsigned run_top(unsigned x)
{
	for (int i = 0; i < 10; i++)
		x = mid(x);
	return spin(10000, x);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2000;
	unsigned x = 1;

	for (int i = 0; i < n; i++)
		x = side(run_top(x));
	printf("%u\n", x);
	return 0;
}
