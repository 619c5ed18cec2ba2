/*
 * spin.h - busy-waiting for a given wall time without calling out of the
 * library (shared by libsc_an.so and libsc_an2.so, each with its own copy
 * of the rate): the TSC rate is measured once in a constructor, which the
 * profiler does not see, so all of a spin's time is the library's own.
 */
#ifndef SC_AN_SPIN_H
#define SC_AN_SPIN_H

#include <time.h>
#include <x86intrin.h>

static double ticks_per_us;

__attribute__((constructor)) static void spin_calibrate(void)
{
	struct timespec a, b;
	long ns;
	clock_gettime(CLOCK_MONOTONIC, &a);
	unsigned long long t0 = __rdtsc();
	do {
		clock_gettime(CLOCK_MONOTONIC, &b);
		ns = (b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec);
	} while (ns < 20000000L);
	ticks_per_us = (double)(__rdtsc() - t0) / ((double)ns / 1000.0);
}

/* spins us microseconds; returns the ticks it really took */
static inline unsigned long long spin(long us)
{
	unsigned long long t0 = __rdtsc();
	unsigned long long end = t0 + (unsigned long long)(us * ticks_per_us);
	unsigned long long t;
	while ((t = __rdtsc()) < end)
		;
	return t - t0;
}

/* the calling thread's CPU time in ns, by a system call made here (a
 * call into libc would be a call out of the library) */
static inline unsigned long long thread_cpu_ns(void)
{
	struct timespec ts = {0, 0};
	long rc;
	__asm__ volatile("syscall" : "=a"(rc)
			 : "0"(228L /* clock_gettime */), "D"(3L /* CLOCK_THREAD_CPUTIME_ID */),
			   "S"(&ts)
			 : "rcx", "r11", "memory");
	(void)rc;
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

#endif
