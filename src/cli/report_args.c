/*
 * report_args.c - argument and return values (--args) in words, for the
 * text report, the HTML page, hints and diff: a value's range ("64..127")
 * and the buckets that hold most of its calls ("1,000 calls (98.9%) of
 * 64..127").
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "report_args.h"

void report_args_range(char *b, size_t n, int bucket)
{
	if (bucket <= 0)
		snprintf(b, n, "0");
	else if (bucket == 1)
		snprintf(b, n, "1");
	else if (bucket + 1 >= (int)SC_ARGS_NHIST)
		snprintf(b, n, "%" PRIu64 "..", sc_argdist_lo(bucket));
	else
		snprintf(b, n, "%" PRIu64 "..%" PRIu64, sc_argdist_lo(bucket),
			 sc_argdist_lo(bucket + 1) - 1);
}

void report_args_value(char *b, size_t n, const struct sc_argdist *d, uint64_t v)
{
	if (sc_argdist_signed(d))
		snprintf(b, n, "%" PRId64, (int64_t)v);
	else
		snprintf(b, n, "%" PRIu64, v);
}

const char *report_args_errname(char *b, size_t n, uint32_t err)
{
	const char *s = err <= INT32_MAX ? strerrorname_np((int)err) : NULL;
	if (s)
		snprintf(b, n, "%s", s);
	else
		snprintf(b, n, "errno %" PRIu32, err);
	return b;
}

/* "mutex: 3 distinct" (exact) or "mutex: ~1,200 distinct (estimated)" */
static void distinct_phrase(char *b, size_t n, const struct sc_argdist *d)
{
	char cnt[32];
	int exact;
	double v = sc_argdist_distinct(d, &exact);
	report_fmt_count(cnt, sizeof(cnt), (uint64_t)v);
	snprintf(b, n, "%s: %s%s distinct%s", d->name, exact ? "" : "~", cnt,
		 exact ? "" : " (estimated)");
}

/* "errors: 12 of 1,000 calls: EAGAIN 10, EINTR 2" or "errors: none" */
static void errors_phrase(char *b, size_t n, const struct sc_argdist *d)
{
	char cnt[32], all[32], name[32];
	long double failed = sc_argdist_failed(d);
	size_t at;
	if (llroundl(failed) == 0) {
		snprintf(b, n, "errors: none");
		return;
	}
	report_fmt_count(cnt, sizeof(cnt), (uint64_t)llroundl(failed));
	report_fmt_count(all, sizeof(all), (uint64_t)llroundl(d->calls));
	at = (size_t)snprintf(b, n, "errors: %s of %s calls:", cnt, all);
	for (uint32_t i = 0; i < d->nerr && at < n; i++) {
		if (!llroundl(d->errs[i].calls))
			continue;
		report_fmt_count(cnt, sizeof(cnt), (uint64_t)llroundl(d->errs[i].calls));
		at += (size_t)snprintf(b + at, n - at, "%s %s %s", i ? "," : "",
				       report_args_errname(name, sizeof(name), d->errs[i].err), cnt);
	}
	if (llroundl(d->err_other) && at < n) {
		report_fmt_count(cnt, sizeof(cnt), (uint64_t)llroundl(d->err_other));
		snprintf(b + at, n - at, ", other %s", cnt);
	}
}

void report_args_phrase(char *b, size_t n, const struct sc_argdist *d)
{
	char lo[32], hi[32], mean[32], part[160];
	long double all = d->calls;
	int shown[3], ns = 0;
	size_t at = 0;

	if (d->flags & SC_ARGV_DISTINCT) {
		distinct_phrase(b, n, d);
		return;
	}
	if (d->flags & SC_ARGV_ERRNO) {
		errors_phrase(b, n, d);
		return;
	}

	report_args_value(lo, sizeof(lo), d, d->min);
	report_args_value(hi, sizeof(hi), d, d->max);
	snprintf(mean, sizeof(mean), "%.1Lf", sc_argdist_mean(d));
	at += (size_t)snprintf(b, n, "%s %s..%s, mean %s", d->name, lo, hi, mean);
	/* the (up to) three buckets with most calls, most first */
	while (ns < 3) {
		int m = -1;
		for (int k = 0; k < (int)SC_ARGS_NHIST; k++) {
			int taken = 0;
			for (int s = 0; s < ns; s++)
				taken |= shown[s] == k;
			if (!taken && d->hist[k] >= 0.5L && (m < 0 || d->hist[k] > d->hist[m]))
				m = k;
		}
		if (m < 0)
			break;
		shown[ns++] = m;
		char cnt[32], pct[32], rng[48];
		report_fmt_count(cnt, sizeof(cnt), (uint64_t)llroundl(d->hist[m]));
		report_fmt_pct(pct, sizeof(pct), d->hist[m], all);
		report_args_range(rng, sizeof(rng), m);
		snprintf(part, sizeof(part), "%s %s call%s (%s) of %s", ns == 1 ? ";" : ",", cnt,
			 llroundl(d->hist[m]) == 1 ? "" : "s", pct, rng);
		if (at < n)
			at += (size_t)snprintf(b + at, n - at, "%s", part);
	}
	if (d->neg >= 0.5L && at < n) {
		char cnt[32];
		report_fmt_count(cnt, sizeof(cnt), (uint64_t)llroundl(d->neg));
		snprintf(b + at, n - at, "; %s negative (errors)", cnt);
	}
}
