/*
 * hints.c - bug-pattern hints in a single profile (hints.h). Each rule
 * below says what it wants as evidence; the thresholds are the whole
 * policy (doc/diff.md, "Hints in one profile").
 */
#include "hints.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_args.h"
#include "xalloc.h"

/* Lock contention: the lock calls' Wait (their calls that blocked over
 * 10 µs, README) is at least this share of all threads' time. */
#define LOCK_MIN_SHARE 0.01
/* String comparisons: at least this share of the calling component's time,
 * in at least this many calls. The component's time is its threads' wall
 * time, which grows with other load while the compares' own (sampled)
 * time does not: on our loaded 2-core machines a program spending 90 % of
 * its CPU in strcmp showed 23-44 %. */
#define STR_MIN_SHARE 0.15
#define STR_MIN_CALLS 10000
/* Busy polling: at least this many calls, this many a second over the
 * run, of which at most this share blocked. */
#define POLL_MIN_CALLS 10000
#define POLL_MIN_RATE 10000
#define POLL_MAX_BLOCKED 0.01
/* Tiny I/O (needs --args: the sizes): at least this many reads or writes
 * of one caller, of this many bytes or fewer on average (asked for, or
 * moved when fewer), taking at least this share of all threads' time. */
#define TINY_MIN_CALLS 10000
#define TINY_MAX_BYTES 512
#define TINY_MIN_SHARE 0.01
/* Allocation churn: at least this many allocations of one caller, this
 * many a second, at least this share of them freed by it too, and
 * allocating and freeing take at least this share of all threads' time. */
#define CHURN_MIN_CALLS 100000
#define CHURN_MIN_RATE 100000
#define CHURN_MIN_FREED 0.5
#define CHURN_MIN_SHARE 0.01

int hints_is_io_api(const char *api)
{
	static const char *const io[] = {
		"read", "write", "pread", "pread64", "pwrite", "pwrite64", "send", "recv",
		"sendto", "recvfrom", "fread", "fwrite", "fread_unlocked", "fwrite_unlocked",
		"__read_chk",
	};
	for (size_t i = 0; i < sizeof(io) / sizeof(io[0]); i++)
		if (!strcmp(api, io[i]))
			return 1;
	return 0;
}

int hints_is_lock_api(const char *api)
{
	static const char *const locks[] = {
		"pthread_mutex_lock", "pthread_mutex_timedlock", "pthread_mutex_clocklock",
		"pthread_rwlock_rdlock", "pthread_rwlock_wrlock", "pthread_rwlock_timedrdlock",
		"pthread_rwlock_timedwrlock", "pthread_spin_lock", "flock", "lockf", "lockf64",
	};
	for (size_t i = 0; i < sizeof(locks) / sizeof(locks[0]); i++)
		if (!strcmp(api, locks[i]))
			return 1;
	return 0;
}

static int is_string_compare(const char *api)
{
	static const char *const cmps[] = {
		"strcmp", "strncmp", "strcasecmp", "strncasecmp", "strcoll", "strverscmp",
		"memcmp", "bcmp", "wcscmp", "wcsncmp", "wcscasecmp", "__strcmp_chk",
	};
	for (size_t i = 0; i < sizeof(cmps) / sizeof(cmps[0]); i++)
		if (!strcmp(api, cmps[i]))
			return 1;
	return 0;
}

static int is_alloc_api(const char *api)
{
	static const char *const allocs[] = {
		"malloc", "calloc", "realloc", "reallocarray", "aligned_alloc", "memalign",
		"posix_memalign", "_Znwm", "_Znam",
	};
	for (size_t i = 0; i < sizeof(allocs) / sizeof(allocs[0]); i++)
		if (!strcmp(api, allocs[i]))
			return 1;
	return 0;
}

/* The size value of a call (its first that is not the return value), and
 * its return value, or NULL. */
static const struct sc_argdist *size_of(const struct sc_call *c, const struct sc_argdist **ret)
{
	const struct sc_argdist *s = NULL;
	*ret = NULL;
	for (uint32_t i = 0; i < c->nargs; i++)
		if (!strcmp(c->args[i].name, "ret"))
			*ret = &c->args[i];
		else if (!s && c->args[i].calls > 0 &&
			 !(c->args[i].flags & (SC_ARGV_DISTINCT | SC_ARGV_ERRNO)))
			s = &c->args[i];
	return s;
}

/* "16 bytes on average (asked for; 16..31: 100 %)" */
static void say_sizes(char *b, size_t n, const struct sc_argdist *d, double mean, const char *how)
{
	int m = sc_argdist_mode(d);
	char rng[48];
	report_args_range(rng, sizeof(rng), m);
	snprintf(b, n, "%.0f bytes on average (%s; %s: %.0f %%)", mean, how, rng,
		 m >= 0 && d->calls > 0 ? (double)(d->hist[m] / d->calls) * 100 : 0);
}

static int is_poll_api(const char *api)
{
	static const char *const polls[] = {
		"poll", "ppoll", "__poll_chk", "__ppoll_chk", "select", "pselect", "pselect6",
		"epoll_wait", "epoll_pwait", "epoll_pwait2",
	};
	for (size_t i = 0; i < sizeof(polls) / sizeof(polls[0]); i++)
		if (!strcmp(api, polls[i]))
			return 1;
	return 0;
}

double hints_share_above(const double *hist, double lo_ns)
{
	double all = 0, above = 0;

	for (int b = 0; b < SC_HIST_BUCKETS; b++) {
		all += hist[b];
		if ((double)sc_hist_lo_ns(b) >= lo_ns)
			above += hist[b];
	}
	return all > 0 ? above / all : 0;
}

static double blocked_share(const struct sc_call *c)
{
	double h[SC_HIST_BUCKETS];

	for (int b = 0; b < SC_HIST_BUCKETS; b++)
		h[b] = (double)c->hist[b];
	return hints_share_above(h, HINTS_BLOCKED_NS);
}

/* "; 1 distinct mutex address" appended to b: which locks, with --args */
static void lock_count(char *b, size_t n, const struct sc_call *c)
{
	for (uint32_t i = 0; i < c->nargs; i++)
		if (c->args[i].flags & SC_ARGV_DISTINCT) {
			char cnt[32];
			int exact;
			double v = sc_argdist_distinct(&c->args[i], &exact);
			size_t at = strlen(b);
			report_fmt_count(cnt, sizeof(cnt), (uint64_t)v);
			if (at < n)
				snprintf(b + at, n - at, "; %s%s distinct %s address%s", exact ? "" : "~",
					 cnt, c->args[i].name, v == 1 ? "" : "es");
			return;
		}
}

static struct hint *add(struct hint **out, size_t *n, size_t *cap, const char *kind,
			const struct sc_call *c, double share)
{
	struct hint *h;

	*out = sc_grow(*out, cap, *n + 1, sizeof(**out));
	h = &(*out)[(*n)++];
	memset(h, 0, sizeof(*h));
	h->kind = kind;
	h->caller = c->caller;
	h->callee = c->callee;
	h->api = c->api;
	h->share = share;
	return h;
}

static int cmp_hint(const void *a, const void *b)
{
	const struct hint *x = a, *y = b;

	if (x->share != y->share)
		return x->share > y->share ? -1 : 1;
	return strcmp(x->text, y->text);
}

size_t hints_find(const struct sc_agg *a, long double wall_ns, struct hint **out)
{
	size_t i, j, n = 0, cap = 0;
	char x[32], y[32], z[32];

	*out = NULL;
	if (a->threads_ns <= 0)
		return 0;       /* untimed: no evidence for any of these */
	for (i = 0; i < a->ncalls; i++) {
		const struct sc_call *c = &a->calls[i];

		if (hints_is_lock_api(c->api) && c->wait_ns > 0) {
			double share = (double)c->wait_ns / (double)a->threads_ns;
			double blocked = blocked_share(c);
			if (share < LOCK_MIN_SHARE)
				continue;
			struct hint *h = add(out, &n, &cap, "lock contention", c, share);
			report_fmt_ns(x, sizeof(x), (long double)c->wait_ns);
			report_fmt_count(y, sizeof(y), c->count);
			snprintf(h->text, sizeof(h->text),
				 "lock contention: %s from %s waits %s (%.1f %% of all threads' "
				 "time); %.1f %% of its %s calls blocked, p99 %s",
				 c->api, c->caller, x, share * 100, blocked * 100, y,
				 (report_fmt_ns(z, sizeof(z), (long double)c->p99_ns), z));
			lock_count(h->text, sizeof(h->text), c);
		}
		const struct sc_argdist *ret, *sz = size_of(c, &ret);
		if (hints_is_io_api(c->api) && sz && c->count >= TINY_MIN_CALLS) {
			double share = (double)c->total_ns / (double)a->threads_ns;
			double mean = (double)sc_argdist_mean(sz), moved = -1;
			if (ret && ret->calls > ret->neg)
				moved = (double)sc_argdist_mean(ret);
			const struct sc_argdist *by = moved >= 0 && moved < mean ? ret : sz;
			if (by == ret)
				mean = moved;
			if (mean <= TINY_MAX_BYTES && share >= TINY_MIN_SHARE) {
				struct hint *h = add(out, &n, &cap, "tiny I/O", c, share);
				char sizes[96];
				say_sizes(sizes, sizeof(sizes), by, mean,
					  by == ret ? "moved" : "asked for");
				report_fmt_count(y, sizeof(y), c->count);
				report_fmt_ns(x, sizeof(x), (long double)c->total_ns);
				snprintf(h->text, sizeof(h->text),
					 "tiny I/O: %s from %s %s calls of %s, %s (%.1f %% of all "
					 "threads' time): a buffer (stdio, setvbuf) or larger reads and "
					 "writes", c->api, c->caller, y, sizes, x, share * 100);
			}
		}
		if (is_alloc_api(c->api) && c->count >= CHURN_MIN_CALLS && wall_ns > 0) {
			const struct sc_call *fr = NULL;
			for (j = 0; j < a->ncalls && !fr; j++)
				if (!strcmp(a->calls[j].api, "free") &&
				    !strcmp(a->calls[j].caller, c->caller))
					fr = &a->calls[j];
			double rate = (double)c->count / ((double)wall_ns / 1e9);
			double freed = fr ? (double)fr->count / (double)c->count : 0;
			double share = (double)(c->total_ns + (fr ? fr->total_ns : 0)) /
				       (double)a->threads_ns;
			if (rate >= CHURN_MIN_RATE && freed >= CHURN_MIN_FREED &&
			    share >= CHURN_MIN_SHARE) {
				struct hint *h = add(out, &n, &cap, "allocation churn", c, share);
				char sizes[96] = "sizes not recorded (scaler record --args)";
				if (sz)
					say_sizes(sizes, sizeof(sizes), sz,
						  (double)sc_argdist_mean(sz), "asked for");
				report_fmt_count(y, sizeof(y), c->count);
				report_fmt_count(x, sizeof(x), (uint64_t)rate);
				report_fmt_count(z, sizeof(z), fr->count);
				snprintf(h->text, sizeof(h->text),
					 "allocation churn: %s from %s %s calls, %s a second, %s freed "
					 "again by it (free: %s calls); %s; with free %.1f %% of all "
					 "threads' time: reuse the buffers or a pool", c->api,
					 c->caller, y, x, freed >= 0.99 ? "all" : "most", z, sizes,
					 share * 100);
			}
		}
		if (is_poll_api(c->api) && wall_ns > 0) {
			double rate = (double)c->count / ((double)wall_ns / 1e9);
			double blocked = blocked_share(c);
			if (c->count < POLL_MIN_CALLS || rate < POLL_MIN_RATE ||
			    blocked > POLL_MAX_BLOCKED || !c->timed)
				continue;
			struct hint *h = add(out, &n, &cap, "busy polling", c,
					     (double)c->total_ns / (double)a->threads_ns);
			report_fmt_count(x, sizeof(x), (uint64_t)rate);
			report_fmt_count(y, sizeof(y), c->count);
			report_fmt_ns(z, sizeof(z), (long double)c->p50_ns);
			/* the timeouts themselves, when --args kept them */
			char tmo[80] = "a timeout of 0";
			for (uint32_t k = 0; k < c->nargs; k++)
				if (!strcmp(c->args[k].name, "timeout") && c->args[k].calls > 0)
					snprintf(tmo, sizeof(tmo), "a timeout of 0 in %.0f %% of them",
						 (double)(c->args[k].hist[0] / c->args[k].calls) * 100);
			snprintf(h->text, sizeof(h->text),
				 "busy polling: %s from %s %s calls, %s a second, %.2f %% of them "
				 "blocked (median %s): %s, or a loop that does not wait",
				 c->api, c->caller, y, x, blocked * 100, z, tmo);
		}
	}
	/* string comparisons per calling component */
	for (i = 0; i < a->ncomp; i++) {
		const struct sc_component *comp = &a->comp[i];
		const struct sc_call *top = NULL;
		int64_t ns = 0;
		uint64_t calls = 0;

		if (comp->total_ns <= 0)
			continue;
		for (j = 0; j < a->ncalls; j++) {
			const struct sc_call *c = &a->calls[j];
			if (strcmp(c->caller, comp->name) || !is_string_compare(c->api))
				continue;
			ns += c->total_ns;
			calls += c->count;
			if (!top || c->total_ns > top->total_ns)
				top = c;
		}
		double share = (double)ns / (double)comp->total_ns;
		if (!top || calls < STR_MIN_CALLS || share < STR_MIN_SHARE)
			continue;
		struct hint *h = add(out, &n, &cap, "string comparisons", top, share);
		h->api = NULL;
		h->callee = NULL;
		report_fmt_ns(x, sizeof(x), (long double)ns);
		report_fmt_count(y, sizeof(y), calls);
		report_fmt_ns(z, sizeof(z), (long double)comp->total_ns);
		snprintf(h->text, sizeof(h->text),
			 "string comparisons dominate %s: %s calls (most: %s) take %s, %.0f %% of "
			 "its time (%s): a hash, an index or comparing once",
			 comp->name, y, top->api, x, share * 100, z);
	}
	sc_sort(*out, n, sizeof(**out), cmp_hint);
	return n;
}
