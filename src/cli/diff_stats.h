/*
 * diff_stats.h - the statistics of `scaler diff` (diff_stats.c): whether a
 * difference between two sets of runs is real, and how large it is.
 *
 * - the k-sample Anderson-Darling test (Scholz and Stephens 1987, the
 *   version for data with ties, as scipy.stats.anderson_ksamp with
 *   midrank=True) on binned distributions: each sample is a histogram over
 *   the same ordered bins (a latency histogram's log2 buckets, later an
 *   argument value's), its weights need not be integers;
 * - the Hellinger distance between two histograms, the size of a change
 *   in shape (0 the same, 1 disjoint);
 * - a test on a positive figure measured once per run (a count of calls,
 *   a time): Welch's t test on its logarithm when both sides have several
 *   runs, with each side's spread floored at what one run cannot be below
 *   (Poisson scatter for counts, a minimum relative spread); with one run
 *   on a side, that side's spread is an assumed one (Poisson plus a
 *   relative overdispersion given by the caller).
 *
 * Everything is plain double arithmetic with libm; no state.
 */
#ifndef SCALER_DIFF_STATS_H
#define SCALER_DIFF_STATS_H

#include <stddef.h>

/* The result of the k-sample Anderson-Darling test. */
struct ds_ad {
	double a2;      /* A2akN, the statistic */
	double t;       /* (A2akN - (k - 1)) / sigma: the standardised statistic */
	double crit05;  /* the critical value of t at significance 0.05 */
	double p;       /* approximate p, interpolated as scipy does, within
			   [0.001, 0.25] (the range its table covers) */
	int valid;      /* 0: fewer than 2 samples with weight, or N < 4 */
};

/*
 * The k-sample Anderson-Darling test that the k samples come from one
 * distribution. hist[i] is sample i's weight in each of nbins ordered bins
 * (a bin is one value: all of its weight ties). Samples of no weight are
 * left out. Returns r->valid.
 */
int ds_anderson_ksamp(const double *const *hist, size_t k, size_t nbins, struct ds_ad *r);

/* The Hellinger distance between the histograms p and q (each normalised
 * by its own sum): sqrt(1 - sum sqrt(p_i q_i)), in [0, 1]; 0 if either is
 * empty. */
double ds_hellinger(const double *p, const double *q, size_t nbins);

/* Two-sided p of Student's t with df degrees of freedom (df > 0). */
double ds_t_p(double t, double df);

/* Two-sided p of a standard normal z. */
double ds_z_p(double z);

/* How a figure measured once per run scatters from run to run, beyond
 * what several runs of a side show. */
struct ds_noise {
	int poisson;    /* a count of events: at least Poisson scatter */
	double cv;      /* assumed relative spread (coefficient of variation)
			   of one run, for a side with one run */
	double cv_min;  /* the least relative spread of a side with several
			   runs (their sample spread can be 0 by chance) */
};

/* The result of ds_rate_test. */
struct ds_rate {
	double base, new_;      /* the sides' means */
	double ratio;           /* new / base (with 0.5 added to both when a
				   side is 0) */
	double stat;            /* t or z of log(new / base) */
	double df;              /* Welch's degrees of freedom; 0: z test */
	double p;               /* two-sided */
	double size;            /* |ratio - 1| / (ratio + 1): the change's size
				   in [0, 1), 0 for none, near 1 for a figure
				   that appeared or vanished */
};

/*
 * Is the figure measured in nb runs of the base (b[]) and nn runs of the
 * new side (n[]) different? With at least 2 runs a side: Welch's t on
 * log(x + 0.5) per run, each side's variance of the log at least
 * (Poisson) 1/(mean + 0.5) plus cv_min^2. Otherwise a z test of the log
 * ratio with a one-run side's variance cv^2 and, for counts, also a z
 * test of Poisson scatter on sqrt(mean + 3/8); p is the larger of the
 * two (both must reject).
 */
void ds_rate_test(const double *b, size_t nb, const double *n, size_t nn,
		  const struct ds_noise *noise, struct ds_rate *r);

#endif
