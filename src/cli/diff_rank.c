/*
 * diff_rank.c - the findings of `scaler diff` (diff_rank.h): every row of
 * either side's model matched by name, each figure and distribution
 * tested (diff_stats.c), the unit of work told, the significant changes
 * named as patterns, and all of it ranked by vProf's discounted cost.
 *
 * The thresholds below are the whole policy; doc/diff.md explains them.
 */
#include "diff_rank.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hints.h"
#include "report.h"
#include "xalloc.h"

/* A count of calls scatters at least as Poisson and, from one run to the
 * next of a program that is not deterministic, by some 5 %; a time by
 * 25 %: two runs of the same program on our loaded 2-core machines took
 * x0.4 to x2.4 each other's time per API. Several runs a side measure the
 * spread instead. */
static const struct ds_noise noise_count = { 1, 0.05, 0.01 };
static const struct ds_noise noise_ratio = { 0, 0.05, 0.01 };
static const struct ds_noise noise_time = { 0, 0.25, 0.02 };

/* A change matters when it moves at least this share of all threads' time
 * (of all calls, untimed). */
#define MATERIAL 0.005
/* The least Hellinger distance of a latency change (vProf's ValidDiscount),
 * and the least change of the mean call: the timing of a call is good to a
 * few ns (README) */
#define H_MIN 0.1
#define LAT_MIN_NS 10
/* vProf's floor under 1 - size (DIFF_DEFAULT_DISCOUNT: diff_rank.h) */
#define VALID_DISCOUNT 0.1
/* A unit of work: a row called at least this often in every run whose
 * count moved by at most this share (find_work) */
#define WORK_MIN_CALLS 100
#define WORK_STILL 0.01

/* ---- matching rows across runs ----------------------------------------- */

struct key {
	const char *caller, *callee, *api;
};

static int cmp_key(const void *a, const void *b)
{
	const struct key *x = a, *y = b;

	return strcmp(x->caller, y->caller) ?: strcmp(x->callee, y->callee) ?:
	       strcmp(x->api, y->api);
}

static int cmp_callp(const void *a, const void *b)
{
	const struct sc_call *x = *(const struct sc_call *const *)a;
	const struct sc_call *y = *(const struct sc_call *const *)b;
	struct key kx = { x->caller, x->callee, x->api }, ky = { y->caller, y->callee, y->api };

	return cmp_key(&kx, &ky);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* One run's calls sorted by key, for lookups. */
struct index {
	size_t n;
	const struct sc_call **c;
};

static void index_build(struct index *ix, const struct sc_agg *a)
{
	ix->n = a->ncalls;
	ix->c = sc_xcalloc(a->ncalls, sizeof(*ix->c));
	for (size_t i = 0; i < a->ncalls; i++)
		ix->c[i] = &a->calls[i];
	sc_sort(ix->c, ix->n, sizeof(*ix->c), cmp_callp);
}

static const struct sc_call *index_find(const struct index *ix, const struct key *k)
{
	size_t lo = 0, hi = ix->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct sc_call *c = ix->c[mid];
		struct key kc = { c->caller, c->callee, c->api };
		int r = cmp_key(k, &kc);

		if (!r)
			return c;
		if (r < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* Both sides' runs in one list: base first. */
struct runs {
	size_t nb, nn;
	const struct diff_run **r;
	struct index *ix;
};

static size_t nall(const struct runs *rs) { return rs->nb + rs->nn; }

/* Both sides have several runs: a time's run-to-run spread is measured. */
static int spread(const struct runs *rs) { return rs->nb >= 2 && rs->nn >= 2; }

/* ---- formatting for the patterns ---------------------------------------- */

static void fmt_ratio(char *b, size_t n, double r)
{
	if (r >= 9.95)
		snprintf(b, n, "×%.0f", r);
	else if (r < 0.1)
		snprintf(b, n, "×%.2g", r);
	else if (r >= 1.995)
		snprintf(b, n, "×%.1f", r);
	else
		snprintf(b, n, "×%.2f", r);
}

static void fmt_calls(char *b, size_t n, double v)
{
	if (v >= 100 || v == floor(v))
		report_fmt_count(b, n, (uint64_t)llround(v));
	else
		snprintf(b, n, "%.3g", v);
}

/* ---- per-run figures ----------------------------------------------------- */

/* Test the figure x[] (base runs first) and mark it significant. */
static void scalar(struct diff_scalar *s, const double *x, size_t nb, size_t nn,
		   const struct ds_noise *nz, double alpha)
{
	s->tested = 1;
	ds_rate_test(x, nb, x + nb, nn, nz, &s->r);
	s->significant = s->r.p < alpha;
}

/* Means of x over [from, from + n). */
static double mean_of(const double *x, size_t from, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += x[from + i];
	return n ? s / (double)n : 0;
}

/* A side's pooled histogram's quantiles. */
static void side_quantiles(struct diff_figs *f, double count, double total)
{
	uint64_t h[SC_HIST_BUCKETS];

	for (int b = 0; b < SC_HIST_BUCKETS; b++)
		h[b] = (uint64_t)llround(f->hist[b]);
	sc_latency_quantiles(h, (uint64_t)llround(count), (int64_t)llround(total), f->max_ns,
			     &f->p50_ns, &f->p99_ns);
}

static double hist_sum(const double *h)
{
	double s = 0;

	for (int b = 0; b < SC_HIST_BUCKETS; b++)
		s += h[b];
	return s;
}

/* The median of a latency histogram, linear within its bucket; 0 if empty. */
static double hist_p50(const double *h)
{
	double half = hist_sum(h) / 2, acc = 0;

	for (int b = 0; b < SC_HIST_BUCKETS && half > 0; b++) {
		if (acc + h[b] >= half && h[b] > 0) {
			double lo = (double)sc_hist_lo_ns(b);
			double hi = b + 1 < SC_HIST_BUCKETS ? (double)sc_hist_lo_ns(b + 1) : 2 * lo;
			return lo + (hi - lo) * (half - acc) / h[b];
		}
		acc += h[b];
	}
	return 0;
}

/* The largest Hellinger distance between two runs of one side: runh
 * holds nb + nn runs of width bins each, base first. */
static double within(const double *runh, size_t width, size_t nb, size_t nn)
{
	double w = 0;
	for (size_t side = 0; side < 2; side++) {
		size_t from = side ? nb : 0, n = side ? nn : nb;
		for (size_t i = 0; i < n; i++)
			for (size_t j = i + 1; j < n; j++) {
				double h = ds_hellinger(runh + (from + i) * width,
							runh + (from + j) * width, width);
				if (h > w)
					w = h;
			}
	}
	return w;
}

/* The latency distributions: pooled per side, scaled to the calls measured
 * (the test's sample size), and the largest distance between two runs of
 * one side. */
static void latency_dist(struct diff_dist *d, const struct diff_finding *f,
			 double (*runh)[SC_HIST_BUCKETS], size_t nb, size_t nn, int moved)
{
	double sb = hist_sum(f->base.hist), sn = hist_sum(f->new_.hist);
	double hb[SC_HIST_BUCKETS], hn[SC_HIST_BUCKETS];
	const double *h2[2] = { hb, hn };

	d->name = "latency";
	d->unit = "ns";
	if (sb <= 0 || sn <= 0)
		return;
	double eb = fmin(f->base.timed, f->base.calls * (double)nb);
	double en = fmin(f->new_.timed, f->new_.calls * (double)nn);
	for (int b = 0; b < SC_HIST_BUCKETS; b++) {
		hb[b] = f->base.hist[b] * eb / sb;
		hn[b] = f->new_.hist[b] * en / sn;
	}
	d->tested = ds_anderson_ksamp(h2, 2, SC_HIST_BUCKETS, &d->ad);
	d->hellinger = ds_hellinger(f->base.hist, f->new_.hist, SC_HIST_BUCKETS);
	d->within = within(&runh[0][0], SC_HIST_BUCKETS, nb, nn);
	d->significant = d->tested && d->ad.t > d->ad.crit05 && d->hellinger >= H_MIN &&
			 d->hellinger > 1.5 * d->within && moved &&
			 fabs(f->new_.mean_ns - f->base.mean_ns) >= LAT_MIN_NS;
}

/* ---- argument and return values (--args) -------------------------------- */

/* A value's bins: the negative values (errors), then its log2 buckets */
#define VBINS ((int)SC_ARGS_NHIST + 1)

static const struct sc_argdist *arg_of(const struct sc_call *c, const char *name)
{
	for (uint32_t i = 0; c && i < c->nargs; i++)
		if (!strcmp(c->args[i].name, name))
			return &c->args[i];
	return NULL;
}

/*
 * Tests the per-run bins runh[] of a value (base runs first) as the
 * latencies are: the calls per bin pooled per side, scaled to the values
 * seen[] (the test's sample size); run-to-run distances of one side bound
 * what counts as a change.
 */
static void test_bins(struct diff_dist *d, double (*runh)[VBINS], const struct runs *rs,
		      const double *seen)
{
	double pool[2][VBINS] = {{0}};
	for (size_t r = 0; r < nall(rs); r++)
		for (int b = 0; b < VBINS; b++)
			pool[r >= rs->nb][b] += runh[r][b];
	double tb = 0, tn = 0, hb[VBINS], hn[VBINS];
	const double *h2[2] = { hb, hn };
	for (int b = 0; b < VBINS; b++)
		tb += pool[0][b], tn += pool[1][b];
	if (tb <= 0 || tn <= 0)
		return;
	for (int b = 0; b < VBINS; b++) {
		hb[b] = pool[0][b] * seen[0] / tb;
		hn[b] = pool[1][b] * seen[1] / tn;
	}
	d->tested = ds_anderson_ksamp(h2, 2, VBINS, &d->ad);
	d->hellinger = ds_hellinger(pool[0], pool[1], VBINS);
	d->within = within(&runh[0][0], VBINS, rs->nb, rs->nn);
	d->significant = d->tested && d->ad.t > d->ad.crit05 && d->hellinger >= H_MIN &&
			 d->hellinger > 1.5 * d->within;
}

/*
 * The distribution of value `name` of the row k: its bins are the
 * negative values, then the log2 buckets; means[] gets each side's mean
 * value.
 */
static void value_dist(struct diff_dist *d, const char *name, const struct key *k,
		       const struct runs *rs, double *means)
{
	size_t n = nall(rs);
	double (*runh)[VBINS] = sc_xcalloc(n, sizeof(*runh));
	double seen[2] = {0}, sum[2] = {0}, nonneg[2] = {0};

	d->name = name;
	d->unit = "value";
	for (size_t r = 0; r < n; r++) {
		const struct sc_argdist *a = arg_of(index_find(&rs->ix[r], k), name);
		int s = r >= rs->nb;
		if (!a)
			continue;
		runh[r][0] = (double)a->neg;
		for (int b = 0; b < (int)SC_ARGS_NHIST; b++)
			runh[r][1 + b] = (double)a->hist[b];
		seen[s] += (double)a->seen;
		sum[s] += (double)a->sum;
		nonneg[s] += (double)(a->calls - a->neg);
	}
	for (int s = 0; s < 2; s++)
		means[s] = nonneg[s] > 0 ? sum[s] / nonneg[s] : 0;
	test_bins(d, runh, rs, seen);
	free(runh);
}

/*
 * The failures of row k by errno (--args' "errors"): bin 0 the calls
 * that did not fail, then one bin per errno value either side saw (those
 * past VBINS - 2 share the last); means[] gets each side's share of
 * calls that failed.
 */
static void errors_dist(struct diff_dist *d, const char *name, const struct key *k,
			const struct runs *rs, double *means)
{
	size_t n = nall(rs);
	double (*runh)[VBINS] = sc_xcalloc(n, sizeof(*runh));
	double seen[2] = {0}, failed[2] = {0}, calls[2] = {0};
	uint32_t errs[VBINS - 1];
	int nerr = 0;

	d->name = name;
	d->unit = "errno";
	for (size_t r = 0; r < n; r++) {
		const struct sc_argdist *a = arg_of(index_find(&rs->ix[r], k), name);
		int s = r >= rs->nb;
		if (!a)
			continue;
		long double f = sc_argdist_failed(a);
		runh[r][0] = (double)(a->calls - f);
		for (uint32_t i = 0; i < a->nerr; i++) {
			int b = 0;
			while (b < nerr && errs[b] != a->errs[i].err)
				b++;
			if (b == nerr && nerr < VBINS - 2)
				errs[nerr++] = a->errs[i].err;
			runh[r][1 + (b < VBINS - 2 ? b : VBINS - 2)] += (double)a->errs[i].calls;
		}
		runh[r][VBINS - 1] += (double)a->err_other;
		seen[s] += (double)a->seen;
		failed[s] += (double)f;
		calls[s] += (double)a->calls;
	}
	for (int s = 0; s < 2; s++)
		means[s] = calls[s] > 0 ? failed[s] / calls[s] : 0;
	test_bins(d, runh, rs, seen);
	free(runh);
}

/* The values of row k that either side recorded, as f's distributions
 * after its latency one; vmean[] gets their means (base, new). */
static void value_dists(struct diff_finding *f, const struct key *k, const struct runs *rs,
			double (*vmean)[2])
{
	for (size_t r = 0; r < nall(rs); r++) {
		const struct sc_call *c = index_find(&rs->ix[r], k);
		for (uint32_t i = 0; c && i < c->nargs && f->ndist < DIFF_MAX_DIST; i++) {
			size_t d;
			/* a count of distinct locks is no distribution */
			if (c->args[i].flags & SC_ARGV_DISTINCT)
				continue;
			for (d = 1; d < f->ndist; d++)
				if (!strcmp(f->dist[d].name, c->args[i].name))
					break;
			if (d == f->ndist) {
				if (c->args[i].flags & SC_ARGV_ERRNO)
					errors_dist(&f->dist[d], c->args[i].name, k, rs, vmean[d]);
				else
					value_dist(&f->dist[d], c->args[i].name, k, rs, vmean[d]);
				f->ndist++;
			}
		}
	}
}

/* ---- the unit of work ---------------------------------------------------- */

/* The component of the first run's root process's executable, or NULL. */
static const char *main_component(const struct runs *rs)
{
	const struct sc_image *im = report_root_image(&rs->r[0]->prof);

	for (size_t i = 0; im && i < im->nobjects; i++)
		if (im->objects[i].flags & SC_OBJ_MAIN)
			return im->objects[i].name;
	return NULL;
}

/* The unit of work: a row whose count did not move, called at least
 * WORK_MIN_CALLS times in every run; the program's own calls (from its
 * executable) before others, the most called first: the work a program
 * does is what it asks its libraries for most. work[] gets its counts. */
static void find_work(struct diff_result *res, const struct key *keys, size_t nkeys,
		      const struct runs *rs, double *work)
{
	const char *exe = main_component(rs);
	double best = 0;
	int best_own = 0;
	size_t i, r, pick = nkeys;
	double *x = sc_xcalloc(nall(rs), sizeof(*x));

	for (i = 0; i < nkeys; i++) {
		int ok = 1;
		for (r = 0; r < nall(rs) && ok; r++) {
			const struct sc_call *c = index_find(&rs->ix[r], &keys[i]);
			x[r] = c ? (double)c->count : 0;
			ok = x[r] >= WORK_MIN_CALLS;
		}
		if (!ok)
			continue;
		struct diff_scalar s;
		scalar(&s, x, rs->nb, rs->nn, &noise_count, 0.05);
		if (s.significant || fabs(s.r.ratio - 1) > WORK_STILL)
			continue;
		int own = exe && !strcmp(keys[i].caller, exe);
		if (pick == nkeys || own > best_own || (own == best_own && s.r.base > best)) {
			pick = i;
			best = s.r.base;
			best_own = own;
		}
	}
	if (pick < nkeys) {
		res->work_caller = keys[pick].caller;
		res->work_callee = keys[pick].callee;
		res->work_api = keys[pick].api;
		for (r = 0; r < nall(rs); r++)
			work[r] = (double)index_find(&rs->ix[r], &keys[pick])->count;
		res->work_base = mean_of(work, 0, rs->nb);
		res->work_new = mean_of(work, rs->nb, rs->nn);
	}
	free(x);
}

/* ---- discount, score, significance ------------------------------------- */

/* vProf's calibration of f's raw cost by the size of what changed. */
static void weigh(struct diff_finding *f, double size)
{
	if (!f->significant)
		f->discount = DIFF_DEFAULT_DISCOUNT;
	else {
		f->discount = 1 - size;
		if (f->discount < VALID_DISCOUNT)
			f->discount = 0;
	}
	f->score = f->raw * (1 - f->discount);
}

/* The size of the largest significant change of f. */
static double largest_change(const struct diff_finding *f)
{
	double size = 0;

	for (int s = 0; s < DS_NSCALAR; s++)
		if (f->scalar[s].significant && f->scalar[s].r.size > size)
			size = f->scalar[s].r.size;
	for (size_t d = 0; d < f->ndist; d++)
		if (f->dist[d].significant && f->dist[d].hellinger > size)
			size = f->dist[d].hellinger;
	return size;
}

/* Append ", "-separated text to f->pattern. */
__attribute__((format(printf, 2, 3)))
static void say(struct diff_finding *f, const char *fmt, ...)
{
	size_t len = strlen(f->pattern);
	va_list ap;

	if (len && len + 2 < sizeof(f->pattern)) {
		memcpy(f->pattern + len, "; ", 3);
		len += 2;
	}
	va_start(ap, fmt);
	vsnprintf(f->pattern + len, sizeof(f->pattern) - len, fmt, ap);
	va_end(ap);
}

/* The words of a call finding, most telling first. */
static void name_call(struct diff_finding *f, const struct diff_result *res)
{
	const struct diff_figs *b = &f->base, *n = &f->new_;
	const struct diff_scalar *sc = f->scalar;
	char x[32], y[32], r[32];

	if (!f->significant) {
		snprintf(f->pattern, sizeof(f->pattern), "no significant change");
		return;
	}
	if (b->calls == 0) {
		fmt_calls(x, sizeof(x), n->calls);
		report_fmt_ns(y, sizeof(y), n->total_ns);
		say(f, "API appeared: %s calls, %s", x, res->timed ? y : "untimed");
		f->vprof = "wrong constraint";
		return;
	}
	if (n->calls == 0) {
		fmt_calls(x, sizeof(x), b->calls);
		report_fmt_ns(y, sizeof(y), b->total_ns);
		say(f, "API vanished: was %s calls, %s", x, res->timed ? y : "untimed");
		return;
	}
	double bb = hints_share_above(b->hist, HINTS_BLOCKED_NS);
	double nb = hints_share_above(n->hist, HINTS_BLOCKED_NS);
	if (sc[DS_WAIT].significant && n->wait_ns > b->wait_ns && nb >= 0.1 && bb < nb / 4) {
		report_fmt_ns(x, sizeof(x), n->wait_ns);
		report_fmt_ns(y, sizeof(y), b->wait_ns);
		say(f, "new blocking in %s: %.0f %% of calls block, was %.0f %%; Wait %s, was %s",
		    f->api, nb * 100, bb * 100, x, y);
		f->vprof = "missing constraint";
	}
	int more_calls = sc[DS_CALLS].significant &&
		(!sc[DS_PER_WORK].tested || sc[DS_PER_WORK].significant);
	if (more_calls) {
		const struct diff_scalar *s = sc[DS_PER_WORK].tested ? &sc[DS_PER_WORK] : &sc[DS_CALLS];
		fmt_ratio(r, sizeof(r), s->r.ratio);
		if (sc[DS_PER_WORK].tested) {
			fmt_calls(x, sizeof(x), n->per_work);
			fmt_calls(y, sizeof(y), b->per_work);
			say(f, "%s %s per %s (%s calls per %s, was %s)", f->api, r, res->work_api, x,
			    res->work_api, y);
		} else {
			fmt_calls(x, sizeof(x), n->calls);
			fmt_calls(y, sizeof(y), b->calls);
			say(f, "%s %s calls (%s, was %s)", f->api, r, x, y);
		}
		if (s->r.ratio > 1 && !f->dist[0].significant && !f->vprof)
			f->vprof = "missing constraint";
	}
	if (f->ndist && f->dist[0].significant) {
		double p50 = b->p50_ns > 0 ? (double)n->p50_ns / (double)b->p50_ns : 0;
		int use_p50 = p50 > 0 && (p50 >= 1.25 || p50 <= 0.8);
		/* contention is in a lock's tail: its median call stays
		 * uncontended while its mean grows */
		if (hints_is_lock_api(f->api) && sc[DS_MEAN].r.ratio >= 1.25)
			use_p50 = 0;
		fmt_ratio(r, sizeof(r), use_p50 ? p50 : sc[DS_MEAN].r.ratio);
		report_fmt_ns(x, sizeof(x), use_p50 ? (double)n->p50_ns : n->mean_ns);
		report_fmt_ns(y, sizeof(y), use_p50 ? (double)b->p50_ns : b->mean_ns);
		int up = (use_p50 ? p50 : sc[DS_MEAN].r.ratio) > 1;
		if (hints_is_lock_api(f->api) && up)
			say(f, "lock held longer or contended: %s %s %s (%s, was %s)", f->api,
			    use_p50 ? "p50" : "mean", r, x, y);
		else
			say(f, "%s calls: %s %s (%s, was %s)",
			    up ? "longer" : "shorter", use_p50 ? "p50" : "mean",
			    r, x, y);
		if (up && !f->vprof && !more_calls)
			f->vprof = "scalability";
	}
	int pieces = 0, errors = 0;
	for (size_t d = 1; d < f->ndist; d++)
		errors |= f->dist[d].significant && !strcmp(f->dist[d].unit, "errno");
	for (size_t d = 1; d < f->ndist; d++) {
		const struct diff_dist *v = &f->dist[d];
		/* the bytes an I/O call moved tell again what its size said,
		 * its -1 returns what its errors say */
		if (!v->significant || ((pieces || errors) && !strcmp(v->name, "ret")))
			continue;
		double was = f->vmean[d][0], now = f->vmean[d][1];
		if (!strcmp(v->unit, "errno")) {
			say(f, "%s errors: %.1f %% of %s calls fail, was %.1f %%",
			    now > was ? "more" : "fewer", now * 100, f->api, was * 100);
			if (!f->vprof && now > was)
				f->vprof = "wrong constraint";
			continue;
		}
		fmt_calls(x, sizeof(x), now);
		fmt_calls(y, sizeof(y), was);
		if (hints_is_io_api(f->api) && strcmp(v->name, "ret") && now != was && ++pieces)
			say(f, "%s pieces%s: %s %s %s per call, was %s (mean)",
			    now < was ? "smaller" : "larger", now < was ? " (tiny I/O)" : "", f->api,
			    v->name, x, y);
		else
			say(f, "%s %s changed: mean %s, was %s", f->api, v->name, x, y);
		if (!f->vprof)
			f->vprof = "wrong constraint";
	}
	if (sc[DS_WAIT].significant && !strstr(f->pattern, "Wait")) {
		fmt_ratio(r, sizeof(r), sc[DS_WAIT].r.ratio);
		report_fmt_ns(x, sizeof(x), n->wait_ns);
		report_fmt_ns(y, sizeof(y), b->wait_ns);
		say(f, "%s blocking in %s: Wait %s (%s, was %s)",
		    sc[DS_WAIT].r.ratio > 1 ? "more" : "less", f->api, r, x, y);
	}
	if (!f->pattern[0]) {
		fmt_ratio(r, sizeof(r), sc[DS_TIME].r.ratio);
		report_fmt_ns(x, sizeof(x), n->self_ns);
		report_fmt_ns(y, sizeof(y), b->self_ns);
		say(f, "time %s (%s, was %s)", r, x, y);
	}
}

/* ---- call findings ------------------------------------------------------ */

static void call_finding(struct diff_finding *f, const struct key *k, const struct runs *rs,
			 const double *work, const struct diff_result *res)
{
	size_t n = nall(rs), r;
	double cnt[n], tot[n], self[n], wait[n], attr[n], mean[n], pw[n];
	double (*runh)[SC_HIST_BUCKETS] = sc_xcalloc(n, sizeof(*runh));
	double meanb[n];
	size_t nmb = 0, nmn = 0;

	memset(f, 0, sizeof(*f));
	f->kind = DIFF_CALL;
	f->caller = k->caller;
	f->callee = k->callee;
	f->api = k->api;
	for (r = 0; r < n; r++) {
		const struct sc_call *c = index_find(&rs->ix[r], k);
		struct diff_figs *fg = r < rs->nb ? &f->base : &f->new_;

		cnt[r] = c ? (double)c->count : 0;
		tot[r] = c ? (double)c->total_ns : 0;
		self[r] = c ? (double)c->self_ns : 0;
		wait[r] = c ? (double)c->wait_ns : 0;
		attr[r] = c ? (double)c->attr_ns : 0;
		pw[r] = work && work[r] > 0 ? cnt[r] / work[r] : 0;
		if (c && c->count) {
			mean[r] = tot[r] / cnt[r];
			if (r < rs->nb)
				meanb[nmb++] = mean[r];
			else
				nmn++;
		}
		if (!c)
			continue;
		fg->timed += (double)c->timed;
		if (c->max_ns > fg->max_ns)
			fg->max_ns = c->max_ns;
		for (int b = 0; b < SC_HIST_BUCKETS; b++) {
			fg->hist[b] += (double)c->hist[b];
			runh[r][b] = (double)c->hist[b];
		}
	}
	struct diff_figs *side[2] = { &f->base, &f->new_ };
	for (int s = 0; s < 2; s++) {
		size_t from = s ? rs->nb : 0, m = s ? rs->nn : rs->nb;
		struct diff_figs *fg = side[s];
		fg->calls = mean_of(cnt, from, m);
		fg->total_ns = mean_of(tot, from, m);
		fg->self_ns = mean_of(self, from, m);
		fg->wait_ns = mean_of(wait, from, m);
		fg->attr_ns = mean_of(attr, from, m);
		fg->mean_ns = fg->calls > 0 ? fg->total_ns / fg->calls : 0;
		fg->per_work = work && res->work_api ? mean_of(pw, from, m) : -1;
		side_quantiles(fg, fg->calls * (double)m, fg->total_ns * (double)m);
	}
	int is_work = res->work_api && !cmp_key(k, &(struct key){ res->work_caller,
							      res->work_callee, res->work_api });
	scalar(&f->scalar[DS_CALLS], cnt, rs->nb, rs->nn, &noise_count, res->alpha);
	if (work && res->work_api && !is_work)
		scalar(&f->scalar[DS_PER_WORK], pw, rs->nb, rs->nn, &noise_ratio, res->alpha);
	if (res->timed) {
		scalar(&f->scalar[DS_TIME], self, rs->nb, rs->nn, &noise_time, res->alpha);
		if (f->base.wait_ns > 0 || f->new_.wait_ns > 0)
			scalar(&f->scalar[DS_WAIT], wait, rs->nb, rs->nn, &noise_time, res->alpha);
		if (nmb && nmn) {
			/* the runs that made calls: base ones, then new ones */
			double m2[n];
			size_t o = 0;
			for (r = 0; r < nmb; r++)
				m2[o++] = meanb[r];
			for (r = rs->nb; r < n; r++)
				if (cnt[r] > 0)
					m2[o++] = mean[r];
			scalar(&f->scalar[DS_MEAN], m2, nmb, nmn, &noise_time,
			       res->alpha);
		}
		f->ndist = 1;
		/* the median call of each run that timed some: the mean alone
		 * would drown in a few long calls that both sides make */
		double med[n];
		size_t mb = 0, mn = 0;
		for (r = 0; r < n; r++)
			if (hist_sum(runh[r]) > 0) {
				med[mb + mn] = hist_p50(runh[r]);
				*(r < rs->nb ? &mb : &mn) += 1;
			}
		if (mb && mn)
			scalar(&f->scalar[DS_P50], med, mb, mn, &noise_time, res->alpha);
		latency_dist(&f->dist[0], f, runh, rs->nb, rs->nn,
			     f->scalar[DS_MEAN].significant || f->scalar[DS_P50].significant);
		value_dists(f, k, rs, f->vmean);
	}
	free(runh);

	/* A time that moved while neither the calls nor the shape of their
	 * latencies did is the machine's doing (other load, frequency), not
	 * the program's: time alone is no finding, nor Wait alone (a poll(0)
	 * preempted now and then), unless both sides have several runs that
	 * measured how much the machine moves it. New blocking changes the
	 * latency distribution. */
	const struct diff_scalar *sc = f->scalar;
	int shape = sc[DS_CALLS].significant;
	for (size_t d = 0; d < f->ndist; d++)
		shape |= f->dist[d].significant;
	int changed = shape || (spread(rs) && (sc[DS_TIME].significant || sc[DS_WAIT].significant));
	f->time_only = changed && !shape;
	double delta = res->timed ? fabs(f->new_.self_ns - f->base.self_ns)
				  : fabs(f->new_.calls - f->base.calls);
	if (!changed) {
		f->scalar[DS_TIME].significant = 0;
		f->scalar[DS_WAIT].significant = 0;
	}
	f->significant = changed;      /* until settle_calls weighs it */
	f->delta = delta;
	f->raw = res->timed ? fmax(f->base.self_ns, f->new_.self_ns) : fmax(f->base.calls, f->new_.calls);
}

/*
 * More calls for the same work cost more than the calls' own time: their
 * callers spend time making them (a loop, arguments, the profiler's
 * count), which shows as longer calls of an API whose count did not move
 * and that makes them (dl_lookup scanning where it hashed: strcmp x32 per
 * lookup). Such a caller's added cost is the more-calls finding's: it
 * counts for whether that finding matters, moves to its score, and the
 * caller's finding says so. The callers of a finding g are the changed
 * findings whose callee makes g's calls.
 */
static int more_calls(const struct diff_finding *g)
{
	return g->significant && g->scalar[DS_CALLS].significant &&
	       g->scalar[DS_CALLS].r.ratio > 1 && strcmp(g->caller, g->callee);
}

static int driver_of(const struct diff_finding *f, const struct diff_finding *g)
{
	return f != g && f->significant && !f->scalar[DS_CALLS].significant && f->ndist &&
	       f->dist[0].significant && f->new_.self_ns > f->base.self_ns &&
	       !strcmp(g->caller, f->callee);
}

/* Whether f's share of failed calls changed significantly, by 1 % of its
 * calls at least: cheap failures (EAGAIN, EBADF) matter whatever they
 * cost. */
static int errors_moved(const struct diff_finding *f)
{
	for (size_t d = 1; d < f->ndist; d++)
		if (f->dist[d].significant && !strcmp(f->dist[d].unit, "errno") &&
		    fabs(f->vmean[d][1] - f->vmean[d][0]) >= 0.01)
			return 1;
	return 0;
}

/* Each call finding changed (f->significant from call_finding) is
 * significant when it matters; then weighed, named, and its callers'
 * added cost moved to it. */
static void settle_calls(struct diff_finding *calls, size_t n, const struct diff_result *res,
			 double material)
{
	size_t i, j;
	int *sig = sc_xcalloc(n, sizeof(*sig));

	for (i = 0; i < n; i++) {
		double d = calls[i].delta;
		if (more_calls(&calls[i]) && res->timed)
			for (j = 0; j < n; j++)
				if (driver_of(&calls[j], &calls[i]))
					d += calls[j].delta;
		sig[i] = calls[i].significant && (d >= material || errors_moved(&calls[i]));
	}
	for (i = 0; i < n; i++) {
		calls[i].significant = sig[i];
		weigh(&calls[i], largest_change(&calls[i]));
		name_call(&calls[i], res);
	}
	free(sig);
	for (i = 0; i < n; i++) {
		struct diff_finding *f = &calls[i], *g = NULL;

		for (j = 0; j < n; j++)
			if (more_calls(&calls[j]) && driver_of(f, &calls[j]) &&
			    (!g || calls[j].score > g->score))
				g = &calls[j];
		if (!g)
			continue;
		double moved = fmin(f->score, f->delta * (1 - f->discount));
		g->score += moved;
		f->score -= moved;
		say(f, "the added time is that of its more calls to %s", g->api);
	}
}

/* ---- component findings ------------------------------------------------- */

static void comp_finding(struct diff_finding *f, const char *name, const struct runs *rs,
			 const struct diff_result *res, const struct diff_finding *calls,
			 size_t ncalls, double material)
{
	size_t n = nall(rs), r;
	double self[n], wait[n], attr[n], cnt[n], tot[n];
	char x[32], y[32], q[32];

	memset(f, 0, sizeof(*f));
	f->kind = DIFF_COMPONENT;
	f->caller = name;
	for (r = 0; r < n; r++) {
		const struct sc_component *c = sc_agg_component(&rs->r[r]->model.agg, name);
		self[r] = c ? (double)report_clamp0(c->self_ns) : 0;
		wait[r] = c ? (double)c->wait_ns : 0;
		attr[r] = c ? (double)report_clamp0(c->attr_self_ns) : 0;
		cnt[r] = c ? (double)c->in_calls : 0;
		tot[r] = c ? (double)c->total_ns : 0;
	}
	struct diff_figs *side[2] = { &f->base, &f->new_ };
	for (int s = 0; s < 2; s++) {
		size_t from = s ? rs->nb : 0, m = s ? rs->nn : rs->nb;
		side[s]->calls = mean_of(cnt, from, m);
		side[s]->total_ns = mean_of(tot, from, m);
		side[s]->self_ns = mean_of(self, from, m);
		side[s]->wait_ns = mean_of(wait, from, m);
		side[s]->attr_ns = mean_of(attr, from, m);
		side[s]->per_work = -1;
	}
	if (!res->timed) {
		snprintf(f->pattern, sizeof(f->pattern), "no times to compare");
		f->discount = DIFF_DEFAULT_DISCOUNT;
		return;
	}
	scalar(&f->scalar[DS_TIME], self, rs->nb, rs->nn, &noise_time, res->alpha);
	scalar(&f->scalar[DS_ATTR], attr, rs->nb, rs->nn, &noise_time, res->alpha);
	scalar(&f->scalar[DS_WAIT], wait, rs->nb, rs->nn, &noise_time, res->alpha);
	/* a component whose calls in or out changed significantly is told by
	 * those findings: its own finding is for a change they do not show */
	int told = 0;
	for (size_t i = 0; i < ncalls && !told; i++)
		told = calls[i].significant &&
		       (!strcmp(calls[i].callee, name) || !strcmp(calls[i].caller, name));
	double delta = f->new_.self_ns - f->base.self_ns;
	double dattr = fabs(f->new_.attr_ns - f->base.attr_ns);
	/* time alone: only with a measured spread (call_finding) */
	int self_sig = !told && spread(rs) && f->scalar[DS_TIME].significant &&
		       fabs(delta) >= material;
	int serial = !told && spread(rs) && f->scalar[DS_ATTR].significant && dattr >= material &&
		     f->scalar[DS_ATTR].r.ratio > 1.5 * f->scalar[DS_TIME].r.ratio;
	f->significant = self_sig || serial;
	f->time_only = f->significant;
	f->raw = fmax(f->base.self_ns, f->new_.self_ns);
	f->scalar[DS_WAIT].significant = 0;     /* told by its calls' findings */
	if (!self_sig)
		f->scalar[DS_TIME].significant = 0;
	if (!serial)
		f->scalar[DS_ATTR].significant = 0;
	weigh(f, largest_change(f));
	if (!f->significant) {
		snprintf(f->pattern, sizeof(f->pattern), told ? "told by its calls' findings"
							       : "no significant change");
		return;
	}
	if (self_sig) {
		fmt_ratio(q, sizeof(q), f->scalar[DS_TIME].r.ratio);
		report_fmt_ns(x, sizeof(x), f->new_.self_ns);
		report_fmt_ns(y, sizeof(y), f->base.self_ns);
		say(f, "%s time in %s's own code: self %s (%s, was %s)",
		    delta > 0 ? "more" : "less", name, q, x, y);
		if (delta > 0)
			f->vprof = "scalability";
	}
	if (serial) {
		fmt_ratio(q, sizeof(q), f->scalar[DS_ATTR].r.ratio);
		report_fmt_ns(x, sizeof(x), f->new_.attr_ns);
		report_fmt_ns(y, sizeof(y), f->base.attr_ns);
		say(f, "more serial time in %s: attributed %s (%s, was %s)", name, q, x, y);
	}
}

/* ---- threads and processes ----------------------------------------------- */

/* Threads (or processes) of every run: a finding when every run of one
 * side has more than every run of the other, by a quarter at least. */
static void structure_finding(struct diff_finding *f, enum diff_kind kind, const struct runs *rs,
			      const struct diff_result *res)
{
	size_t n = nall(rs), r;
	double v[n], t[n];
	char q[32];

	memset(f, 0, sizeof(*f));
	f->kind = kind;
	for (r = 0; r < n; r++) {
		const struct sc_profile *p = &rs->r[r]->prof;
		v[r] = 0;
		for (size_t i = 0; i < p->nimages; i++)
			v[r] += kind == DIFF_THREADS ? (double)p->images[i].nthreads : 1;
		t[r] = (double)rs->r[r]->model.agg.threads_ns;
	}
	f->base.calls = mean_of(v, 0, rs->nb);
	f->new_.calls = mean_of(v, rs->nb, rs->nn);
	f->base.total_ns = mean_of(t, 0, rs->nb);
	f->new_.total_ns = mean_of(t, rs->nb, rs->nn);
	f->base.per_work = f->new_.per_work = -1;
	double bmin = INFINITY, bmax = 0, nmin = INFINITY, nmax = 0;
	for (r = 0; r < n; r++) {
		if (r < rs->nb) {
			bmin = fmin(bmin, v[r]);
			bmax = fmax(bmax, v[r]);
		} else {
			nmin = fmin(nmin, v[r]);
			nmax = fmax(nmax, v[r]);
		}
	}
	scalar(&f->scalar[DS_CALLS], v, rs->nb, rs->nn, &noise_count, 1);
	double ratio = f->scalar[DS_CALLS].r.ratio;
	f->scalar[DS_CALLS].significant = (nmin > bmax || bmin > nmax) &&
					  (ratio >= 1.25 || ratio <= 0.8);
	f->significant = f->scalar[DS_CALLS].significant;
	/* the threads' time that came or went with them; nothing when their
	 * number did not change (the time's change is then someone else's) */
	f->raw = !f->significant ? 0 : res->timed ? fabs(f->new_.total_ns - f->base.total_ns)
					      : fabs(f->new_.calls - f->base.calls);
	weigh(f, largest_change(f));
	const char *what = kind == DIFF_THREADS ? "threads" : "processes";
	if (!f->significant) {
		snprintf(f->pattern, sizeof(f->pattern), "no significant change in the %s", what);
		return;
	}
	fmt_ratio(q, sizeof(q), ratio);
	snprintf(f->pattern, sizeof(f->pattern), "%s %s: %.0f, was %.0f (%s)",
		 ratio > 1 ? "more" : "fewer", what, f->new_.calls, f->base.calls, q);
	if (ratio > 1)
		f->vprof = "scalability";
}

/* ---- ranking -------------------------------------------------------------- */

static int cmp_finding(const void *a, const void *b)
{
	const struct diff_finding *x = a, *y = b;

	if (x->significant != y->significant)
		return x->significant ? -1 : 1;
	if (x->significant && x->time_only != y->time_only)
		return x->time_only ? 1 : -1;
	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	if (x->raw != y->raw)
		return x->raw > y->raw ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	int c = strcmp(x->caller ? x->caller : "", y->caller ? y->caller : "");
	if (!c)
		c = strcmp(x->callee ? x->callee : "", y->callee ? y->callee : "");
	if (!c)
		c = strcmp(x->api ? x->api : "", y->api ? y->api : "");
	return c;
}

void diff_build(const struct diff_side *base, const struct diff_side *new_,
		struct diff_result *res)
{
	struct runs rs = { base->nruns, new_->nruns, NULL, NULL };
	size_t n = nall(&rs), r, i, nkeys = 0, capk = 0, ncomp = 0, capc = 0;
	struct key *keys = NULL;
	const char **comps = NULL;

	memset(res, 0, sizeof(*res));
	rs.r = sc_xcalloc(n, sizeof(*rs.r));
	rs.ix = sc_xcalloc(n, sizeof(*rs.ix));
	res->timed = 1;
	for (r = 0; r < n; r++) {
		const struct diff_run *run = r < rs.nb ? &base->runs[r] : &new_->runs[r - rs.nb];
		const struct sc_agg *a = &run->model.agg;

		rs.r[r] = run;
		index_build(&rs.ix[r], a);
		if (run->prof.timing_mode == SC_TIMING_NONE)
			res->timed = 0;
		for (i = 0; i < a->ncalls; i++) {
			keys = sc_grow(keys, &capk, nkeys + 1, sizeof(*keys));
			keys[nkeys++] = (struct key){ a->calls[i].caller, a->calls[i].callee,
						      a->calls[i].api };
		}
		for (i = 0; i < a->ncomp; i++) {
			comps = sc_grow(comps, &capc, ncomp + 1, sizeof(*comps));
			comps[ncomp++] = a->comp[i].name;
		}
		if (r < rs.nb)
			res->base_threads_ns += (double)a->threads_ns / (double)rs.nb;
		else
			res->new_threads_ns += (double)a->threads_ns / (double)rs.nn;
	}
	sc_sort(keys, nkeys, sizeof(*keys), cmp_key);
	size_t u = 0;
	for (i = 0; i < nkeys; i++)
		if (!u || cmp_key(&keys[u - 1], &keys[i]))
			keys[u++] = keys[i];
	nkeys = u;
	sc_sort(comps, ncomp, sizeof(*comps), cmp_str);
	for (i = u = 0; i < ncomp; i++)
		if (!u || strcmp(comps[u - 1], comps[i]))
			comps[u++] = comps[i];
	ncomp = u;

	/* Bonferroni: each figure's test at 0.05 over the findings */
	res->alpha = 0.05 / (double)(nkeys + ncomp + 2);
	double *work = sc_xcalloc(n, sizeof(*work));
	find_work(res, keys, nkeys, &rs, work);

	double material;
	if (res->timed)
		material = MATERIAL * fmax(res->base_threads_ns, res->new_threads_ns);
	else {
		double cb = 0, cn = 0;
		for (r = 0; r < n; r++)
			*(r < rs.nb ? &cb : &cn) += (double)rs.r[r]->model.agg.calls_count;
		material = MATERIAL * fmax(cb / (double)rs.nb, cn / (double)rs.nn);
	}
	res->f = sc_xcalloc(nkeys + ncomp + 2, sizeof(*res->f));
	for (i = 0; i < nkeys; i++)
		call_finding(&res->f[res->n++], &keys[i], &rs, res->work_api ? work : NULL, res);
	size_t ncalls = res->n;
	settle_calls(res->f, ncalls, res, material);
	for (i = 0; i < ncomp; i++)
		comp_finding(&res->f[res->n++], comps[i], &rs, res, res->f, ncalls, material);
	structure_finding(&res->f[res->n++], DIFF_THREADS, &rs, res);
	structure_finding(&res->f[res->n++], DIFF_PROCESSES, &rs, res);
	sc_sort(res->f, res->n, sizeof(*res->f), cmp_finding);
	for (i = 0; i < res->n; i++)
		res->f[i].rank = i + 1;

	for (r = 0; r < n; r++)
		free(rs.ix[r].c);
	free(rs.ix);
	free(rs.r);
	free(keys);
	free(comps);
	free(work);
}

void diff_free(struct diff_result *r)
{
	free(r->f);
	memset(r, 0, sizeof(*r));
}

const char *diff_kind_name(enum diff_kind k)
{
	static const char *const names[] = { "call", "component", "threads", "processes" };
	return names[k];
}

const char *diff_scalar_name(enum diff_scalar_id s)
{
	static const char *const names[] = { "calls", "calls_per_work", "self_time", "mean_latency",
					     "wait", "attributed", "p50_latency" };
	return names[s];
}
