/*
 * report_functions.c - a component's patched functions (`--functions`),
 * for the function views of `scaler report`: its calls of kind "function"
 * summed per function, a compiler-made clone (`foo.isra.0`, `foo.cold`)
 * grouped with its function (report_names.c) and kept as a part of it.
 *
 * The figures merge every caller's row: a function's calls from its own
 * component are its time inside that component (they are no edge to
 * another one), its calls from elsewhere the time other components spend
 * in it. Percentiles come from the merged latency histograms.
 *
 * A function's exclusive time is shown on the CPU (run_ns): its self time
 * less the part of it its thread spent preempted (runnable, waiting for a
 * CPU), where perf events measured it. Wall-clock self time would charge
 * a busy machine's preemptions to whichever function was running then,
 * above all to a long call that is rarely left (a compression loop) while
 * its many short callees are timed only now and then. Functions are
 * ranked by it, as a sampling profiler's self overhead ranks them.
 */
#include <stdlib.h>
#include <string.h>

#include "estimate.h"
#include "report.h"

static void add(struct report_fn_figures *f, const struct sc_call *c)
{
	size_t b;

	f->count += c->count;
	f->timed += c->timed;
	f->total_ns += c->total_ns;
	f->self_ns += c->self_ns;
	f->run_ns += c->self_ns - c->self_preempt_ns;
	if (c->max_ns > f->max_ns)
		f->max_ns = c->max_ns;
	for (b = 0; b < SC_HIST_BUCKETS; b++)
		f->hist[b] += c->hist[b];
	if (!f->caller)
		f->caller = c->caller;
	else if (strcmp(f->caller, c->caller))
		f->callers_many = 1;
}

static void finish(struct report_fn_figures *f)
{
	f->has_hist = 0;
	for (size_t b = 0; b < SC_HIST_BUCKETS; b++)
		f->has_hist |= f->hist[b] != 0;
	if (f->has_hist)
		sc_latency_quantiles(f->hist, f->count, f->total_ns, f->max_ns, &f->p50_ns,
				     &f->p99_ns);
}

static int cmp_fig(const struct report_fn_figures *a, const struct report_fn_figures *b)
{
	if (a->run_ns != b->run_ns)
		return a->run_ns > b->run_ns ? -1 : 1;
	if (a->total_ns != b->total_ns)
		return a->total_ns > b->total_ns ? -1 : 1;
	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return 0;
}

static int cmp_part(const void *x, const void *y)
{
	const struct report_fn_part *a = x, *b = y;
	int c = cmp_fig(&a->fig, &b->fig);

	return c ? c : strcmp(a->symbol, b->symbol);
}

static int cmp_fn(const void *x, const void *y)
{
	const struct report_fn *a = x, *b = y;
	int c = cmp_fig(&a->fig, &b->fig);

	return c ? c : strcmp(a->name, b->name);
}

size_t report_functions(const struct report *r, const char *component, struct report_fn **out)
{
	struct report_fn *fn = NULL;
	size_t n = 0, i, k;
	char dem[1024];

	for (i = 0; i < r->ncalls; i++) {
		const struct sc_call *c = r->calls[i];
		const char *name, *sym;
		struct report_fn *f;

		if (!c->function || strcmp(c->callee, component))
			continue;
		name = report_function_name(c->api, dem, sizeof(dem));
		for (k = 0; k < n && strcmp(fn[k].name, name); k++)
			;
		if (k == n) {
			/* at most one group per row: r->ncalls bounds them */
			if (!fn)
				fn = report_xcalloc(r->ncalls, sizeof(*fn));
			fn[n].name = strdup(name);
			fn[n].parts = report_xcalloc(r->ncalls, sizeof(*fn[n].parts));
			if (!fn[n].name) {
				perror("scaler report");
				exit(1);
			}
			n++;
		}
		f = &fn[k];
		add(&f->fig, c);
		sym = c->symbol ? c->symbol : c->api;
		for (k = 0; k < f->nparts && strcmp(f->parts[k].symbol, sym); k++)
			;
		if (k == f->nparts) {
			f->parts[k].symbol = sym;
			f->parts[k].api = c->api;
			f->parts[k].suffix = sym + report_clone_base(sym);
			f->nparts++;
		}
		add(&f->parts[k].fig, c);
	}
	for (i = 0; i < n; i++) {
		finish(&fn[i].fig);
		for (k = 0; k < fn[i].nparts; k++)
			finish(&fn[i].parts[k].fig);
		qsort(fn[i].parts, fn[i].nparts, sizeof(*fn[i].parts), cmp_part);
	}
	if (n > 1)
		qsort(fn, n, sizeof(*fn), cmp_fn);
	*out = fn;
	return n;
}

int64_t report_comp_run_ns(const struct report *r, const struct sc_component *c)
{
	int64_t run = c->self_ns;

	for (size_t i = 0; i < r->ncalls; i++)
		if (!strcmp(r->calls[i]->callee, c->name))
			run -= r->calls[i]->self_preempt_ns;
	return run > 0 ? run : 0;
}

void report_functions_free(struct report_fn *fn, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(fn[i].name);
		free(fn[i].parts);
	}
	free(fn);
}
