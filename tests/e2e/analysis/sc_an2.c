/*
 * sc_an2.c - libsc_an2.so for the "analysis" e2e test: the inner half of a
 * nested call (libsc_an.so's an_outer calls an_inner). Spins on the TSC at
 * a rate it measures in its constructor (unseen by the profiler).
 */
#include <time.h>
#include <x86intrin.h>

static double ticks_per_us;

__attribute__((constructor)) static void calibrate(void)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	unsigned long long t0 = __rdtsc();
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 20000000L);
	unsigned long long t1 = __rdtsc();
	ticks_per_us = (double)(t1 - t0) /
		       ((double)((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec)) / 1000.0);
}

void an_inner(long us)
{
	unsigned long long end = __rdtsc() + (unsigned long long)(us * ticks_per_us);
	while (__rdtsc() < end)
		;
}
