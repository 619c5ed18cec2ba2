/*
 * argdist.h - the distribution of one argument or return value of an API
 * (scaler record --args), as the reader and the report keep it: the
 * .args histograms (format.h) summed over threads, scaled to the calls
 * they stand for, and merged by (caller, callee, API) and value name.
 */
#ifndef SCALER_ARGDIST_H
#define SCALER_ARGDIST_H

#include <stddef.h>
#include <stdint.h>

#include "format.h"

#define SC_ARGDIST_NERR 64     /* errno values kept per (caller, API) */

struct sc_argdist {
	const char *name;           /* "count", "ret" (the return value) */
	uint32_t flags;             /* SC_ARGV_SIGNED: min and max are int64 */
	uint64_t seen;              /* timed calls that gave a value */
	uint64_t min, max;          /* exact over those */
	long double calls;          /* calls they stand for (estimated; exact
				       in timing "all") */
	long double sum;            /* sum of the non-negative values over
				       those calls */
	long double neg;            /* calls with a negative value */
	/* calls per bucket: [0] the value 0, [b] values of [2^(b-1), 2^b) */
	long double hist[SC_ARGS_NHIST];
	/* SC_ARGV_DISTINCT (hist, sum, min and max unused): the first
	 * distinct values, how many (SC_ARGS_EXACT + 1: more), and a
	 * HyperLogLog of them all (format.h) */
	uint32_t nexact;
	uint64_t exact[SC_ARGS_EXACT];
	uint8_t hll[SC_ARGS_HLL];
	/* SC_ARGV_ERRNO (hist, sum, min and max unused): failed calls by
	 * errno, and those whose errno was not kept */
	uint32_t nerr;
	struct sc_argerr {
		uint32_t err;
		long double calls;
	} errs[SC_ARGDIST_NERR];
	long double err_other;
};

/* Adds src into dst (same name; dst->seen == 0: a copy). */
void sc_argdist_add(struct sc_argdist *dst, const struct sc_argdist *src);

/* Multiplies the weights of d by f (the reader's calls per weight). */
void sc_argdist_scale(struct sc_argdist *d, long double f);

/* Merges the n distributions of src into the *nd of *d (grown, matched
 * by name). */
void sc_argdist_merge(struct sc_argdist **d, uint32_t *nd, const struct sc_argdist *src,
		      uint32_t n);

/* The mean of the non-negative values, 0 without any. */
long double sc_argdist_mean(const struct sc_argdist *d);

/* The lowest value of bucket b. */
uint64_t sc_argdist_lo(int b);

/* How many distinct values a SC_ARGV_DISTINCT value had; *exact says
 * whether the count is exact (else the HyperLogLog's estimate). */
double sc_argdist_distinct(const struct sc_argdist *d, int *exact);

/* The calls of a SC_ARGV_ERRNO value that failed. */
long double sc_argdist_failed(const struct sc_argdist *d);

/* The bucket holding most calls, -1 if none. */
int sc_argdist_mode(const struct sc_argdist *d);

/* min or max as a signed number when the value is signed */
int sc_argdist_signed(const struct sc_argdist *d);

#endif
