/*
 * report_json.c - `scaler report --format json`: the "scaler-report"
 * document, version 1 (every key is documented in doc/report.md: a key
 * added here is added there). Top-level lists are the report's selection
 * (report_model.c) in display order; each process's own lists get the same
 * --component / --min-percent filters.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "report.h"
#include "report_args.h"
#include "series.h"

/* One histogram bucket: [lo, hi, n], hi null for an open-ended last one. */
static void json_bucket(struct sc_json *j, uint64_t lo, uint64_t hi, int last, uint64_t n)
{
	sc_json_begin_array(j);
	sc_json_uint(j, lo);
	if (last)
		sc_json_null(j);
	else
		sc_json_uint(j, hi);
	sc_json_uint(j, n);
	sc_json_end_array(j);
}

/* Latency histogram: [lo_ns, hi_ns, count] per non-empty bucket. */
static void json_hist(struct sc_json *j, const struct sc_call *c)
{
	int i;

	sc_json_key(j, "hist");
	sc_json_begin_array(j);
	for (i = 0; i < SC_HIST_BUCKETS; i++)
		if (c->hist[i])
			json_bucket(j, sc_hist_lo_ns(i), i + 1 < SC_HIST_BUCKETS ?
				    sc_hist_lo_ns(i + 1) : 0, i + 1 == SC_HIST_BUCKETS, c->hist[i]);
	sc_json_end_array(j);
}

/* a value of a signed distribution as it is */
static void json_argval(struct sc_json *j, const struct sc_argdist *d, uint64_t v)
{
	if (sc_argdist_signed(d))
		sc_json_int(j, (int64_t)v);
	else
		sc_json_uint(j, v);
}

/* Argument and return values (--args): one object per value, its calls
 * per log2 bucket as [lo, hi, calls] (hi null for the last one) */
static void json_args(struct sc_json *j, const struct sc_call *c)
{
	sc_json_key(j, "args");
	sc_json_begin_array(j);
	for (uint32_t k = 0; k < c->nargs; k++) {
		const struct sc_argdist *d = &c->args[k];
		if (d->flags & SC_ARGV_ERRNO)
			continue;       /* json_errors */
		sc_json_begin_object(j);
		sc_json_key(j, "name");
		sc_json_string(j, d->name);
		sc_json_key(j, "seen");
		sc_json_uint(j, d->seen);
		if (d->flags & SC_ARGV_DISTINCT) {
			int exact;
			double n = sc_argdist_distinct(d, &exact);
			sc_json_key(j, "distinct");
			sc_json_uint(j, (uint64_t)n);
			sc_json_key(j, "exact");
			sc_json_bool(j, exact);
			sc_json_end_object(j);
			continue;
		}
		sc_json_key(j, "min");
		json_argval(j, d, d->min);
		sc_json_key(j, "max");
		json_argval(j, d, d->max);
		sc_json_key(j, "mean");
		sc_json_amount(j, sc_argdist_mean(d));
		sc_json_key(j, "negative");
		sc_json_uint(j, (uint64_t)llroundl(d->neg));
		sc_json_key(j, "hist");
		sc_json_begin_array(j);
		for (int b = 0; b < (int)SC_ARGS_NHIST; b++) {
			uint64_t n = (uint64_t)llroundl(d->hist[b]);
			int last = b + 1 == (int)SC_ARGS_NHIST;
			if (n)
				json_bucket(j, sc_argdist_lo(b), last ? 0 : sc_argdist_lo(b + 1), last,
					    n);
		}
		sc_json_end_array(j);
		sc_json_end_object(j);
	}
	sc_json_end_array(j);
}

/* Failed calls by errno name (--args: APIs whose prototype says how a
 * return fails), "other" for those whose errno was not kept; no key for
 * a row whose failures are not captured. */
static void json_errors(struct sc_json *j, const struct sc_call *c)
{
	for (uint32_t k = 0; k < c->nargs; k++) {
		const struct sc_argdist *d = &c->args[k];
		char name[32];
		if (!(d->flags & SC_ARGV_ERRNO))
			continue;
		sc_json_key(j, "errors");
		sc_json_begin_object(j);
		for (uint32_t i = 0; i < d->nerr; i++) {
			uint64_t n = (uint64_t)llroundl(d->errs[i].calls);
			if (!n)
				continue;
			sc_json_key(j, report_args_errname(name, sizeof(name), d->errs[i].err));
			sc_json_uint(j, n);
		}
		if (llroundl(d->err_other)) {
			sc_json_key(j, "other");
			sc_json_uint(j, (uint64_t)llroundl(d->err_other));
		}
		sc_json_end_object(j);
		return;
	}
}

/* key: [{"name": ..., "ns": ...}, ...] of n kernel functions. */
static void json_kfuncs(struct sc_json *j, const char *key, const struct sc_call_kfunc *f, size_t n)
{
	sc_json_key(j, key);
	sc_json_begin_array(j);
	for (size_t i = 0; i < n; i++) {
		sc_json_begin_object(j);
		sc_json_key(j, "name");
		sc_json_string(j, f[i].name);
		sc_json_key(j, "ns");
		sc_json_int(j, f[i].ns);
		sc_json_end_object(j);
	}
	sc_json_end_array(j);
}

/* What the kernel measured of a call key (doc/report.md, "kernel"). */
static void json_kernel(struct sc_json *j, const struct sc_call *c)
{
	sc_json_key(j, "kernel");
	sc_json_begin_object(j);
	sc_json_key(j, "on_cpu_ns");
	if (c->measured > 1)
		sc_json_int(j, c->kernel_ns);
	else
		sc_json_null(j);       /* not sampled: record --kernel */
	sc_json_key(j, "off_cpu_ns");
	sc_json_int(j, c->blocked_ns);
	sc_json_key(j, "preempted_ns");
	sc_json_int(j, c->preempt_ns);
	sc_json_key(j, "self_preempted_ns");
	sc_json_int(j, c->self_preempt_ns);
	json_kfuncs(j, "functions", c->kfuncs, c->nkfuncs);
	json_kfuncs(j, "off_cpu_functions", c->okfuncs, c->nokfuncs);
	sc_json_end_object(j);
}

#define KERNEL_SUM_FUNCS 32     /* kernel functions of a sum, the largest */

/*
 * The kernel object of a component or a process: the sums of json_kernel
 * over a's call rows into component callee (NULL: all of them), each
 * kernel function's inclusive time summed by name (a sample is booked to
 * one row only, so the sums count nothing twice); nothing when no row
 * was measured.
 */
static void json_kernel_sum(struct sc_json *j, const struct sc_agg *a, const char *callee)
{
	struct sc_call c = { .measured = 0 };
	size_t n = 0, k = 0, on = 0, ok = 0;

	for (size_t i = 0; i < a->ncalls; i++) {
		const struct sc_call *r = &a->calls[i];

		if (!r->measured || (callee && strcmp(r->callee, callee)))
			continue;
		c.measured = r->measured > c.measured ? r->measured : c.measured;
		c.kernel_ns = sc_add_sat(c.kernel_ns, r->measured > 1 ? r->kernel_ns : 0);
		c.blocked_ns = sc_add_sat(c.blocked_ns, r->blocked_ns);
		c.preempt_ns = sc_add_sat(c.preempt_ns, r->preempt_ns);
		n += r->nkfuncs;
		on += r->nokfuncs;
	}
	if (!c.measured)
		return;
	c.kfuncs = report_xcalloc(n ? n : 1, sizeof(*c.kfuncs));
	c.okfuncs = report_xcalloc(on ? on : 1, sizeof(*c.okfuncs));
	for (size_t i = 0; i < a->ncalls; i++)
		if (a->calls[i].measured && (!callee || !strcmp(a->calls[i].callee, callee))) {
			for (size_t f = 0; f < a->calls[i].nkfuncs; f++)
				c.kfuncs[k++] = a->calls[i].kfuncs[f];
			for (size_t f = 0; f < a->calls[i].nokfuncs; f++)
				c.okfuncs[ok++] = a->calls[i].okfuncs[f];
		}
	c.nkfuncs = sc_kfuncs_sum(c.kfuncs, n);
	if (c.nkfuncs > KERNEL_SUM_FUNCS)
		c.nkfuncs = KERNEL_SUM_FUNCS;
	c.nokfuncs = sc_kfuncs_sum(c.okfuncs, on);
	if (c.nokfuncs > KERNEL_SUM_FUNCS)
		c.nokfuncs = KERNEL_SUM_FUNCS;
	json_kernel(j, &c);
	free(c.kfuncs);
	free(c.okfuncs);
}

void report_json_call(struct sc_json *j, const struct sc_call *c)
{
	sc_json_begin_object(j);
	sc_json_key(j, "caller");
	sc_json_string(j, c->caller);
	sc_json_key(j, "callee");
	sc_json_string(j, c->callee);
	sc_json_key(j, "api");
	sc_json_string(j, c->api);
	sc_json_key(j, "symbol");
	sc_json_string(j, c->symbol ? c->symbol : c->api);
	sc_json_key(j, "kind");
	sc_json_string(j, c->function ? "function" : "import");
	if (c->function) {
		char dem[1024];

		sc_json_key(j, "function");
		sc_json_string(j, report_function_name(c->api, dem, sizeof(dem)));
	}
	sc_json_key(j, "count");
	sc_json_uint(j, c->count);
	sc_json_key(j, "timed");
	sc_json_uint(j, c->timed);
	sc_json_key(j, "total_ns");
	sc_json_int(j, c->total_ns);
	sc_json_key(j, "self_ns");
	sc_json_int(j, c->self_ns);
	sc_json_key(j, "edge_ns");
	sc_json_int(j, c->edge_ns);
	sc_json_key(j, "wait");
	sc_json_bool(j, c->wait);
	sc_json_key(j, "wait_ns");
	sc_json_int(j, c->wait_ns);
	sc_json_key(j, "attr_ns");
	sc_json_int(j, c->attr_ns);
	sc_json_key(j, "p50_ns");
	sc_json_int(j, c->p50_ns);
	sc_json_key(j, "p99_ns");
	sc_json_int(j, c->p99_ns);
	sc_json_key(j, "max_ns");
	sc_json_int(j, c->max_ns);
	json_hist(j, c);
	json_args(j, c);
	json_errors(j, c);
	if (c->measured)
		json_kernel(j, c);
	sc_json_end_object(j);
}

static void json_component(struct sc_json *j, const struct sc_agg *a, const struct sc_component *c)
{
	sc_json_begin_object(j);
	sc_json_key(j, "name");
	sc_json_string(j, c->name);
	sc_json_key(j, "path");
	sc_json_string(j, c->path);
	sc_json_key(j, "total_ns");
	sc_json_int(j, c->total_ns);
	sc_json_key(j, "self_ns");
	sc_json_int(j, report_clamp0(c->self_ns));
	sc_json_key(j, "wait_ns");
	sc_json_int(j, c->wait_ns);
	sc_json_key(j, "work_ns");
	sc_json_int(j, report_comp_work(c));
	sc_json_key(j, "self_wait_ns");
	sc_json_int(j, report_clamp0(c->self_ns) - report_comp_work(c));
	sc_json_key(j, "unseen_in_ns");
	sc_json_int(j, c->unseen_in_ns);
	sc_json_key(j, "unseen_out_ns");
	sc_json_int(j, c->unseen_out_ns);
	sc_json_key(j, "attr_total_ns");
	sc_json_int(j, c->attr_total_ns);
	sc_json_key(j, "attr_self_ns");
	sc_json_int(j, report_clamp0(c->attr_self_ns));
	/* below the calls into it (record --kernel) */
	json_kernel_sum(j, a, c->name);
	sc_json_end_object(j);
}

/* components and calls: the report's selection for the top level (a ==
 * r->agg, in display order), the same filters on a process's own rows */
static void json_agg(struct sc_json *j, const struct report *r, const struct sc_agg *a)
{
	size_t i;

	sc_json_key(j, "components");
	sc_json_begin_array(j);
	if (a == r->agg)
		for (i = 0; i < r->ncomp; i++)
			json_component(j, a, r->comp[i]);
	else
		for (i = 0; i < a->ncomp; i++)
			if (report_comp_shown(r, &a->comp[i]))
				json_component(j, a, &a->comp[i]);
	sc_json_end_array(j);
	sc_json_key(j, "calls");
	sc_json_begin_array(j);
	if (a == r->agg)
		for (i = 0; i < r->ncalls; i++)
			report_json_call(j, r->calls[i]);
	else
		for (i = 0; i < a->ncalls; i++)
			if (report_call_shown(r, &a->calls[i]))
				report_json_call(j, &a->calls[i]);
	sc_json_end_array(j);
}

/* what the runtime took off each timed call (its threads' measurements);
 * null where the profile's format has no such figures */
static void json_timing_cost(struct sc_json *j, const struct sc_image *im)
{
	sc_json_key(j, "timing_cost");
	if (im->ovh_unknown) {
		sc_json_null(j);
		return;
	}
	sc_json_begin_object(j);
	sc_json_key(j, "measurements");
	sc_json_uint(j, im->ovh_n);
	sc_json_key(j, "mean_ns");
	sc_json_int(j, im->ovh_mean_ns);
	sc_json_key(j, "min_ns");
	sc_json_int(j, im->ovh_min_ns);
	sc_json_key(j, "max_ns");
	sc_json_int(j, im->ovh_max_ns);
	sc_json_end_object(j);
}

static void json_thread(struct sc_json *j, const struct sc_image *im, const struct sc_thread *t)
{
	sc_json_begin_object(j);
	sc_json_key(j, "pid");
	sc_json_uint(j, im->pid);
	/* (pid, gen, seq) is unique even when the kernel reuses tids */
	sc_json_key(j, "gen");
	sc_json_uint(j, im->gen);
	sc_json_key(j, "seq");
	sc_json_uint(j, t->seq);
	sc_json_key(j, "tid");
	sc_json_uint(j, t->tid);
	sc_json_key(j, "name");
	sc_json_string(j, t->name);
	sc_json_key(j, "start_routine");
	sc_json_string(j, report_thread_routine(t));
	sc_json_key(j, "wall_ns");
	sc_json_int(j, t->wall_ns);
	sc_json_key(j, "wait_ns");
	sc_json_int(j, t->wait_ns);
	sc_json_key(j, "effective_ns");
	sc_json_int(j, t->wall_ns - t->wait_ns);
	sc_json_key(j, "attr_ns");
	sc_json_int(j, t->attr_ns);
	sc_json_end_object(j);
}

static void json_threads(struct sc_json *j, const struct sc_profile *p, const struct sc_image *only)
{
	struct report_iter it = { 0, 0 };
	const struct sc_thread *t;
	const struct sc_image *im;

	sc_json_key(j, "threads");
	sc_json_begin_array(j);
	while ((t = report_next_thread(p, only, &it, &im)))
		json_thread(j, im, t);
	sc_json_end_array(j);
}

/* Thread groups (report_groups: same start routine, imbalance flag). */
static void json_groups(struct sc_json *j, const struct report_group *g, size_t ng)
{
	size_t i;

	sc_json_key(j, "thread_groups");
	sc_json_begin_array(j);
	for (i = 0; i < ng; i++) {
		sc_json_begin_object(j);
		sc_json_key(j, "start_routine");
		sc_json_string(j, g[i].routine);
		sc_json_key(j, "threads");
		sc_json_uint(j, g[i].threads);
		sc_json_key(j, "wall_ns");
		sc_json_int(j, g[i].wall_ns);
		sc_json_key(j, "wait_ns");
		sc_json_int(j, g[i].wait_ns);
		sc_json_key(j, "effective_ns");
		sc_json_int(j, g[i].wall_ns - g[i].wait_ns);
		sc_json_key(j, "imbalance");
		sc_json_bool(j, g[i].imbalance);
		if (g[i].imbalance) {
			sc_json_key(j, "imbalance_basis");
			sc_json_begin_object(j);
			sc_json_key(j, "slower");
			sc_json_string(j, g[g[i].slower].routine);
			sc_json_key(j, "rendezvous");
			sc_json_string(j, g[i].rendezvous);
			sc_json_key(j, "rendezvous_calls");
			sc_json_uint(j, g[i].rendezvous_calls);
			sc_json_key(j, "start_spread_ns");
			sc_json_int(j, g[i].start_spread_ns);
			sc_json_end_object(j);
		}
		sc_json_end_object(j);
	}
	sc_json_end_array(j);
}

/* the functions --functions matched that were not patched, and why */
static void json_skipped(struct sc_json *j, const struct report *r)
{
	sc_json_key(j, "skipped_functions");
	sc_json_begin_array(j);
	for (size_t i = 0; i < r->p->nimages; i++) {
		const struct sc_image *im = &r->p->images[i];
		if (!report_has_image(r, im))
			continue;
		for (size_t k = 0; k < im->nskipped; k++) {
			const struct sc_skipped *s = &im->skipped[k];
			const struct sc_object *o = sc_image_object(im, s->obj);
			sc_json_begin_object(j);
			sc_json_key(j, "component");
			sc_json_string(j, o ? o->name : "?");
			sc_json_key(j, "function");
			sc_json_string(j, s->name);
			sc_json_key(j, "reason");
			sc_json_string(j, s->reason);
			sc_json_end_object(j);
		}
	}
	sc_json_end_array(j);
}

void report_json(const struct report *r)
{
	const struct sc_profile *p = r->p;
	struct sc_json j;
	size_t i, k;

	sc_json_init(&j, r->out);
	sc_json_begin_object(&j);
	sc_json_key(&j, "format");
	sc_json_string(&j, "scaler-report");
	sc_json_key(&j, "version");
	sc_json_int(&j, 1);
	sc_json_key(&j, "timing");
	sc_json_string(&j, sc_timing_name(p->timing_mode));
	sc_json_key(&j, "wait_source");
	sc_json_string(&j, report_wait_name(r->agg->wait_source));
	sc_json_key(&j, "critical_ns");
	sc_json_int(&j, r->agg->attr_ns);
	json_agg(&j, r, r->agg);
	json_threads(&j, p, r->only);
	json_groups(&j, r->groups, r->ngroups);
	json_skipped(&j, r);
	sc_json_key(&j, "processes");
	sc_json_begin_array(&j);
	for (i = 0; i < p->nimages; i++) {
		const struct sc_image *im = &p->images[i];
		const struct sc_agg *a = sc_model_image(r->model, im);
		struct report_group *g;
		size_t ng;

		if (!report_has_image(r, im))
			continue;
		sc_json_begin_object(&j);
		sc_json_key(&j, "pid");
		sc_json_uint(&j, im->pid);
		sc_json_key(&j, "ppid");
		sc_json_uint(&j, im->ppid);
		sc_json_key(&j, "gen");
		sc_json_uint(&j, im->gen);
		sc_json_key(&j, "command");
		sc_json_begin_array(&j);
		for (k = 0; k < im->argc; k++)
			sc_json_string(&j, im->argv[k]);
		sc_json_end_array(&j);
		sc_json_key(&j, "exit_status");
		sc_json_int(&j, im->exit_status);
		sc_json_key(&j, "wall_ns");
		sc_json_int(&j, im->wall_ns);
		sc_json_key(&j, "critical_ns");
		sc_json_int(&j, a->attr_ns);
		sc_json_key(&j, "wait_source");
		sc_json_string(&j, report_wait_name(im->wait_source));
		json_timing_cost(&j, im);
		json_kernel_sum(&j, a, NULL);
		json_agg(&j, r, a);
		/* per thread: effective = wall - Wait (the paper's §3.5 view) */
		json_threads(&j, p, im);
		ng = report_groups(r->model, im, &g);
		json_groups(&j, g, ng);
		free(g);
		sc_json_end_object(&j);
	}
	sc_json_end_array(&j);
	if (r->series) {
		sc_json_key(&j, "series");
		series_json(&j, r->series);
	}
	/* the files of the directory that were not read, and why */
	sc_json_key(&j, "skipped_files");
	sc_json_begin_array(&j);
	for (i = 0; i < p->nskipped_files; i++) {
		sc_json_begin_object(&j);
		sc_json_key(&j, "file");
		sc_json_string(&j, p->skipped_files[i].file);
		sc_json_key(&j, "reason");
		sc_json_string(&j, p->skipped_files[i].reason);
		sc_json_end_object(&j);
	}
	sc_json_end_array(&j);
	sc_json_end_object(&j);
	fputc('\n', r->out);
}
