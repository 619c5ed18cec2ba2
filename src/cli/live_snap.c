/*
 * live_snap.c - snapshots of a running profile for `scaler live` (live.h):
 * loading one, choosing the processes a view shows, and the rows of a view
 * with what each grew by since the previous snapshot.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "live.h"
#include "xalloc.h"

static int64_t mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * The reader refuses a thread file whose header is half-written (magic
 * there, the rest not yet): that is a thread being born while we read, and
 * a moment later the file is whole. So a failed load is tried again before
 * the error stands.
 */
int live_snap_load(struct live_snap *s, const char *dir, char *err, size_t errlen)
{
	for (int attempt = 0;; attempt++) {
		memset(s, 0, sizeof(*s));
		s->mono_ns = mono_now();
		if (sc_profile_load(dir, &s->p, err, errlen) == 0)
			break;
		sc_profile_free(&s->p);
		if (attempt == 4)
			return -1;
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	}
	sc_model_build(&s->m, &s->p);
	return 0;
}

void live_snap_free(struct live_snap *s)
{
	sc_model_free(&s->m);
	sc_profile_free(&s->p);
	memset(s, 0, sizeof(*s));
}

/* ---- selection --------------------------------------------------------- */

static const struct sc_image *image_of_pid(const struct sc_profile *p, uint32_t pid)
{
	for (size_t i = 0; i < p->nimages; i++)
		if (p->images[i].pid == pid)
			return &p->images[i];
	return NULL;
}

/* Is im the process pid or one of its descendants? The parent chain is
 * followed through the profile's own images (a process outside the
 * profile ends it), at most as many steps as there are images. */
static int in_tree(const struct sc_profile *p, const struct sc_image *im, uint32_t pid)
{
	for (size_t steps = 0; im && steps <= p->nimages; steps++) {
		if (im->pid == pid)
			return 1;
		im = image_of_pid(p, im->ppid);
	}
	return 0;
}

int live_sel_has(const struct sc_profile *p, const struct live_sel *sel, const struct sc_image *im)
{
	switch (sel->kind) {
	case SEL_ALL: return 1;
	case SEL_TREE: return in_tree(p, im, sel->pid);
	case SEL_IMAGE: return im->pid == sel->pid && im->gen == sel->gen;
	}
	return 0;
}

/* ---- merging calls by key ----------------------------------------------- */

static enum live_view key_view;         /* the key cmp_key compares */

static int cmp_key(const void *a, const void *b)
{
	const struct sc_call *x = a, *y = b;
	int c = strcmp(x->caller, y->caller);

	if (!c)
		c = strcmp(x->callee, y->callee);
	if (!c && key_view == VIEW_API)
		c = strcmp(x->api, y->api);
	return c;
}

/* Sums sorted in[0..n) by key into out (room for n); returns the rows. The
 * quantiles come again from the summed histogram. */
static size_t merge_sorted(const struct sc_call *in, size_t n, struct sc_call *out)
{
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		struct sc_call *o;

		if (m && !cmp_key(&out[m - 1], &in[i])) {
			o = &out[m - 1];
			o->count += in[i].count;
			o->timed += in[i].timed;
			o->total_ns += in[i].total_ns;
			o->edge_ns += in[i].edge_ns;
			o->self_ns += in[i].self_ns;
			o->wait_ns += in[i].wait_ns;
			o->attr_ns += in[i].attr_ns;
			o->wait |= in[i].wait;
			if (in[i].max_ns > o->max_ns)
				o->max_ns = in[i].max_ns;
			for (int b = 0; b < SC_HIST_BUCKETS; b++)
				o->hist[b] += in[i].hist[b];
		} else {
			o = &out[m++];
			*o = in[i];
			if (key_view == VIEW_COMP)
				o->api = "";
		}
	}
	for (size_t i = 0; i < m; i++) {
		/* an edge's row: its time, each nanosecond once (model.h) */
		if (key_view == VIEW_COMP)
			out[i].total_ns = out[i].edge_ns;
		sc_latency_quantiles(out[i].hist, out[i].count, out[i].total_ns, out[i].max_ns,
				     &out[i].p50_ns, &out[i].p99_ns);
	}
	return m;
}

/* The calls of sel in s grouped by view v, sorted by key: *n rows. */
static struct sc_call *grouped(struct live_snap *s, const struct live_sel *sel, enum live_view v,
			       size_t *n)
{
	struct sc_call *all, *out;
	size_t nall = 0, k = 0;

	for (size_t i = 0; i < s->p.nimages; i++)
		if (live_sel_has(&s->p, sel, &s->p.images[i]))
			nall += s->m.images[i].ncalls;
	all = sc_xcalloc(nall, sizeof(*all));
	for (size_t i = 0; i < s->p.nimages; i++) {
		const struct sc_agg *a = &s->m.images[i];

		if (!live_sel_has(&s->p, sel, &s->p.images[i]))
			continue;
		memcpy(all + k, a->calls, a->ncalls * sizeof(*all));
		k += a->ncalls;
	}
	key_view = v;
	sc_sort(all, nall, sizeof(*all), cmp_key);
	out = sc_xcalloc(nall, sizeof(*out));
	*n = merge_sorted(all, nall, out);
	free(all);
	return out;
}

const struct sc_call *live_calls(struct live_snap *cur, const struct live_sel *sel, size_t *n,
				 struct sc_call **owned)
{
	*owned = NULL;
	if (sel->kind == SEL_ALL) {
		*n = cur->m.agg.ncalls;
		return cur->m.agg.calls;
	}
	for (size_t i = 0; i < cur->p.nimages; i++) {
		const struct sc_image *im = &cur->p.images[i];

		if (sel->kind == SEL_IMAGE && live_sel_has(&cur->p, sel, im)) {
			*n = cur->m.images[i].ncalls;
			return cur->m.images[i].calls;
		}
	}
	*owned = grouped(cur, sel, VIEW_API, n);
	return *owned;
}

/* ---- rows ---------------------------------------------------------------- */

static enum live_sort row_sort;

static int cmp_row(const void *a, const void *b)
{
	const struct live_row *x = a, *y = b;
	int64_t kx = 0, ky = 0;

	switch (row_sort) {
	case LSORT_RATE: kx = x->dns; ky = y->dns; break;
	case LSORT_TOTAL: kx = x->c.total_ns; ky = y->c.total_ns; break;
	case LSORT_P99: kx = x->c.p99_ns; ky = y->c.p99_ns; break;
	case LSORT_COUNT: break;
	}
	if (kx != ky)
		return kx > ky ? -1 : 1;
	/* ties (and untimed profiles): by calls in the interval, then in all */
	if (x->dcount != y->dcount)
		return x->dcount > y->dcount ? -1 : 1;
	if (x->c.count != y->c.count)
		return x->c.count > y->c.count ? -1 : 1;
	return cmp_key(&x->c, &y->c);
}

void live_rows_build(struct live_rows *out, struct live_snap *cur, const struct live_snap *prev,
		     const struct live_sel *sel, enum live_view v, enum live_sort sort)
{
	struct sc_call *now, *then = NULL;
	size_t nnow, nthen = 0;
	int64_t start = 0;

	memset(out, 0, sizeof(*out));
	now = grouped(cur, sel, v, &nnow);
	if (prev)
		then = grouped((struct live_snap *)prev, sel, v, &nthen);
	key_view = v;
	out->rows = sc_xcalloc(nnow, sizeof(*out->rows));
	for (size_t i = 0, k = 0; i < nnow; i++) {
		struct live_row *r = &out->rows[out->n++];
		const struct sc_call *old;

		r->c = now[i];
		/* both sorted by key: walk them in step */
		while (k < nthen && cmp_key(&then[k], &now[i]) < 0)
			k++;
		old = k < nthen && !cmp_key(&then[k], &now[i]) ? &then[k] : NULL;
		r->dcount = old && old->count <= r->c.count ? r->c.count - old->count
			    : old ? 0 : r->c.count;
		r->dns = old ? r->c.total_ns - old->total_ns : r->c.total_ns;
		if (r->dns < 0)
			r->dns = 0;
		out->count += r->c.count;
		out->dcount += r->dcount;
		out->total_ns += r->c.total_ns;
		out->dns += r->dns;
	}
	for (size_t i = 0; i < cur->p.nimages; i++) {
		const struct sc_image *im = &cur->p.images[i];

		if (!live_sel_has(&cur->p, sel, im))
			continue;
		out->nimages++;
		out->nrunning += im->incomplete;
		if (!start || (int64_t)im->hdr.start_mono_ns < start)
			start = (int64_t)im->hdr.start_mono_ns;
	}
	out->elapsed_ns = start && cur->mono_ns > start ? cur->mono_ns - start : 0;
	out->dt_ns = prev ? cur->mono_ns - prev->mono_ns : out->elapsed_ns;
	row_sort = sort;
	sc_sort(out->rows, out->n, sizeof(*out->rows), cmp_row);
	free(now);
	free(then);
}

void live_rows_free(struct live_rows *r)
{
	free(r->rows);
	memset(r, 0, sizeof(*r));
}
