/*
 * test_diff_stats.c - unit test of scaler diff's statistics
 * (src/cli/diff_stats.c) against values computed independently with
 * scipy 1.10.1 (Debian 12's python3-scipy), each histogram expanded into
 * a sample of its bin indices:
 *
 *   r = scipy.stats.anderson_ksamp([np.repeat(np.arange(len(h)), h)
 *                                   for h in hists], midrank=True)
 *   r.statistic, r.critical_values[2], r.significance_level
 *   hellinger: np.sqrt(1 - np.sum(np.sqrt(p / p.sum() * q / q.sum())))
 *   scipy.stats.ttest_ind(np.log(n + 0.5), np.log(b + 0.5), equal_var=False)
 *   2 * scipy.stats.t.sf(t, df), 2 * scipy.stats.norm.sf(z)
 */
#include <math.h>
#include <stdio.h>

#include "diff_stats.h"
#include "check.h"

#define CLOSE(got, want, tol, what) \
	CHECK(fabs((double)(got) - (double)(want)) <= (tol) * (fabs((double)(want)) > 1 ? fabs((double)(want)) : 1), \
	      "%s: got %.12g, want %.12g", what, (double)(got), (double)(want))

static void ad2(const double *a, const double *b, size_t nb, double t, double crit, double p,
		const char *what)
{
	const double *h[2] = { a, b };
	struct ds_ad r;
	char w[128];

	CHECK(ds_anderson_ksamp(h, 2, nb, &r), "%s: valid", what);
	snprintf(w, sizeof(w), "%s: standardised statistic", what);
	CLOSE(r.t, t, 1e-9, w);
	snprintf(w, sizeof(w), "%s: critical value at 0.05", what);
	CLOSE(r.crit05, crit, 1e-12, w);
	snprintf(w, sizeof(w), "%s: p", what);
	CLOSE(r.p, p, 1e-9, w);
}

static void anderson(void)
{
	static const double base[] = { 0, 5, 20, 30, 10, 2, 0 };
	static const double shift[] = { 0, 1, 6, 18, 25, 12, 3 };
	static const double c1[] = { 3, 40, 100, 50, 7 }, c2[] = { 5, 38, 95, 55, 9 };
	static const double c3[] = { 0, 10, 50, 120, 60 };
	static const double m1[] = { 1, 30, 100, 62, 10 }, m2[] = { 2, 34, 100, 58, 9 };
	static const double b1[] = { 1000, 5000, 20000, 3000, 100 };
	static const double b2[] = { 1100, 4900, 19500, 3300, 150 };

	ad2(base, shift, 7, 25.60281713875088, 1.961, 0.001, "shifted");
	ad2(base, base, 7, -1.3320076497035123, 1.961, 0.25, "identical");
	ad2(c1, c2, 5, -0.9470275951168233, 1.961, 0.25, "close");
	ad2(c1, m1, 5, 2.5940075633349955, 1.961, 0.028137138917179248, "moderate (p interpolated)");
	ad2(c1, m2, 5, 0.1909261966680651, 1.961, 0.25, "slight");
	ad2(b1, b2, 5, 8.698322948680596, 1.961, 0.001, "large samples");

	const double *h3[3] = { c1, c2, c3 };
	struct ds_ad r;
	CHECK(ds_anderson_ksamp(h3, 3, 5, &r), "3 samples: valid");
	CLOSE(r.t, 94.18220784891834, 1e-9, "3 samples: statistic");
	CLOSE(r.crit05, 1.9434183976444794, 1e-12, "3 samples: critical value");

	static const double x1[] = { 10, 20, 30 }, x2[] = { 8, 18, 34 }, x3[] = { 12, 25, 28 };
	const double *hx[3] = { x1, x2, x3 };
	CHECK(ds_anderson_ksamp(hx, 3, 3, &r), "3 small samples: valid");
	CLOSE(r.t, -0.07742804131883191, 1e-9, "3 small samples: statistic");

	/* weights scaled by a constant give another N: not the same test, but
	 * an empty sample is left out and one sample alone is no test */
	static const double empty[] = { 0, 0, 0, 0, 0 };
	const double *he[3] = { c1, empty, c2 };
	CHECK(ds_anderson_ksamp(he, 3, 5, &r), "an empty sample is left out");
	CLOSE(r.t, -0.9470275951168233, 1e-9, "... and the others tested as 2 samples");
	const double *h1[2] = { c1, empty };
	CHECK(!ds_anderson_ksamp(h1, 2, 5, &r) && r.p == 1, "one sample with weight: no test");
}

static void hellinger(void)
{
	static const double p[] = { 0, 5, 20, 30, 10, 2, 0 };
	static const double q[] = { 0, 1, 6, 18, 25, 12, 3 };
	static const double a[] = { 1, 0 }, b[] = { 0, 1 }, z[] = { 0, 0 };
	static const double s[] = { 0, 10, 40, 60, 20, 4, 0 };

	CLOSE(ds_hellinger(p, q, 7), 0.36628051117109844, 1e-12, "hellinger of two histograms");
	CLOSE(ds_hellinger(p, s, 7), 0, 1e-7, "hellinger of the same shape at twice the weight");
	CLOSE(ds_hellinger(a, b, 2), 1, 1e-12, "hellinger of disjoint histograms");
	CLOSE(ds_hellinger(a, z, 2), 0, 0, "hellinger with an empty histogram");
}

static void tails(void)
{
	CLOSE(ds_t_p(2.1, 3.7), 0.10926470508222474, 1e-9, "t p (2.1, df 3.7)");
	CLOSE(ds_t_p(0.3, 25), 0.7666574936530572, 1e-9, "t p (0.3, df 25)");
	CLOSE(ds_t_p(8, 1.5), 0.032918350940906824, 1e-9, "t p (8, df 1.5)");
	CLOSE(ds_t_p(-2.1, 3.7), 0.10926470508222474, 1e-9, "t p is two-sided");
	CLOSE(ds_z_p(1.96), 0.04999579029644087, 1e-9, "z p (1.96)");
	CLOSE(ds_z_p(4.5), 6.795346249460107e-06, 1e-9, "z p (4.5)");
}

static void rates(void)
{
	static const double b[] = { 100, 110, 95 }, n[] = { 130, 128, 140, 135 };
	struct ds_noise plain = { 0, 0, 0 }, counts = { 1, 0.05, 0.01 };
	struct ds_rate r;

	/* Welch on the logs, no floors: scipy's ttest_ind */
	ds_rate_test(b, 3, n, 4, &plain, &r);
	CLOSE(r.stat, 5.734196342844063, 1e-9, "welch t of the logs");
	CLOSE(r.p, 0.011766127563948995, 1e-9, "welch p");
	CLOSE(r.ratio, 133.25 / (305.0 / 3), 1e-12, "ratio of the means");

	/* one run a side: the log ratio over sqrt(2 cv^2), and Poisson on
	 * square roots; worked: log(2000.5/1000.5) / sqrt(0.005) = 9.7989,
	 * (sqrt(2000.375) - sqrt(1000.375)) / sqrt(0.5) = 18.522; the
	 * smaller z is the one whose p counts */
	static const double one_b[] = { 1000 }, one_n[] = { 2000 }, same[] = { 1000 };
	ds_rate_test(one_b, 1, one_n, 1, &counts, &r);
	CLOSE(r.stat, log(2000.5 / 1000.5) / sqrt(0.005), 1e-12,
	      "one run a side: z of the log ratio with overdispersion");
	CLOSE(r.stat, 9.7989, 1e-4, "... worked value");
	CHECK(r.p < 1e-6, "a doubled count of 1000 is a change (p %.3g)", r.p);
	CLOSE(r.size, 1.0 / 3, 1e-12, "size of a doubling is 1/3");
	ds_rate_test(one_b, 1, same, 1, &counts, &r);
	CHECK(r.p == 1 && r.size == 0, "the same count: p 1, size 0");

	/* 1,000,000 vs 1,020,000: 2 % is within the assumed 5 % spread */
	static const double mb[] = { 1e6 }, mn[] = { 1.02e6 };
	ds_rate_test(mb, 1, mn, 1, &counts, &r);
	CHECK(r.p > 0.5, "2 %% more of a million calls is no change for one run (p %.3g)", r.p);

	/* appeared: 0 -> 50 calls */
	static const double zero[] = { 0 }, fifty[] = { 50 };
	ds_rate_test(zero, 1, fifty, 1, &counts, &r);
	CHECK(r.p < 1e-6 && r.size > 0.95, "0 -> 50 calls: a change of size %.3f (p %.3g)",
	      r.size, r.p);
	/* 0 -> 1 call: Poisson says it may be chance */
	static const double one[] = { 1 };
	ds_rate_test(zero, 1, one, 1, &counts, &r);
	CHECK(r.p > 0.05, "0 -> 1 call is not a change (p %.3g)", r.p);

	/* several runs with no spread at all: the floors keep it finite */
	static const double fb[] = { 500, 500, 500 }, fn[] = { 510, 510, 510 };
	ds_rate_test(fb, 3, fn, 3, &counts, &r);
	CHECK(isfinite(r.stat) && r.p > 0.05, "500 vs 510 in every run: Poisson says chance (p %.3g)",
	      r.p);
}

int main(void)
{
	anderson();
	hellinger();
	tails();
	rates();
	return check_summary();
}
