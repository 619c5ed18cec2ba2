/*
 * diff_stats.c - the statistics of `scaler diff` (diff_stats.h): the
 * k-sample Anderson-Darling test on binned data, the Hellinger distance,
 * and the per-run test of a count or a time.
 */
#include "diff_stats.h"

#include <math.h>

/* ---- k-sample Anderson-Darling --------------------------------------- */

/* scipy.stats.anderson_ksamp's table: the critical values of the
 * standardised statistic are b0 + b1/sqrt(m) + b2/m (m = k - 1) at these
 * significance levels (Scholz and Stephens 1987, table 1 fitted). */
static const double ad_sig[7] = { 0.25, 0.1, 0.05, 0.025, 0.01, 0.005, 0.001 };
static const double ad_b0[7] = { 0.675, 1.281, 1.645, 1.96, 2.326, 2.573, 3.085 };
static const double ad_b1[7] = { -0.245, 0.25, 0.678, 1.149, 1.822, 2.364, 3.615 };
static const double ad_b2[7] = { -0.105, -0.305, -0.362, -0.391, -0.396, -0.345, -0.154 };

/* h = sum_{i=1}^{N-1} 1/i and g = sum_{i=1}^{N-2} sum_{j=i+1}^{N-1}
 * 1/((N-i) j), the constants of the statistic's variance. Exact sums up
 * to N = 1e6; beyond, their limits (h ~ ln(N-1) + gamma, g -> pi^2/6),
 * whose error is below 1e-5 there. */
static void ad_hg(double n, double *h, double *g)
{
	if (n > 1e6) {
		*h = log(n - 1) + 0.57721566490153286 + 1 / (2 * (n - 1));
		*g = M_PI * M_PI / 6;
		return;
	}
	size_t nn = (size_t)n;
	double cs = 0, gs = 0;

	/* cs = 1/(N-1) + ... + 1/(N-1-t); g = sum_t cs_t / (t + 2) */
	for (size_t t = 0; t + 3 <= nn; t++) {
		cs += 1.0 / (double)(nn - 1 - t);
		gs += cs / (double)(t + 2);
	}
	*h = cs + 1;
	*g = gs;
}

/* Least-squares parabola through (x_i, y_i), i < 7: y = c0 x^2 + c1 x + c2. */
static void fit_quadratic(const double *x, const double *y, double c[3])
{
	double s[5] = { 0 }, t[3] = { 0 }, m[3][4];
	int i, j, r;

	for (i = 0; i < 7; i++) {
		double p = 1;
		for (j = 0; j < 5; j++) {
			s[j] += p;
			if (j < 3)
				t[j] += p * y[i];
			p *= x[i];
		}
	}
	/* normal equations for (c2, c1, c0): sum x^(r+j) c_j = sum x^r y */
	for (r = 0; r < 3; r++) {
		for (j = 0; j < 3; j++)
			m[r][j] = s[r + j];
		m[r][3] = t[r];
	}
	for (r = 0; r < 3; r++) {
		for (i = r + 1; i < 3; i++) {
			double f = m[i][r] / m[r][r];
			for (j = r; j < 4; j++)
				m[i][j] -= f * m[r][j];
		}
	}
	double v[3];
	for (r = 2; r >= 0; r--) {
		double a = m[r][3];
		for (j = r + 1; j < 3; j++)
			a -= m[r][j] * v[j];
		v[r] = a / m[r][r];
	}
	c[0] = v[2];
	c[1] = v[1];
	c[2] = v[0];
}

int ds_anderson_ksamp(const double *const *hist, size_t k_in, size_t nbins, struct ds_ad *r)
{
	double n[k_in > 0 ? k_in : 1];
	size_t use[k_in > 0 ? k_in : 1];
	size_t i, j, k = 0;
	double N = 0, a2 = 0, H = 0;

	r->a2 = r->t = 0;
	r->p = 1;
	r->crit05 = 0;
	r->valid = 0;
	for (i = 0; i < k_in; i++) {
		double s = 0;
		for (j = 0; j < nbins; j++)
			s += hist[i][j];
		if (s > 0) {
			n[k] = s;
			use[k++] = i;
			N += s;
		}
	}
	if (k < 2 || N < 4)
		return 0;
	/* the midrank statistic: at each distinct value z_j (a bin with any
	 * weight), B_j the weight below it plus half its own (l_j), M_ij the
	 * same within sample i */
	for (i = 0; i < k; i++) {
		double below = 0, mine = 0, inner = 0;

		for (j = 0; j < nbins; j++) {
			double l = 0, f = hist[use[i]][j];
			size_t q;

			for (q = 0; q < k; q++)
				l += hist[use[q]][j];
			if (l <= 0)
				continue;
			double B = below + l / 2, M = mine + f / 2;
			double den = B * (N - B) - N * l / 4;
			if (den > 0)
				inner += l / N * (N * M - B * n[i]) * (N * M - B * n[i]) / den;
			below += l;
			mine += f;
		}
		a2 += inner / n[i];
		H += 1 / n[i];
	}
	a2 *= (N - 1) / N;

	double h, g, K = (double)k;
	ad_hg(N, &h, &g);
	double a = (4 * g - 6) * (K - 1) + (10 - 6 * g) * H;
	double b = (2 * g - 4) * K * K + 8 * h * K + (2 * g - 14 * h - 4) * H - 8 * h + 4 * g - 6;
	double c = (6 * h + 2 * g - 2) * K * K + (4 * h - 4 * g + 6) * K + (2 * h - 6) * H + 4 * h;
	double d = (2 * h + 6) * K * K - 4 * h * K;
	double var = (a * N * N * N + b * N * N + c * N + d) / ((N - 1) * (N - 2) * (N - 3));
	double m = K - 1, crit[7], ls[7], cf[3];

	if (!(var > 0))
		return 0;
	r->a2 = a2;
	r->t = (a2 - m) / sqrt(var);
	for (i = 0; i < 7; i++) {
		crit[i] = ad_b0[i] + ad_b1[i] / sqrt(m) + ad_b2[i] / m;
		ls[i] = log(ad_sig[i]);
	}
	r->crit05 = crit[2];
	if (r->t < crit[0])
		r->p = ad_sig[0];
	else if (r->t > crit[6])
		r->p = ad_sig[6];
	else {
		fit_quadratic(crit, ls, cf);
		r->p = exp((cf[0] * r->t + cf[1]) * r->t + cf[2]);
	}
	r->valid = 1;
	return 1;
}

/* ---- Hellinger distance ---------------------------------------------- */

double ds_hellinger(const double *p, const double *q, size_t nbins)
{
	double sp = 0, sq = 0, bc = 0;
	size_t i;

	for (i = 0; i < nbins; i++) {
		sp += p[i] > 0 ? p[i] : 0;
		sq += q[i] > 0 ? q[i] : 0;
	}
	if (sp <= 0 || sq <= 0)
		return 0;
	for (i = 0; i < nbins; i++)
		if (p[i] > 0 && q[i] > 0)
			bc += sqrt(p[i] / sp * q[i] / sq);
	return bc >= 1 ? 0 : sqrt(1 - bc);
}

/* ---- t and normal tails ---------------------------------------------- */

/* The continued fraction of the regularised incomplete beta function
 * (modified Lentz), valid for x < (a + 1) / (a + b + 2). */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;
	int m;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (m = 1; m <= 300; m++) {
		double m2 = 2.0 * m;
		double aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		d = 1 + aa * d;
		d = fabs(d) < tiny ? tiny : d;
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + aa * d;
		d = fabs(d) < tiny ? tiny : d;
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1 / d;
		double del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-15)
			break;
	}
	return h;
}

/* I_x(a, b), the regularised incomplete beta function. */
static double beta_inc(double a, double b, double x)
{
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	double lf = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
	if (x < (a + 1) / (a + b + 2))
		return exp(lf) * beta_cf(a, b, x) / a;
	return 1 - exp(lf) * beta_cf(b, a, 1 - x) / b;
}

double ds_t_p(double t, double df)
{
	if (!isfinite(t))
		return 0;
	return beta_inc(df / 2, 0.5, df / (df + t * t));
}

double ds_z_p(double z)
{
	return erfc(fabs(z) / M_SQRT2);
}

/* ---- per-run figures -------------------------------------------------- */

/* Mean and variance of log(x + 0.5) over a side's runs, the variance
 * floored as diff_stats.h says. */
static void side_log(const double *x, size_t nx, const struct ds_noise *nz, double *mean,
		     double *lmean, double *lvar)
{
	double s = 0, ls = 0, lss = 0;
	size_t i;

	for (i = 0; i < nx; i++) {
		double l = log((x[i] > 0 ? x[i] : 0) + 0.5);
		s += x[i] > 0 ? x[i] : 0;
		ls += l;
		lss += l * l;
	}
	*mean = nx ? s / (double)nx : 0;
	*lmean = nx ? ls / (double)nx : 0;
	double pois = nz->poisson ? 1 / (*mean + 0.5) : 0;
	if (nx >= 2) {
		double v = (lss - ls * ls / (double)nx) / (double)(nx - 1);
		double floor = pois + nz->cv_min * nz->cv_min;
		*lvar = v > floor ? v : floor;
	} else {
		*lvar = nz->cv * nz->cv;     /* Poisson: ds_rate_test's second test */
	}
}

void ds_rate_test(const double *b, size_t nb, const double *n, size_t nn,
		  const struct ds_noise *noise, struct ds_rate *r)
{
	double lb, ln, vb, vn;

	side_log(b, nb, noise, &r->base, &lb, &vb);
	side_log(n, nn, noise, &r->new_, &ln, &vn);
	if (r->base > 0 && r->new_ > 0)
		r->ratio = r->new_ / r->base;
	else
		r->ratio = (r->new_ + 0.5) / (r->base + 0.5);
	r->size = fabs(r->ratio - 1) / (r->ratio + 1);
	double sb = vb / (double)(nb ? nb : 1), sn = vn / (double)(nn ? nn : 1);
	double se = sqrt(sb + sn);
	r->stat = se > 0 ? (ln - lb) / se : 0;
	if (nb >= 2 && nn >= 2) {
		/* Welch-Satterthwaite */
		r->df = (sb + sn) * (sb + sn) /
			(sb * sb / (double)(nb - 1) + sn * sn / (double)(nn - 1));
		r->p = ds_t_p(r->stat, r->df);
	} else {
		/* the relative spread alone (side_log left Poisson out), then
		 * Poisson alone on the square roots of the means (Anscombe:
		 * sqrt(x + 3/8) has variance 1/4), which is right near 0 where
		 * the log is not; both must say "changed" */
		r->df = 0;
		r->p = ds_z_p(r->stat);
		if (noise->poisson) {
			double z = (sqrt(r->new_ + 0.375) - sqrt(r->base + 0.375)) /
				   sqrt(0.25 / (double)(nb ? nb : 1) + 0.25 / (double)(nn ? nn : 1));
			double p = ds_z_p(z);
			if (p > r->p) {
				r->p = p;
				r->stat = z;
			}
		}
	}
	if (r->base == r->new_ && nb && nn)
		r->p = 1;
}
