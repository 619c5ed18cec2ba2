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
			snprintf(h->text, sizeof(h->text),
				 "busy polling: %s from %s %s calls, %s a second, %.2f %% of them "
				 "blocked (median %s): a timeout of 0, or a loop that does not wait",
				 c->api, c->caller, y, x, blocked * 100, z);
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
