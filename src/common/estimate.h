/*
 * estimate.h - from a counter record's sums to the figures a report shows:
 * the sampled estimate of a record's times, TSC ticks to nanoseconds, and
 * latency histograms and their quantiles.
 *
 * All of it is pure arithmetic on long double (x87 extended precision),
 * so that the reader and the model get the same bits from the same input.
 */
#ifndef SCALER_ESTIMATE_H
#define SCALER_ESTIMATE_H

#include <stdint.h>

#include "format.h"

/*
 * Sums of figures that come from a file, which may hold anything (a
 * counter near 2^64, a made-up wall time): saturated at the type's
 * limits, never wrapped (signed overflow is undefined behaviour, and a
 * wrapped time prints negative).
 */
static inline int64_t sc_add_sat(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return a < 0 ? INT64_MIN : INT64_MAX;
	return r;
}

static inline int64_t sc_sub_sat(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_sub_overflow(a, b, &r))
		return a < 0 ? INT64_MIN : INT64_MAX;
	return r;
}

static inline uint64_t sc_addu_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* A uint64 time read from a file as int64, INT64_MAX if it is over. */
static inline int64_t sc_u64_ns(uint64_t v)
{
	return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
}

/* Latency histograms in the report: bucket i holds [2^i, 2^(i+1)) ns
 * (bucket 0 also everything below 1 ns); the last is open-ended. */
#define SC_HIST_BUCKETS 40
static inline uint64_t sc_hist_lo_ns(int i) { return i == 0 ? 0 : (uint64_t)1 << i; }

/*
 * One record's estimated inclusive, exclusive, attributed (parallel clock)
 * and blocked ticks, for all of its `count` calls. `overhead_ticks` is a
 * cost per call still to be taken off (0 since format 4, whose runtime
 * took it off each timed call).
 */
void sc_estimate(const struct sc_rec *r, uint64_t overhead_ticks, long double *incl,
		 long double *self, long double *attr, long double *block);

/*
 * A record's blocked, preempted and kernel ticks (format 6) for all of its
 * calls, given its estimated inclusive ticks `incl`: each sum is weighted
 * by span as wticks is, so each is incl times its share of wticks (at most
 * incl).
 */
void sc_estimate_perf(const struct sc_rec *r, long double incl, long double *blocked,
		      long double *preempt, long double *kernel);

/*
 * Of a record's estimated inclusive ticks `incl`, the part that calls on
 * its own edge nested inside its calls spent (sc_rec.dup_ticks, booked
 * like self_ticks: unweighted by the outer call's w), which the edge's
 * time already holds in their records: incl scaled by dup_ticks/ticks,
 * in [0, incl].
 */
long double sc_estimate_dup(const struct sc_rec *r, long double incl);

/* Of a record's preempted ticks, those in its self time (wself_preempt),
 * likewise: in [0, self]; 0 from files without the figure. */
long double sc_estimate_self_preempt(const struct sc_rec *r, long double incl, long double self);

/* ticks at tsc_hz as ns; 0 without a clock rate (tsc_hz <= 0) */
long double sc_ticks_to_ns(long double tsc_hz, long double ticks);

/* ns rounded to an integer; 0 for NaN or not positive */
int64_t sc_round_ns(long double ns);

/* Add a record histogram (SC_REC_HIST tick buckets) to a report histogram
 * (SC_HIST_BUCKETS ns buckets); nothing without a clock rate. */
void sc_hist_to_ns(long double tsc_hz, const long double *ticks, long double *ns);

/* p50 and p99 of `count` calls of total_ns in all, longest max_ns, from
 * their histogram (SC_HIST_BUCKETS ns buckets); 0 for an empty one. */
void sc_latency_quantiles(const uint64_t *hist, uint64_t count, int64_t total_ns,
			  int64_t max_ns, int64_t *p50, int64_t *p99);

#endif
