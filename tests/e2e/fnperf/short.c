/*
 * short.c - a caller whose time lies between many calls of a short
 * function, for checks/fnperf.py: emit calls tiny 1000 times per call, each
 * call ~5 ns of work in tiny and as much in emit around it; other (half of
 * the time) is one long call. Under --timing=all every call of tiny is
 * timed: the cost of timing it must be taken off emit once, not twice
 * (once in tiny's own time and again in the figure each timed return takes
 * off its caller), or emit's exclusive time vanishes. Prints a checksum,
 * the same with or without a profiler.
 */
#include <stdio.h>
#include <stdlib.h>

#include "spin.h"

NOINLINE static unsigned tiny(unsigned x)
{
	return spin(4, x);
}

NOINLINE static unsigned emit(unsigned x)
{
	for (int i = 0; i < 1000; i++)
		x = spin(4, tiny(x));
	return x;
}

NOINLINE static unsigned other(unsigned x)
{
	return spin(8000, x);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2000;
	unsigned x = 1;

	for (int i = 0; i < n; i++)
		x = other(emit(x));
	printf("%u\n", x);
	return 0;
}
