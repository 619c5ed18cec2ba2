/*
 * report_model.c - the rows every writer of `scaler report` shows (report.h):
 * calls and components of the selected process(es), filtered by
 * --component and --min-percent and ordered by --sort, and the thread groups
 * with the paper's imbalance flag. One place, so text, JSON, CSV and HTML
 * never disagree.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "report.h"
#include "xalloc.h"

void *report_xcalloc(size_t n, size_t size)
{
	return sc_xcalloc(n, size);
}

static const struct {
	const char *name, *help;
} sort_keys[] = {
	[SORT_TOTAL] = { "total", "inclusive time, longest first" },
	[SORT_SELF] = { "self", "exclusive time (also orders components)" },
	[SORT_COUNT] = { "count", "number of calls" },
	[SORT_AVG] = { "avg", "mean time per call" },
	[SORT_P99] = { "p99", "99th percentile of a call's time" },
	[SORT_NAME] = { "name", "API name (also orders components)" },
	[SORT_ATTR] = { "attr", "attributed (serial vs parallel) time" },
};

#define NSORT (sizeof(sort_keys) / sizeof(sort_keys[0]))

int report_sort_parse(const char *s)
{
	size_t i;

	for (i = 0; i < NSORT; i++)
		if (!strcmp(s, sort_keys[i].name))
			return (int)i;
	return -1;
}

const char *report_sort_choice(size_t i, const char **help)
{
	if (i >= NSORT)
		return NULL;
	if (help)
		*help = sort_keys[i].help;
	return sort_keys[i].name;
}

const char *report_thread_routine(const struct sc_thread *t)
{
	return t->seq == 0 ? "main" : t->routine[0] ? t->routine : "?";
}

int report_has_image(const struct report *r, const struct sc_image *im)
{
	return !r->only || r->only == im;
}

int report_has_hist(const struct sc_call *c)
{
	int i;

	for (i = 0; i < SC_HIST_BUCKETS; i++)
		if (c->hist[i])
			return 1;
	return 0;
}

const struct sc_thread *report_next_thread(const struct sc_profile *p, const struct sc_image *only,
					   struct report_iter *it, const struct sc_image **im)
{
	for (; it->i < p->nimages; it->i++, it->k = 0) {
		const struct sc_image *m = &p->images[it->i];

		if (only && m != only)
			continue;
		while (it->k < m->nthreads) {
			const struct sc_thread *t = &m->threads[it->k++];

			if (t->has_file) {
				*im = m;
				return t;
			}
		}
	}
	return NULL;
}

long double report_group_eff(const struct report_group *g)
{
	return g->threads ? (long double)(g->wall_ns - g->wait_ns) / (long double)g->threads : 0;
}

/* The imbalance rule's thresholds (doc/report.md, "Thread imbalance").
 * A group is flagged when another one's effective time per thread is
 * IMB_RATIO times its own or more; the kind of work is compared by exact
 * call counts: the threads of both make at least IMB_MIN_CALLS calls each
 * on average, and within IMB_WORK of each other's (a sleeper or a thread
 * waiting for jobs makes a handful, and two such are no stages either); and
 * threads not started one after the other must have started within
 * IMB_SPREAD of the slower one's effective time per thread. */
#define IMB_RATIO 2
#define IMB_WORK 0.01
#define IMB_MIN_CALLS 1000
#define IMB_SPREAD 0.25

/* Calls of the join APIs (names.h) image im made (its aggregate in m). */
static uint64_t join_calls(const struct sc_model *m, const struct sc_image *im)
{
	const struct sc_agg *a = sc_model_image(m, im);
	uint64_t n = 0;

	for (size_t i = 0; i < a->ncalls; i++)
		if (sc_api_rendezvous(a->calls[i].symbol ? a->calls[i].symbol : a->calls[i].api) ==
		    SC_RENDEZVOUS_JOIN)
			n = sc_addu_sat(n, a->calls[i].count);
	return n;
}

static long double thread_ns(const struct sc_image *im, uint64_t tsc)
{
	return im->tsc_hz > 0 ? (long double)tsc * 1e9L / im->tsc_hz : 0;
}

/*
 * Is fast (a group) kept waiting by slow (another)? The paper's pattern
 * (ferret and dedup, §4.2.3), for groups of workers only, each condition
 * from the profile's structure rather than from timing where it can be:
 * - both in one process, their start routines in one object;
 * - started together: their threads' numbers are one run (no other thread
 *   started in between), or they started within IMB_SPREAD;
 * - the same kind of work: calls per thread at least IMB_MIN_CALLS and
 *   within IMB_WORK of each other (a sleeper, a thread waiting for jobs, a
 *   background thread makes a handful and is no stage);
 * - waiting for each other: every thread of both called
 *   pthread_barrier_wait, or they are joined (as many joins as threads);
 * - and slow's effective time per thread is IMB_RATIO times fast's.
 * Fills the evidence into fast.
 */
static int imbalanced(const struct sc_model *m, struct report_group *fast,
		      const struct report_group *slow)
{
	long double ef = report_group_eff(fast), es = report_group_eff(slow);
	long double cf = (long double)fast->calls / (long double)fast->threads;
	long double cs = (long double)slow->calls / (long double)slow->threads;
	long double lo, hi;
	uint64_t need = fast->threads + slow->threads, n;
	uint32_t slo, shi;

	if (!fast->image || fast->image != slow->image || fast->routine_obj != slow->routine_obj)
		return 0;
	if (es <= 0 || es < IMB_RATIO * ef)
		return 0;
	if (cf < IMB_MIN_CALLS || cs < IMB_MIN_CALLS || cf < IMB_WORK * cs || cs < IMB_WORK * cf)
		return 0;
	lo = fast->start_lo < slow->start_lo ? fast->start_lo : slow->start_lo;
	hi = fast->start_hi > slow->start_hi ? fast->start_hi : slow->start_hi;
	slo = fast->seq_lo < slow->seq_lo ? fast->seq_lo : slow->seq_lo;
	shi = fast->seq_hi > slow->seq_hi ? fast->seq_hi : slow->seq_hi;
	if ((uint64_t)(shi - slo) + 1 != need && hi - lo > IMB_SPREAD * es)
		return 0;
	if (fast->barrier_threads == fast->threads && slow->barrier_threads == slow->threads) {
		fast->rendezvous = "pthread_barrier_wait";
		n = sc_addu_sat(fast->barrier_calls, slow->barrier_calls);
	} else if ((n = join_calls(m, fast->image)) >= need) {
		fast->rendezvous = "pthread_join";
	} else {
		return 0;
	}
	fast->rendezvous_calls = n;
	fast->start_spread_ns = (int64_t)llroundl(hi - lo);
	return 1;
}

/*
 * Thread groups: threads with the same start routine (across processes
 * unless `only`), each flagged imbalanced when imbalanced() says a slower
 * group keeps it waiting (the slowest such one is `slower`). The main
 * thread coordinates (joins) and is never a stage of its own.
 */
size_t report_groups(const struct sc_model *m, const struct sc_image *only,
		     struct report_group **out)
{
	const struct sc_profile *p = m->p;
	struct report_group *g;
	struct report_iter it = { 0, 0 };
	const struct sc_thread *t;
	const struct sc_image *im;
	size_t ng = 0, cap = 0, i, k;

	for (i = 0; i < p->nimages; i++)
		cap += p->images[i].nthreads;
	g = report_xcalloc(cap, sizeof(*g));
	while ((t = report_next_thread(p, only, &it, &im))) {
		const char *routine = report_thread_routine(t);
		long double start = thread_ns(im, t->start_tsc);
		size_t x;

		for (x = 0; x < ng; x++)
			if (!strcmp(g[x].routine, routine))
				break;
		if (x == ng) {
			g[ng].routine = routine;
			g[ng].image = im;
			g[ng].routine_obj = t->routine_obj;
			g[ng].start_lo = g[ng].start_hi = start;
			g[ng].seq_lo = g[ng].seq_hi = t->seq;
			ng++;
		}
		if (g[x].cpu_ns >= 0) {
			if (!t->has_cpu)
				g[x].cpu_ns = -1;
			else
				g[x].cpu_ns = sc_add_sat(g[x].cpu_ns, t->cpu_ns);
		}
		if (g[x].image != im)
			g[x].image = NULL;
		if (g[x].routine_obj != t->routine_obj)
			g[x].routine_obj = UINT32_MAX;
		if (start < g[x].start_lo)
			g[x].start_lo = start;
		if (start > g[x].start_hi)
			g[x].start_hi = start;
		if (t->seq < g[x].seq_lo)
			g[x].seq_lo = t->seq;
		if (t->seq > g[x].seq_hi)
			g[x].seq_hi = t->seq;
		g[x].calls = sc_addu_sat(g[x].calls, t->calls);
		if (t->barrier_calls) {
			g[x].barrier_threads++;
			g[x].barrier_calls = sc_addu_sat(g[x].barrier_calls, t->barrier_calls);
		}
		g[x].threads++;
		g[x].wall_ns = sc_add_sat(g[x].wall_ns, t->wall_ns);
		g[x].wait_ns = sc_add_sat(g[x].wait_ns, t->wait_ns);
		g[x].preempt_ns = sc_add_sat(g[x].preempt_ns, t->preempt_ns);
		g[x].attr_ns = sc_add_sat(g[x].attr_ns, t->attr_ns);
	}
	for (i = 0; i < ng; i++) {
		long double best = 0;

		if (!strcmp(g[i].routine, "main"))
			continue;
		for (k = 0; k < ng; k++) {
			struct report_group try = g[i];
			long double other = report_group_eff(&g[k]);

			if (k == i || !strcmp(g[k].routine, "main") || other <= best ||
			    !imbalanced(m, &try, &g[k]))
				continue;
			best = other;
			g[i] = try;
			g[i].imbalance = 1;
			g[i].slower = k;
		}
	}
	*out = g;
	return ng;
}

/* Share threshold: rows whose time (or, untimed, count) is under
 * min_percent of all threads' time (all calls) are hidden. */
int report_row_hidden(const struct report *r, int64_t ns, uint64_t count)
{
	if (r->min_percent <= 0)
		return 0;
	if (r->timed)
		return (long double)ns * 100 < (long double)r->min_percent *
						(long double)r->agg->threads_ns;
	return (long double)count * 100 < (long double)r->min_percent *
					  (long double)r->agg->calls_count;
}

/* ---- ordering ---------------------------------------------------------- */

static int cmp_i64(int64_t a, int64_t b) { return a > b ? -1 : a < b ? 1 : 0; }
static int cmp_u64(uint64_t a, uint64_t b) { return a > b ? -1 : a < b ? 1 : 0; }
static int cmp_ld(long double a, long double b) { return a > b ? -1 : a < b ? 1 : 0; }

static long double call_avg(const struct sc_call *c)
{
	return c->count ? (long double)c->total_ns / (long double)c->count : 0;
}

static int cmp_call(const void *x, const void *y, void *arg)
{
	const struct sc_call *a = *(const struct sc_call *const *)x;
	const struct sc_call *b = *(const struct sc_call *const *)y;
	const struct report *r = arg;
	int d = 0;

	switch (r->sort) {
	case SORT_TOTAL: d = r->timed ? cmp_i64(a->total_ns, b->total_ns) : 0; break;
	case SORT_SELF: d = cmp_i64(a->self_ns, b->self_ns); break;
	case SORT_COUNT: d = cmp_u64(a->count, b->count); break;
	case SORT_AVG: d = cmp_ld(call_avg(a), call_avg(b)); break;
	case SORT_P99: d = cmp_i64(a->p99_ns, b->p99_ns); break;
	case SORT_ATTR: d = cmp_i64(a->attr_ns, b->attr_ns); break;
	case SORT_NAME: d = strcmp(a->api, b->api); break;
	}
	if (!d)
		d = cmp_i64(a->total_ns, b->total_ns);
	if (!d)
		d = cmp_u64(a->count, b->count);
	if (!d)
		d = strcmp(a->api, b->api);
	if (!d)
		d = strcmp(a->caller, b->caller);
	if (!d)
		d = strcmp(a->callee, b->callee);
	return d;
}

static int cmp_comp(const void *x, const void *y, void *arg)
{
	const struct sc_component *a = *(const struct sc_component *const *)x;
	const struct sc_component *b = *(const struct sc_component *const *)y;
	const struct report *r = arg;
	int d = 0;

	switch (r->sort) {
	case SORT_SELF: d = cmp_i64(a->self_ns, b->self_ns); break;
	case SORT_ATTR: d = cmp_i64(a->attr_total_ns, b->attr_total_ns); break;
	case SORT_NAME: d = strcmp(a->name, b->name); break;
	case SORT_COUNT:
		d = cmp_u64(sc_addu_sat(a->in_calls, a->out_calls),
			    sc_addu_sat(b->in_calls, b->out_calls));
		break;
	default: break;
	}
	if (!d)
		d = cmp_i64(a->total_ns, b->total_ns);
	if (!d)
		d = strcmp(a->name, b->name);
	return d;
}

/*
 * An API row shows its share of what its component is called for (the
 * API view's %in: of the callee's in_ns, or in_calls untimed), so that is
 * what --min-percent measures it against; a call within one component
 * shows none, and is measured against all threads' time as the component
 * view's rows are.
 */
int report_call_shown(const struct report *r, const struct sc_call *c)
{
	const struct sc_component *to;

	if (!report_comp_selected(r, c->caller) && !report_comp_selected(r, c->callee))
		return 0;
	if (r->min_percent <= 0)
		return 1;
	to = strcmp(c->caller, c->callee) ? sc_agg_component(r->agg, c->callee) : NULL;
	if (!to)
		return !report_row_hidden(r, c->total_ns, c->count);
	if (r->timed)
		return (long double)c->total_ns * 100 >= (long double)r->min_percent *
							 (long double)to->in_ns;
	return (long double)c->count * 100 >= (long double)r->min_percent *
					      (long double)to->in_calls;
}

int report_comp_shown(const struct report *r, const struct sc_component *c)
{
	if (!report_comp_selected(r, c->name))
		return 0;
	return !report_row_hidden(r, c->total_ns, c->in_calls + c->out_calls);
}

void report_select(struct report *r)
{
	const struct sc_agg *a = r->agg;
	size_t i;

	r->nselected = 0;
	r->selected = report_xcalloc(a->ncomp, sizeof(*r->selected));
	if (r->component)
		r->nselected = report_match_components(a, r->component, r->selected);
	r->calls = report_xcalloc(a->ncalls, sizeof(*r->calls));
	r->ncalls = 0;
	for (i = 0; i < a->ncalls; i++)
		if (report_call_shown(r, &a->calls[i]))
			r->calls[r->ncalls++] = &a->calls[i];
	qsort_r(r->calls, r->ncalls, sizeof(*r->calls), cmp_call, r);

	r->comp = report_xcalloc(a->ncomp, sizeof(*r->comp));
	r->ncomp = 0;
	for (i = 0; i < a->ncomp; i++)
		if (report_comp_shown(r, &a->comp[i]))
			r->comp[r->ncomp++] = &a->comp[i];
	qsort_r(r->comp, r->ncomp, sizeof(*r->comp), cmp_comp, r);

	r->ngroups = report_groups(r->model, r->only, &r->groups);
}

void report_release(struct report *r)
{
	free(r->calls);
	free(r->comp);
	free(r->groups);
	free(r->selected);
	r->selected = NULL;
	r->calls = NULL;
	r->comp = NULL;
	r->groups = NULL;
}
