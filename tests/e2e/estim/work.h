/*
 * work.h - the work of one short est_call, shared by libsc_est.so and
 * sc_estim's private copy of it (the truth for the short calls: the same
 * work timed beside them, never interposed).
 */
#ifndef SC_EST_WORK_H
#define SC_EST_WORK_H

#include <x86intrin.h>

/*
 * ~10 ns: a TSC read. Not arithmetic: the TSC read that ends a timed
 * call does not wait for the instructions before it, and a chain of
 * multiplies still in flight when the API returns would be partly
 * outside the measured interval (a few ns of timing error per call,
 * doc/performance.md); TSC reads are not reordered among themselves,
 * so what is left is the estimator's error.
 */
static inline unsigned long est_work(unsigned long s)
{
	return s + __rdtsc();
}

#endif
