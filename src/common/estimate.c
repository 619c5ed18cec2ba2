/*
 * estimate.c - the estimator (estimate.h): what a counter record's sums
 * say about all of its calls, and the unit and histogram conversions the
 * report's figures go through.
 */
#include "estimate.h"

#include <math.h>

/*
 * The estimator. A rec has `count` calls of which `timed` were measured.
 * Under adaptive timing a timed call stands for w calls, w the inverse of
 * the chance it had of being timed (the period p its span was drawn
 * with: trampoline.S, span.c), so the runtime accumulates
 * wticks = sum(ticks * w) and wcount = sum(w). wticks is then an
 * unbiased estimate of all the calls' time and wcount of their number;
 * as the number is known exactly, the estimate is wticks scaled by it
 * (the ratio estimator, exact when all calls take the same time):
 *
 *     est = wticks * count / wcount
 *
 * With timing "all" w == 1 and this is simply ticks. Profiles of earlier
 * runtimes weighted a timed call by the span it ended (so wcount <=
 * count): the same formula reads them as they were read then. A record
 * with timed calls but no weights (wcount == 0) falls back to
 * ticks/timed.
 *
 * The interceptor's own cost was taken off each timed call as it was
 * booked (runtime calib.c: measured at start-up and re-measured on each
 * thread as the machine's speed moves), so nothing is subtracted here;
 * a format 3 runtime did not, and its start-up figure (overhead_ticks)
 * comes off every call, clamped at 0.
 * Exclusive time scales est
 * by the measured self fraction self_ticks/ticks (nested interposed calls
 * removed), clamped to [0, est]; with ticks == 0 everything is self.
 */
void sc_estimate(const struct sc_rec *r, uint64_t overhead_ticks, long double *incl,
		 long double *self, long double *attr, long double *block)
{
	long double wt, wc, est, s;

	*incl = 0;
	*self = 0;
	*attr = 0;
	*block = 0;
	if (r->timed == 0)
		return;
	if (r->wcount > 0) {
		wt = (long double)r->wticks;
		wc = (long double)r->wcount;
	} else {
		wt = (long double)r->ticks;
		wc = (long double)r->timed;
	}
	est = wt * ((long double)r->count / wc);
	if (overhead_ticks) {
		est -= (long double)overhead_ticks * (long double)r->count;
		if (est < 0)
			est = 0;
	}
	if (r->ticks > 0) {
		/* a signed sum: nested calls are charged as estimates */
		s = est * (long double)(int64_t)r->self_ticks / (long double)r->ticks;
		if (s < 0)
			s = 0;
		if (s > est)
			s = est;
	} else {
		s = est;
	}
	*incl = est;
	*self = s;
	/*
	 * The parallel-clock and blocked sums are kept beside wticks, with
	 * the same weights: each is est scaled by its fraction of wticks
	 * (so the interceptor's cost comes off them in proportion).
	 */
	if (r->wticks > 0) {
		*attr = est * (long double)r->wpticks / (long double)r->wticks;
		*block = est * (long double)r->wblock / (long double)r->wticks;
		if (*attr > est)
			*attr = est;
		if (*block > est)
			*block = est;
	}
}

long double sc_estimate_dup(const struct sc_rec *r, long double incl)
{
	long double d;

	if (r->ticks == 0 || r->dup_ticks == 0 || incl <= 0)
		return 0;
	d = incl * (long double)r->dup_ticks / (long double)r->ticks;
	return d > incl ? incl : d;
}

static long double share(uint64_t part, const struct sc_rec *r, long double incl)
{
	long double v = incl * (long double)part / (long double)r->wticks;

	return v > incl ? incl : v;
}

void sc_estimate_perf(const struct sc_rec *r, long double incl, long double *blocked,
		      long double *preempt, long double *kernel)
{
	*blocked = *preempt = *kernel = 0;
	if (r->wticks == 0 || incl <= 0)
		return;
	*blocked = share(r->wblocked, r, incl);
	*preempt = share(r->wpreempt, r, incl);
	*kernel = share(r->wkernel, r, incl);
}

long double sc_estimate_self_preempt(const struct sc_rec *r, long double incl, long double self)
{
	if (r->wticks == 0 || incl <= 0 || self <= 0)
		return 0;
	long double v = incl * (long double)(int64_t)r->wself_preempt / (long double)r->wticks;
	return v < 0 ? 0 : v > self ? self : v;
}

long double sc_ticks_to_ns(long double tsc_hz, long double ticks)
{
	if (tsc_hz <= 0)
		return 0;
	return ticks * 1e9L / tsc_hz;
}

int64_t sc_round_ns(long double ns)
{
	if (!(ns == ns) || ns <= 0)   /* NaN or not positive */
		return 0;
	if (ns >= 9.2e18L)
		return INT64_MAX / 4;   /* absurd input; keep sums finite */
	return (int64_t)llroundl(ns);
}

/*
 * Tick bucket b of a record's histogram ([2^(b+6), 2^(b+7)) ticks, format.h)
 * goes to the report's ns bucket (sc_hist_lo_ns) holding its geometric
 * middle: both scales are powers of two, so this moves each count by less
 * than one bucket.
 */
void sc_hist_to_ns(long double tsc_hz, const long double *ticks, long double *ns)
{
	int b, i;

	if (tsc_hz <= 0)
		return;
	for (b = 0; b < SC_REC_HIST; b++) {
		long double mid, v;

		if (ticks[b] <= 0)
			continue;
		mid = powl(2.0L, (long double)(b + SC_REC_HIST_LOG2_MIN) + (b == 0 ? 0 : 0.5L));
		v = mid * 1e9L / tsc_hz;
		i = v < 1 ? 0 : (int)floorl(log2l(v));
		if (i >= SC_HIST_BUCKETS)
			i = SC_HIST_BUCKETS - 1;
		ns[i] += ticks[b];
	}
}

/*
 * The q-quantile of a latency histogram (bucket i = [2^i, 2^(i+1)) ns):
 * the bucket where the cumulative count crosses q * total, and within it
 * the point at the same fraction on a log scale (latencies inside a
 * power-of-two bucket are closer to uniform in log than in linear terms).
 * Clamped to the longest call seen. 0 for an empty histogram.
 */
static int64_t hist_quantile(const uint64_t *h, long double q, int64_t max_ns)
{
	long double total = 0, want, cum = 0, lo, v;
	int i;

	for (i = 0; i < SC_HIST_BUCKETS; i++)
		total += (long double)h[i];
	if (total <= 0)
		return 0;
	want = q * total;
	for (i = 0; i < SC_HIST_BUCKETS; i++) {
		if (h[i] == 0)
			continue;
		if (cum + (long double)h[i] >= want)
			break;
		cum += (long double)h[i];
	}
	if (i == SC_HIST_BUCKETS)
		i = SC_HIST_BUCKETS - 1;
	lo = i == 0 ? 0.5L : (long double)sc_hist_lo_ns(i);
	v = lo * powl(2.0L, (want - cum) / (long double)(h[i] ? h[i] : 1));
	if (max_ns > 0 && v > (long double)max_ns)
		v = (long double)max_ns;
	return sc_round_ns(v);
}

/* Whether every count of h lies in the one bucket holding ns. */
static int hist_one_bucket(const uint64_t *h, int64_t ns)
{
	int i, in = -1;

	for (i = 0; i < SC_HIST_BUCKETS; i++) {
		if (!h[i])
			continue;
		if (in >= 0)
			return 0;
		in = i;
	}
	return in >= 0 && (uint64_t)ns >= sc_hist_lo_ns(in) &&
	       (in + 1 == SC_HIST_BUCKETS || (uint64_t)ns < sc_hist_lo_ns(in + 1));
}

void sc_latency_quantiles(const uint64_t *hist, uint64_t count, int64_t total_ns,
			  int64_t max_ns, int64_t *p50, int64_t *p99)
{
	int64_t mean = count && total_ns > 0 ? (int64_t)((uint64_t)total_ns / count) : 0;

	*p50 = hist_quantile(hist, 0.50L, max_ns);
	*p99 = hist_quantile(hist, 0.99L, max_ns);
	/*
	 * All calls in one bucket (a uniform workload, the common case): the
	 * mean is a better median than any point the bucket alone can give,
	 * and p99 lies between it and the max.
	 */
	if (count && hist_one_bucket(hist, mean)) {
		*p50 = mean;
		if (*p99 < *p50)
			*p99 = *p50;
	}
}
