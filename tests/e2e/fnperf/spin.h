/*
 * spin.h - the work of the fnperf programs (hot.c, short.c): a dependent
 * chain of n multiplies, inlined into each function that spins, so that
 * its cost is proportional to n on any x86-64.
 */
#ifndef FNPERF_SPIN_H
#define FNPERF_SPIN_H

#define NOINLINE __attribute__((noinline))

static inline __attribute__((always_inline)) unsigned spin(unsigned n, unsigned x)
{
	for (unsigned i = 0; i < n; i++) {
		x = x * 2654435761u + i;
		__asm__("" : "+r"(x));  /* no closed form, no vectors */
	}
	return x;
}

#endif
