/*
 * report_stacks.c - the nesting tree (report.h) that the stack exports
 * (folded, speedscope, pprof) and the HTML flame graph draw.
 *
 * What the profile measured, per process: each (caller component, callee
 * component, API) row's count, inclusive and exclusive time; each
 * component's threads and their time. What it did not record: inside
 * which incoming API a component's calls out were made. So the tree is
 *
 *   process                         the process's threads' time
 *     component with threads        its threads' time
 *       callee:api                  a share of that call row
 *         callee's own calls out    a share of each of them
 *           ...
 *
 * and the placing of a component X's calls out is estimated: of X's calls
 * out, the part made inside incoming row r is r's nested time (inclusive
 * less exclusive) over all of X's calls out; what is left is made by X's
 * own threads, directly under X's component node. Each row c that X calls
 * is split with the same fractions among those places, and every place
 * where row r itself appears gets its share in proportion to its part of
 * r. A row is drawn at its part of its edge's time (edge_ns: without
 * the calls on the same edge nested in it, a comparator's strcmp inside
 * qsort, which are drawn as rows of their own beside it), so that no time
 * is drawn twice. So a row's pieces add up to that (up to rounding, and
 * except for what the guards below cut), and each place's children add up
 * to its nested time; which incoming API a call out really happened inside is
 * unknown, and the split is proportional to nested time, not measured.
 * Profiles without times (--timing=none) have no nested time: a component
 * with threads then keeps all its calls out under its own node, one
 * without splits them by its incoming rows' counts. A component without
 * threads whose calls out have no place at all (homeless_calls) gets a
 * node of its own under the main thread's component.
 *
 * Guards: calls within one component are not drawn (they are no edge of
 * the component view either); a row already on the path is not expanded
 * again (recursion through callbacks: the repeats' part of the rows
 * below stays in the parent's self time); at most MAX_DEPTH API levels and
 * MAX_NODES nodes (then `truncated`); pieces that round to no time and no
 * call are dropped. Whatever a guard cuts stays in its parent's self
 * time, so the time invariants hold regardless.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "report.h"

#define MAX_DEPTH 24     /* API levels: with the process, the component
			   and a homeless component, within STACK_MAX_PATH */
_Static_assert(MAX_DEPTH + 3 <= STACK_MAX_PATH, "STACK_MAX_PATH");
#define MAX_NODES 200000

struct builder {
	struct stack_tree *t;
	size_t cap;
	const struct sc_agg *a;
	const struct sc_image *im;
	size_t *callee_of;      /* per call row: index of its callee component */
	/* the rows component x calls other components through, in the
	 * agg's order: out_rows[out_start[x] .. out_start[x + 1]) */
	size_t *out_start, *out_rows;
	long double *share;     /* per call row r: the part of r's callee's
				   calls out made inside r */
	const struct sc_call *path[MAX_DEPTH + 1];
	int timed;              /* the profile has times */
};

static size_t comp_index(const struct sc_agg *a, const char *name)
{
	const struct sc_component *c = sc_agg_component(a, name);

	return c ? (size_t)(c - a->comp) : STACK_NONE;
}

static int cross(const struct sc_call *c)
{
	return strcmp(c->caller, c->callee) != 0;
}

/* A row's nested time but its own edge's calls nested in it (theirs: they
 * are rows of the caller's, drawn where the caller's are). */
static int64_t row_nested(const struct sc_call *c)
{
	int64_t n = c->edge_ns - c->self_ns;

	return n > 0 ? n : 0;
}

/* The per-row shares (see the top of the file) and, per component, the
 * part of its calls out left to its own threads (thr_share); homeless[i]
 * is set for a component without threads whose calls out have no place
 * among its incoming rows. */
static void shares(struct builder *b, long double *thr_share, char *homeless)
{
	const struct sc_agg *a = b->a;
	size_t i, k;

	for (k = 0; k < a->ncalls; k++)
		b->callee_of[k] = comp_index(a, a->calls[k].callee);
	for (i = 0; i < a->ncomp; i++) {
		b->out_start[i + 1] = b->out_start[i];
		for (k = 0; k < a->ncalls; k++)
			if (cross(&a->calls[k]) && !strcmp(a->calls[k].caller, a->comp[i].name))
				b->out_rows[b->out_start[i + 1]++] = k;
	}
	for (i = 0; i < a->ncomp; i++) {
		const struct sc_component *x = &a->comp[i];
		long double out = 0, nested = 0, in_count = 0, used = 0, den, own = 0, held = 1;

		for (k = 0; k < a->ncalls; k++) {
			const struct sc_call *c = &a->calls[k];

			if (c->function && !cross(c) && !strcmp(c->caller, x->name))
				own += (long double)c->self_ns;
			if (!cross(c))
				continue;
			if (!strcmp(c->caller, x->name))
				out += (long double)c->edge_ns;
			if (b->callee_of[k] == i) {
				nested += (long double)row_nested(c);
				in_count += (long double)c->count;
			}
		}
		/* Nested time is also the time of x's own patched functions
		 * called inside (timed, but no call out): a callback that
		 * calls them would seem to make x's calls out, the very call
		 * it is inside of among them. Their exclusive time is no
		 * call out, wherever they ran: the nested times hold the
		 * rest. (Without threads the model already scaled the nested
		 * times to the calls out: calibrate_nesting.) */
		if (x->nthreads && own > 0 && nested > 0) {
			held = nested > own ? (nested - own) / nested : 0;
			nested *= held;
		}
		/* with threads, calls out beyond the nested times are the
		 * threads' own; without, the nested times are all there is */
		den = x->nthreads ? (out > nested ? out : nested) : nested;
		for (k = 0; k < a->ncalls; k++) {
			const struct sc_call *c = &a->calls[k];

			if (b->callee_of[k] != i || !cross(c))
				continue;
			if (nested > 0)
				b->share[k] = (long double)row_nested(c) * held / den;
			else if (!b->timed && !x->nthreads && in_count > 0)
				b->share[k] = (long double)c->count / in_count;
			else
				b->share[k] = 0;
			used += b->share[k];
		}
		thr_share[i] = x->nthreads ? (used < 1 ? 1 - used : 0) : 0;
		homeless[i] = !x->nthreads && used <= 0 && out + (long double)x->out_calls > 0;
	}
}

static size_t add(struct builder *b, size_t parent, enum stack_kind kind, const char *name,
		  const char *component, const struct sc_call *call, int64_t ns, uint64_t count)
{
	struct stack_tree *t = b->t;
	struct stack_node *n;

	if (t->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 256;
		t->nodes = realloc(t->nodes, b->cap * sizeof(*t->nodes));
		if (!t->nodes) {
			fputs("scaler: out of memory\n", stderr);
			exit(1);
		}
	}
	n = &t->nodes[t->n];
	memset(n, 0, sizeof(*n));
	n->parent = parent;
	n->kind = kind;
	n->depth = parent == STACK_NONE ? 0 : t->nodes[parent].depth + 1;
	n->name = name;
	n->component = component;
	n->image = b->im;
	n->call = call;
	n->ns = ns;
	n->count = count;
	return t->n++;
}


/* A call's time and count scaled by its share, floored (the children's sum
 * stays within the parent's time) and held within their types (a damaged
 * profile's figures are anything). */
static int64_t scaled_ns(long double scale, int64_t ns)
{
	long double v = floorl(scale * (long double)ns);

	if (!(v == v) || v <= 0)
		return 0;
	return v >= 9.2e18L ? INT64_MAX : (int64_t)v;
}

static uint64_t scaled_count(long double scale, uint64_t count)
{
	long double v = roundl(scale * (long double)count);

	if (!(v == v) || v <= 0)
		return 0;
	return v >= 1.8e19L ? UINT64_MAX : (uint64_t)v;
}

/*
 * Add component x's calls out under node `at`, each row at `tscale` of
 * its time and `cscale` of its count (the part of the row this place
 * holds). The time scale is first cut so that the children cannot exceed
 * the node's own time (estimates can disagree); `level` is the API depth.
 */
static int on_path(const struct builder *b, const struct sc_call *c, unsigned level)
{
	unsigned j;

	for (j = 0; j < level; j++)
		if (b->path[j] == c)
			return 1;
	return 0;
}

static void expand(struct builder *b, size_t at, size_t x, long double tscale,
		   long double cscale, unsigned level)
{
	const struct sc_agg *a = b->a;
	long double kept = 0;
	size_t j;

	for (j = b->out_start[x]; j < b->out_start[x + 1]; j++)
		if (!on_path(b, &a->calls[b->out_rows[j]], level))
			kept += (long double)a->calls[b->out_rows[j]].edge_ns;
	if (kept * tscale > (long double)b->t->nodes[at].ns)
		tscale = (long double)b->t->nodes[at].ns / kept;
	for (j = b->out_start[x]; j < b->out_start[x + 1]; j++) {
		size_t k = b->out_rows[j], child;
		const struct sc_call *c = &a->calls[k];
		int64_t ns;
		uint64_t count;

		if (on_path(b, c, level))
			continue;
		if (b->t->n >= MAX_NODES) {
			b->t->truncated = 1;
			return;
		}
		ns = scaled_ns(tscale, c->edge_ns);
		count = scaled_count(cscale, c->count);
		if (ns <= 0 && count == 0)
			continue;
		child = add(b, at, STACK_API, c->api, c->callee, c, ns, count);
		if (level < MAX_DEPTH && b->callee_of[k] != STACK_NONE) {
			b->path[level] = c;
			expand(b, child, b->callee_of[k], tscale * b->share[k],
			       cscale * b->share[k], level + 1);
		}
	}
}

/* The component running the image's main thread (seq 0), else the first
 * with threads; STACK_NONE if none has. */
static size_t main_component(const struct sc_image *im, const struct sc_agg *a)
{
	size_t i, k;

	for (i = 0; i < im->nthreads; i++) {
		if (im->threads[i].seq != 0)
			continue;
		for (k = 0; k < im->nobjects; k++)
			if (im->objects[k].id == im->threads[i].obj)
				return comp_index(a, im->objects[k].name);
	}
	for (i = 0; i < a->ncomp; i++)
		if (a->comp[i].nthreads)
			return i;
	return STACK_NONE;
}

/*
 * The calls out of components whose calls out have no place (homeless:
 * no nested time in any call into them, as for calls made by a library's
 * constructor or destructor, run by the dynamic linker outside any API)
 * go under the main thread's component node `at`, each under a node of
 * its own component, within what at's children leave of its time.
 */
static void homeless_calls(struct builder *b, size_t at, const char *homeless)
{
	const struct sc_agg *a = b->a;
	size_t i, k;

	for (i = 0; i < a->ncomp; i++) {
		int64_t room = b->t->nodes[at].ns, out = 0;
		size_t node;

		if (!homeless[i] || b->t->n >= MAX_NODES)
			continue;
		for (k = at + 1; k < b->t->n; k++)
			if (b->t->nodes[k].parent == at)
				room = sc_sub_sat(room, b->t->nodes[k].ns);
		for (k = b->out_start[i]; k < b->out_start[i + 1]; k++)
			out = sc_add_sat(out, a->calls[b->out_rows[k]].edge_ns);
		node = add(b, at, STACK_COMPONENT, a->comp[i].name, a->comp[i].name, NULL,
			   out < room ? out : room > 0 ? room : 0, 0);
		expand(b, node, i, 1, 1, 0);
	}
}

static void build_image(struct builder *b, const struct sc_image *im, const struct sc_agg *a)
{
	long double *thr_share;
	char *homeless;
	const char *cmd = im->argc && im->argv[0][0] ? im->argv[0] : "?";
	const char *slash = strrchr(cmd, '/');
	size_t i, proc, main_comp = main_component(im, a);

	b->a = a;
	b->im = im;
	b->callee_of = report_xcalloc(a->ncalls, sizeof(*b->callee_of));
	b->share = report_xcalloc(a->ncalls, sizeof(*b->share));
	b->out_start = report_xcalloc(a->ncomp + 1, sizeof(*b->out_start));
	b->out_rows = report_xcalloc(a->ncalls, sizeof(*b->out_rows));
	thr_share = report_xcalloc(a->ncomp, sizeof(*thr_share));
	homeless = report_xcalloc(a->ncomp, sizeof(*homeless));
	shares(b, thr_share, homeless);
	proc = add(b, STACK_NONE, STACK_PROCESS, slash && slash[1] ? slash + 1 : cmd, NULL, NULL,
		   0, 0);
	for (i = 0; i < a->ncomp; i++) {
		const struct sc_component *x = &a->comp[i];
		size_t at;

		if (!x->nthreads)
			continue;
		if (b->t->n >= MAX_NODES) {
			b->t->truncated = 1;
			break;
		}
		at = add(b, proc, STACK_COMPONENT, x->name, x->name, NULL, x->threads_ns, 0);
		b->t->nodes[proc].ns = sc_add_sat(b->t->nodes[proc].ns, x->threads_ns);
		expand(b, at, i, thr_share[i], thr_share[i], 0);
		if (i == main_comp)
			homeless_calls(b, at, homeless);
	}
	free(homeless);
	free(thr_share);
	free(b->share);
	free(b->callee_of);
	free(b->out_start);
	free(b->out_rows);
}

static uint64_t hash_label(const char *s)
{
	uint64_t h = 1469598103934665603ull;   /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* One frame per distinct label (an open-addressing table of frame ids). */
static void assign_frames(struct stack_tree *t)
{
	size_t cap = 16, i;
	size_t *slot;
	char a[1024], b[1024];

	while (cap < 2 * t->n)
		cap *= 2;
	slot = report_xcalloc(cap, sizeof(*slot));
	t->frames = report_xcalloc(t->n, sizeof(*t->frames));
	for (i = 0; i < t->n; i++) {
		size_t h;

		report_stack_label(&t->nodes[i], a, sizeof(a));
		for (h = hash_label(a) & (cap - 1); slot[h]; h = (h + 1) & (cap - 1)) {
			report_stack_label(&t->nodes[t->frames[slot[h] - 1]], b, sizeof(b));
			if (!strcmp(a, b))
				break;
		}
		if (!slot[h]) {
			t->frames[t->nframes] = i;
			slot[h] = ++t->nframes;
		}
		t->nodes[i].frame = slot[h] - 1;
	}
	free(slot);
}

size_t report_stack_path(const struct stack_tree *t, size_t i, size_t *path)
{
	size_t d = t->nodes[i].depth + 1, k = d;

	for (; k > 0; i = t->nodes[i].parent)
		path[--k] = i;
	return d;
}

void report_stacks(const struct report *r, struct stack_tree *t)
{
	struct builder b;
	size_t i;

	memset(t, 0, sizeof(*t));
	memset(&b, 0, sizeof(b));
	b.t = t;
	b.timed = r->p->timing_mode != SC_TIMING_NONE;
	for (i = 0; i < r->p->nimages; i++)
		if (report_has_image(r, &r->p->images[i]))
			build_image(&b, &r->p->images[i],
				    sc_model_image(r->model, &r->p->images[i]));
	/* preorder: children follow their parent, so one backward pass sums
	 * each subtree into its parent */
	for (i = 0; i < t->n; i++) {
		t->nodes[i].self_ns = t->nodes[i].ns;
		t->nodes[i].total_count = t->nodes[i].count;
		t->nodes[i].end = i + 1;
	}
	for (i = t->n; i-- > 0;) {
		struct stack_node *n = &t->nodes[i];

		if (n->parent == STACK_NONE)
			continue;
		t->nodes[n->parent].self_ns = sc_sub_sat(t->nodes[n->parent].self_ns, n->ns);
		t->nodes[n->parent].total_count = sc_addu_sat(t->nodes[n->parent].total_count,
							      n->total_count);
		if (t->nodes[n->parent].end < n->end)
			t->nodes[n->parent].end = n->end;
	}
	assign_frames(t);
}

void report_stacks_free(struct stack_tree *t)
{
	free(t->nodes);
	free(t->frames);
	memset(t, 0, sizeof(*t));
}

uint64_t report_stack_self(const struct stack_node *n, enum report_weight w)
{
	if (w == WEIGHT_COUNT)
		return n->count;
	return n->self_ns > 0 ? (uint64_t)n->self_ns : 0;
}

uint64_t report_stack_total(const struct stack_node *n, enum report_weight w)
{
	if (w == WEIGHT_COUNT)
		return n->total_count;
	return n->ns > 0 ? (uint64_t)n->ns : 0;
}

void report_stack_label(const struct stack_node *n, char *buf, size_t len)
{
	switch (n->kind) {
	case STACK_PROCESS:
		if (n->image->gen)
			snprintf(buf, len, "%s[%u.%u]", n->name, n->image->pid, n->image->gen);
		else
			snprintf(buf, len, "%s[%u]", n->name, n->image->pid);
		break;
	case STACK_COMPONENT:
		snprintf(buf, len, "%s", n->name);
		break;
	case STACK_API:
		snprintf(buf, len, "%s:%s", n->component, n->name);
		break;
	}
}

void report_stack_title(const struct stack_node *n, char *buf, size_t len)
{
	char dem[1024];

	if (n->kind == STACK_API)
		snprintf(buf, len, "%s:%s", n->component, sc_demangle(n->name, dem, sizeof(dem)));
	else
		report_stack_label(n, buf, len);
}
