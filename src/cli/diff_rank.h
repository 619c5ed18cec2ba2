/*
 * diff_rank.h - what `scaler diff` finds between two sets of runs
 * (diff_rank.c): one finding per (caller, callee, API), per component and
 * for the threads and processes, each with both sides' figures, the tests
 * of every figure and distribution (diff_stats.h), whether the change is
 * significant, its score, and its pattern in words.
 *
 * A side is one or more profiles of the same program and input; several
 * give it a run-to-run spread that the tests use instead of assumed ones.
 *
 * Ranking (vProf, doc/diff.md): a finding's raw cost is the larger of the
 * two sides' times (calls, for untimed profiles); it is discounted by 0.8
 * when nothing in it changed significantly, else by 1 - the size of its
 * largest significant change (0 when that size exceeds 0.9). Significant
 * findings come first, so an unchanged row never outranks a changed one;
 * among them, changes of time alone (the weakest evidence: other load
 * moves it) come after changes of calls or latency distributions.
 *
 * Distributions: a finding compares a list of distributions over ordered
 * bins: the latency histogram, then each argument or return value both
 * sides recorded (--args: negative values, then log2 buckets), tested and
 * weighed the same way.
 */
#ifndef SCALER_DIFF_RANK_H
#define SCALER_DIFF_RANK_H

#include <stddef.h>
#include <stdint.h>

#include "diff_stats.h"
#include "model.h"
#include "profile.h"

/* One loaded profile. */
struct diff_run {
	const char *dir;
	struct sc_profile prof;
	struct sc_model model;
};

/* BASE or NEW: its runs. */
struct diff_side {
	size_t nruns;
	struct diff_run *runs;
};

/* vProf's discount of a finding without a significant change */
#define DIFF_DEFAULT_DISCOUNT 0.8

enum diff_kind { DIFF_CALL, DIFF_COMPONENT, DIFF_THREADS, DIFF_PROCESSES };

/* One side's figures of a finding: means over the side's runs (a run
 * without the row counts as 0). */
struct diff_figs {
	double calls;
	double per_work;        /* calls per unit of work; < 0 if not told */
	double total_ns, self_ns, wait_ns, attr_ns;
	double mean_ns;         /* total_ns / calls */
	int64_t p50_ns, p99_ns, max_ns;
	double timed;           /* calls measured (all runs) */
	/* estimated calls per latency bucket, summed over the runs */
	double hist[SC_HIST_BUCKETS];
};

/* A figure measured once per run, tested. */
enum diff_scalar_id {
	DS_CALLS, DS_PER_WORK, DS_TIME, DS_MEAN, DS_WAIT, DS_ATTR, DS_P50, DS_NSCALAR
};

struct diff_scalar {
	int tested;
	struct ds_rate r;
	int significant;        /* r.p below the corrected level */
};

/* A distribution compared. */
#define DIFF_MAX_DIST 4
struct diff_dist {
	const char *name;       /* "latency" */
	const char *unit;       /* "ns" */
	int tested;
	struct ds_ad ad;        /* on the histograms scaled to the calls measured */
	double hellinger;       /* of the pooled histograms */
	double within;          /* largest Hellinger distance between runs of
				   one side (0 with one run a side) */
	int significant;
};

struct diff_finding {
	enum diff_kind kind;
	/* DIFF_CALL: the row; DIFF_COMPONENT: caller is the component;
	 * otherwise all NULL */
	const char *caller, *callee, *api;
	struct diff_figs base, new_;
	struct diff_scalar scalar[DS_NSCALAR];
	size_t ndist;
	struct diff_dist dist[DIFF_MAX_DIST];   /* latency, then values */
	double vmean[DIFF_MAX_DIST][2];         /* a value's mean, base and new */
	int significant;        /* a real change that matters (doc/diff.md) */
	int time_only;          /* significant by its time or Wait alone (only
				   with several runs a side): ranked after the
				   changes of calls or latency distributions */
	double raw;             /* cost: ns, or calls when untimed */
	double delta;           /* how much that cost changed (absolute) */
	double discount;        /* vProf's ratio, in [0, 0.8] */
	double score;           /* raw * (1 - discount) */
	char pattern[256];      /* in words, with the figures */
	const char *vprof;      /* "missing constraint", "wrong constraint",
				   "scalability", or NULL */
	size_t rank;            /* 1 = first */
};

struct diff_result {
	int timed;              /* both sides have times */
	double alpha;           /* the level of each figure's test (0.05
				   over the number of findings) */
	/* the unit of work: a row with >= 100 calls a run whose count did
	 * not move, the executable's own calls first, the most called first
	 * (diff_rank.c: find_work); NULL if there is none */
	const char *work_caller, *work_callee, *work_api;
	double work_base, work_new; /* its calls per run */
	double base_threads_ns, new_threads_ns; /* all threads' time per run */
	size_t n;
	struct diff_finding *f; /* ranked */
};

/* Compare the sides; out is freed with diff_free. */
void diff_build(const struct diff_side *base, const struct diff_side *new_,
		struct diff_result *out);
void diff_free(struct diff_result *r);

/* Name of a kind: "call", "component", "threads", "processes". */
const char *diff_kind_name(enum diff_kind k);
/* Name of a scalar test as in the JSON: "calls", "calls_per_work", ... */
const char *diff_scalar_name(enum diff_scalar_id s);

#endif
