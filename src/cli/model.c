/*
 * model.c - the model of a profile (model.h): each image's entries and
 * threads aggregated into components, the calls between them and the
 * edges of the component view, with the self-time invariant and the
 * calibration of nested times; then the images' aggregates summed by name
 * into the whole profile's.
 *
 * Out of memory is fatal (message and exit(1)), as in the reader.
 */
#include "model.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "xalloc.h"

/* ---- aggregation ------------------------------------------------------ */

/* Input of agg_build: one call key contribution. */
struct call_in {
	const char *caller, *callee, *api;
	uint64_t count, timed;
	long double total_ns, self_ns, dup_ns;
	long double attr_ns, wait_ns;
	long double blocked_ns, preempt_ns, kernel_ns, self_preempt_ns;
	size_t nkfuncs, nokfuncs;
	const struct sc_call_kfunc *kfuncs, *okfuncs;  /* ns rounded already */
	int64_t max_ns;
	int wait, function, measured;
	long double hist[SC_HIST_BUCKETS];     /* by sc_hist_lo_ns */
	uint32_t nargs;
	const struct sc_argdist *args;         /* borrowed */
};

/* Input of agg_build: threads of one component (or, with n == 0, just a
 * path to use for a component of that name). */
struct thr_in {
	const char *name, *path;
	int64_t ns;
	int64_t attr_ns;
	int64_t reenter_ns, attr_reenter_ns;    /* an image's component's */
	uint32_t n;
};

/* Input of agg_build: one unseen entry (model.h, unseen_in_ns): `from`
 * entered `to` through pointers for ns (attr_ns attributed). */
struct unseen {
	const char *from, *to;
	int64_t ns, attr_ns;
};

static int cmp_call_key(const void *a, const void *b)
{
	const struct call_in *x = a, *y = b;
	int c = strcmp(x->caller, y->caller);

	if (!c)
		c = strcmp(x->callee, y->callee);
	if (!c)
		c = strcmp(x->api, y->api);
	return c;
}

static int cmp_call_out(const void *a, const void *b)
{
	const struct sc_call *x = a, *y = b;
	int c;

	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if ((c = strcmp(x->caller, y->caller)))
		return c;
	if ((c = strcmp(x->callee, y->callee)))
		return c;
	return strcmp(x->api, y->api);
}

static int cmp_comp(const void *a, const void *b)
{
	const struct sc_component *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmp_edge(const void *a, const void *b)
{
	const struct sc_edge *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	return strcmp(x->callee, y->callee);
}


static int cmp_kfunc_name(const void *a, const void *b)
{
	return strcmp(((const struct sc_call_kfunc *)a)->name, ((const struct sc_call_kfunc *)b)->name);
}

static int cmp_kfunc(const void *a, const void *b)
{
	const struct sc_call_kfunc *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

size_t sc_kfuncs_sum(struct sc_call_kfunc *v, size_t n)
{
	size_t m = 0;

	sc_sort(v, n, sizeof(*v), cmp_kfunc_name);
	for (size_t i = 0; i < n; i++) {
		if (m && !strcmp(v[m - 1].name, v[i].name))
			v[m - 1].ns = sc_add_sat(v[m - 1].ns, v[i].ns);
		else
			v[m++] = v[i];
	}
	sc_sort(v, m, sizeof(*v), cmp_kfunc);
	return m;
}

/* Kernel functions summed over the inputs of one call key, by name: on
 * CPU (kfuncs), or with off where it blocked (okfuncs). */
static void merge_kfuncs(struct sc_call *c, const struct call_in *in, size_t n, int off)
{
	struct sc_call_kfunc **v = off ? &c->okfuncs : &c->kfuncs;
	size_t total = 0, *nv = off ? &c->nokfuncs : &c->nkfuncs;

	for (size_t j = 0; j < n; j++)
		total += off ? in[j].nokfuncs : in[j].nkfuncs;
	if (!total)
		return;
	*v = sc_xcalloc(total, sizeof(**v));
	for (size_t j = 0; j < n; j++)
		for (size_t k = 0; k < (off ? in[j].nokfuncs : in[j].nkfuncs); k++)
			(*v)[(*nv)++] = off ? in[j].okfuncs[k] : in[j].kfuncs[k];
	*nv = sc_kfuncs_sum(*v, *nv);
}

/* Index of the component `name` in a, created if absent (so pointers
 * into a->comp are only valid until the next call). */
static size_t comp_get(struct sc_agg *a, size_t *cap, const char *name,
		       const struct thr_in *thr, size_t nthr)
{
	size_t i;
	struct sc_component *c;

	for (i = 0; i < a->ncomp; i++)
		if (strcmp(a->comp[i].name, name) == 0)
			return i;
	a->comp = sc_grow(a->comp, cap, a->ncomp + 1, sizeof(*a->comp));
	c = &a->comp[a->ncomp];
	memset(c, 0, sizeof(*c));
	c->name = name;
	c->path = "";
	for (i = 0; i < nthr; i++)
		if (strcmp(thr[i].name, name) == 0 && thr[i].path && thr[i].path[0]) {
			c->path = thr[i].path;
			break;
		}
	return a->ncomp++;
}

/* A call's nested time less that of the calls on its own edge: what its
 * callee called out, or others called inside it, as measured. */
static int64_t other_nested(const struct sc_call *x)
{
	int64_t n = x->edge_ns - x->self_ns;

	return n > 0 ? n : 0;
}

int64_t sc_call_on_edge(const struct sc_call *k, int64_t ns)
{
	if (k->edge_ns >= k->total_ns || k->total_ns <= 0)
		return ns;
	return sc_round_ns((long double)ns * (long double)k->edge_ns / (long double)k->total_ns);
}

/*
 * Exclusive times of the APIs of a component, made to agree with what the
 * component is known to spend in other components. Per API, nested time
 * (total - self) comes from timed calls that happened inside timed calls,
 * which under adaptive timing are few: unbiased, but noisy. The total a
 * component spends calling out (out_ns) is known well, and for a component
 * without threads of its own all of it happens inside calls into it. So
 * its APIs' nested times are scaled to add up to out_ns: the sampling only
 * decides how it is split among them. What it called out while entered
 * unseen (unseen_in_ns) happened inside no call into it and is left out.
 * The calls on an API's own edge nested in it (a comparator's strcmp in
 * qsort) are no calls out: their time is theirs, taken off as measured.
 *
 * An API's share can exceed its estimated total: a rare long call out
 * (one preempted for milliseconds) booked in full while the call into the
 * component around it went untimed is in out_ns, but in no estimate of
 * the APIs, and the scaling spreads it over those seen calling out. What
 * an API cannot hold goes to the others seen calling out, in proportion
 * to their room (total less share), so that the APIs' self times still
 * add up to the component's; only what none can hold is lost.
 */
static int calls_into(const struct sc_call *x, const struct sc_component *c)
{
	return strcmp(x->callee, c->name) == 0 && strcmp(x->caller, c->name) != 0;
}

static void calibrate_nesting(struct sc_agg *a)
{
	size_t i, k;

	for (i = 0; i < a->ncomp; i++) {
		const struct sc_component *c = &a->comp[i];
		long double raw = 0, f, excess = 0, room = 0, g;
		int64_t nested_all = sc_sub_sat(c->out_ns, c->unseen_in_ns);

		if (c->nthreads || nested_all <= 0)
			continue;
		for (k = 0; k < a->ncalls; k++)
			if (calls_into(&a->calls[k], c))
				raw += (long double)other_nested(&a->calls[k]);
		if (raw <= 0)
			continue;
		f = (long double)nested_all / raw;
		/* other_nested(x) * f against what x can hold, its edge time */
		for (k = 0; k < a->ncalls; k++) {
			const struct sc_call *x = &a->calls[k];
			long double share = (long double)other_nested(x) * f;

			if (!calls_into(x, c) || other_nested(x) == 0)
				continue;
			if (share > (long double)x->edge_ns)
				excess += share - (long double)x->edge_ns;
			else
				room += (long double)x->edge_ns - share;
		}
		g = room > 0 ? (excess < room ? excess / room : 1) : 0;
		for (k = 0; k < a->ncalls; k++) {
			struct sc_call *x = &a->calls[k];
			long double share = (long double)other_nested(x) * f;
			int64_t nested;

			if (!calls_into(x, c))
				continue;
			if (share < (long double)x->edge_ns && other_nested(x) > 0)
				share += ((long double)x->edge_ns - share) * g;
			nested = sc_round_ns(share) + (x->total_ns - x->edge_ns);
			if (nested > x->total_ns)
				nested = x->total_ns;
			x->self_ns = x->total_ns - nested;
		}
	}
}

/* Book an unseen entry: the edge from -> to marked unseen, the time on
 * both components. */
static void add_unseen(struct sc_component *from, struct sc_component *to,
		       int64_t ns, int64_t attr_ns)
{
	size_t e;

	for (e = 0; e < from->nout; e++)
		if (from->out[e].unseen && strcmp(from->out[e].callee, to->name) == 0)
			break;
	if (e == from->nout) {
		from->out = sc_xrealloc(from->out, (from->nout + 1) * sizeof(*from->out));
		memset(&from->out[e], 0, sizeof(from->out[e]));
		from->out[e].callee = to->name;
		from->out[e].unseen = 1;
		from->nout++;
	}
	from->out[e].ns = sc_add_sat(from->out[e].ns, ns);
	from->out[e].attr_ns = sc_add_sat(from->out[e].attr_ns, attr_ns);
	from->unseen_out_ns = sc_add_sat(from->unseen_out_ns, ns);
	from->attr_unseen_out_ns = sc_add_sat(from->attr_unseen_out_ns, attr_ns);
	to->unseen_in_ns = sc_add_sat(to->unseen_in_ns, ns);
	to->attr_unseen_in_ns = sc_add_sat(to->attr_unseen_in_ns, attr_ns);
}

/* A component's self time so far (agg_build's sums, unseen entries booked
 * up to now). */
static int64_t self_so_far(const struct sc_component *k)
{
	return sc_sub_sat(sc_add_sat(sc_add_sat(k->threads_ns, k->in_ns), k->unseen_in_ns),
			  sc_add_sat(k->out_ns, k->unseen_out_ns));
}

/* Whether o calls c through a seen edge: its caller of record. */
static int calls_seen(const struct sc_component *o, const struct sc_component *c)
{
	for (size_t e = 0; e < o->nout; e++)
		if (!o->out[e].unseen && strcmp(o->out[e].callee, c->name) == 0)
			return 1;
	return 0;
}

/*
 * find_unseen's candidates to pay for component i's unseen entries, into
 * order (returns how many): in pass 0 the hosts (host > 0), the most
 * hosted first; in pass 1 every component, its callers of record first
 * (seen calling it), then by depth, then the most self time first. Only
 * components with self time left can give; w holds it.
 */
static size_t unseen_order(const struct sc_agg *a, size_t i, int pass, const long double *host,
			   const size_t *depth, long double *w, size_t *order)
{
	size_t k, n = 0;
	unsigned char *caller = sc_xcalloc(a->ncomp, 1);

	for (k = 0; k < a->ncomp; k++) {
		int64_t self = self_so_far(&a->comp[k]);
		size_t at;

		if (k == i || self <= 0 || (pass == 0 && host[k] <= 0))
			continue;
		w[k] = (long double)self;
		caller[k] = (unsigned char)calls_seen(&a->comp[k], &a->comp[i]);
		for (at = n++; at > 0; at--) {
			size_t o = order[at - 1];

			if (pass == 0 ? host[o] >= host[k]
				      : caller[o] > caller[k] ||
					(caller[o] == caller[k] &&
					 (depth[o] < depth[k] || (depth[o] == depth[k] && w[o] >= w[k]))))
				break;
			order[at] = o;
		}
		order[at] = k;
	}
	free(caller);
	return n;
}

/*
 * Entries nothing saw, in one image. A component's calls out happen
 * inside its threads or inside calls into it: when they add up to more
 * than both (out_ns > threads_ns + in_ns), it was also entered where no
 * GOT slot or dlsym pointer leads (Python calls its extension modules'
 * functions through pointers; libevent calls memcached's handlers), and
 * the difference ran inside whatever code was in flight when it was so
 * entered: its caller of record, whose self time holds it. Evidence of
 * which one that was: a component whose incoming calls had more nested
 * calls inside them (each timed call's inclusive less exclusive time, as
 * measured, before calibrate_nesting) than it made itself hosted someone
 * else's calls (libevent's event_base_loop holds memcached's sendmsg).
 * Such hosts give first, up to that excess (and their self time). A
 * component that runs threads is taken as entered unseen only that far:
 * the rest of its deficit is no entry anyone made but estimated calls
 * out exceeding its threads' time, left for the estimator to answer for
 * (its self time below zero). For a component without threads the
 * model's nesting decides the rest: first its callers of record (seen
 * calling it: whoever loaded and initialised an extension module calls
 * it through pointers too), then the components that run threads (their
 * start routines' code), then those they call, then those these call (by
 * the seen calls), and among equals the one with the most self time,
 * hosts again with what they have left (a host's excess is noisy
 * evidence, no bound: python3, whose callbacks measured a little nested
 * time, still pays the rest of the _hashlib it entered, not ld.so's few
 * microseconds of self time). So python3 pays for the _hashlib it
 * entered, libpython for the modules it loaded (pyenv's python3, which
 * calls only Py_BytesMain, still has self time of its own: start-up,
 * preemptions), and never libcrypto, which runs inside _hashlib. Each
 * gives what its self time can hold, the next one the rest; what none
 * can hold is taken off the first. So the self times still add up to
 * the threads' time, none goes below zero where another could give, and
 * no component's calls out exceed its time. Attributed times are split
 * the same way. Called before the components' totals are
 * made (attr_total_ns: the threads' and calls' in, attr_self_ns: minus
 * the calls out).
 */
static void find_unseen(struct sc_agg *a)
{
	size_t i, k, n, first, ncomp = a->ncomp;
	int pass;
	long double *w = sc_xcalloc(ncomp ? ncomp : 1, sizeof(*w));
	long double *host = sc_xcalloc(ncomp ? ncomp : 1, sizeof(*host));
	size_t *order = sc_xcalloc(ncomp ? ncomp : 1, sizeof(*order));
	size_t *depth = sc_xcalloc(ncomp ? ncomp : 1, sizeof(*depth));
	int more = 1;

	/* depth: calls from a component running threads, by the seen edges */
	for (k = 0; k < ncomp; k++)
		depth[k] = a->comp[k].nthreads ? 0 : SIZE_MAX;
	while (more) {
		more = 0;
		for (k = 0; k < ncomp; k++) {
			const struct sc_component *o = &a->comp[k];

			if (depth[k] == SIZE_MAX)
				continue;
			for (size_t e = 0; e < o->nout; e++) {
				const struct sc_component *t = sc_agg_component(a, o->out[e].callee);
				size_t ti = (size_t)(t - a->comp);

				if (t && !o->out[e].unseen && depth[ti] > depth[k] + 1) {
					depth[ti] = depth[k] + 1;
					more = 1;
				}
			}
		}
	}
	/* host: measured nested time beyond the component's own calls out */
	for (i = 0; i < a->ncalls; i++) {
		const struct sc_call *x = &a->calls[i];
		const struct sc_component *t;

		if (strcmp(x->caller, x->callee) && (t = sc_agg_component(a, x->callee)))
			host[t - a->comp] += (long double)(x->total_ns - x->self_ns);
	}
	for (k = 0; k < ncomp; k++)
		host[k] -= (long double)a->comp[k].out_ns;

	for (i = 0; i < ncomp; i++) {
		struct sc_component *c = &a->comp[i];
		int64_t d = sc_sub_sat(c->out_ns, sc_add_sat(c->threads_ns, c->in_ns)), ad, left, aleft;

		/* attr_self_ns holds minus the calls out, attr_total_ns the
		 * threads' and the calls in */
		ad = sc_sub_sat(-c->attr_self_ns, c->attr_total_ns);
		if (d <= 0)
			continue;
		if (ad < 0)
			ad = 0;
		left = d;
		aleft = ad;
		first = ncomp;
		for (pass = 0; pass < 2 && left > 0; pass++) {
			/* a component running threads: where hosted only */
			if (pass == 1 && c->nthreads)
				break;
			n = unseen_order(a, i, pass, host, depth, w, order);
			if (pass == 1 && n > 0)
				first = order[0];
			for (k = 0; k < n && left > 0; k++) {
				struct sc_component *o = &a->comp[order[k]];
				int64_t ns = self_so_far(o), ans;

				if (pass == 0 && (long double)ns > host[order[k]])
					ns = sc_round_ns(host[order[k]]);
				if (ns > left)
					ns = left;
				if (ns <= 0)
					continue;
				ans = left == ns ? aleft : sc_round_ns((long double)ad * (long double)ns /
									(long double)d);
				if (ans > aleft)
					ans = aleft;
				left -= ns;
				aleft -= ans;
				if (host[order[k]] > 0)
					host[order[k]] -= (long double)ns;
				add_unseen(o, c, ns, ans);
			}
		}
		/* none could hold it: the first pays. Only where a sum
		 * saturated: the self times add up to the threads' time, so
		 * the others' above zero hold at least c's deficit and pass 1,
		 * which takes them all, leaves nothing */
		if (left > 0 && !c->nthreads && first < ncomp)
			add_unseen(&a->comp[first], c, left, aleft);
	}
	free(depth);
	free(order);
	free(host);
	free(w);
}

/*
 * A component's time on the stack and its self time, from the sums
 * agg_build made. Calls into a component made on its own threads
 * (callbacks: python3 -> _json -> python3) are already inside its
 * threads' time (reenter_ns), and no component is on the stack longer
 * than all threads together (a library re-entered through a callback
 * would otherwise count twice where its process has threads of several
 * components). The self time needs no such care: a re-entry is in once
 * and out once.
 */
static void comp_total(struct sc_component *c, const struct sc_agg *a)
{
	c->self_ns = sc_sub_sat(sc_add_sat(sc_add_sat(c->threads_ns, c->in_ns), c->unseen_in_ns),
				sc_add_sat(c->out_ns, c->unseen_out_ns));
	/* attr_self_ns holds minus the attributed time of calls out */
	c->attr_self_ns = sc_sub_sat(sc_add_sat(sc_add_sat(c->attr_self_ns, c->attr_total_ns),
						c->attr_unseen_in_ns), c->attr_unseen_out_ns);
	c->total_ns = sc_add_sat(sc_sub_sat(sc_add_sat(c->threads_ns, c->in_ns), c->reenter_ns),
				 c->unseen_in_ns);
	if (c->total_ns > a->threads_ns)
		c->total_ns = a->threads_ns;
	c->attr_total_ns = sc_add_sat(sc_sub_sat(c->attr_total_ns, c->attr_reenter_ns),
				      c->attr_unseen_in_ns);
	if (c->attr_total_ns > a->attr_ns)
		c->attr_total_ns = a->attr_ns;
}

/* In an image where one component runs every thread, every call into it
 * re-enters its threads' time. Returns that component's index (ncomp if
 * none). */
static size_t find_reentry(struct sc_agg *a)
{
	size_t i, owner = a->ncomp;

	for (i = 0; i < a->ncomp; i++)
		if (a->comp[i].nthreads) {
			if (owner < a->ncomp)
				return a->ncomp;
			owner = i;
		}
	if (owner == a->ncomp)
		return owner;
	a->comp[owner].reenter_ns = a->comp[owner].in_ns;
	a->comp[owner].attr_reenter_ns = sc_sub_sat(a->comp[owner].attr_total_ns,
						    a->comp[owner].attr_threads_ns);
	return owner;
}

/*
 * Calls into a component made while it is already on the stack through
 * another edge (python3 -> libpython -> _json -> libpython: the inner
 * calls' time is inside the outer ones') are in its total once: their
 * part of in_ns becomes reenter_ns, as a callback into the one component
 * running threads does (find_reentry, which keeps that case). Which calls
 * those are, the sums do not say; the edges do where a component Y runs
 * only inside B: Y has no threads and is entered (seen or unseen edges
 * Z -> Y) only from B or from such components (_json, entered from
 * libpython only, through pointers: an unseen edge). Then all of Y's calls
 * into B are nested in B. A share of "only" is not enough: in a cycle
 * B -> C -> B, C's calls into B make part of B's time look inside C, yet
 * B's calls into C came from outside it (test twoedge). So s(Y), the share
 * of Y's time inside B, counts from INSIDE_MIN up and is 0 below: no
 * re-entry is taken where the edges cannot tell it, and a component's
 * total may then still count one twice (held to the threads' time).
 * Same-edge nesting is not counted here: edge_ns has it out already.
 * Needs the unseen edges (after find_unseen).
 */
#define INSIDE_MIN 0.99L
static void find_nested(struct sc_agg *a, size_t owner)
{
	size_t n = a->ncomp, b, y, e, round;
	long double *s = sc_xcalloc(n ? n : 1, sizeof(*s)), *tot = sc_xcalloc(n ? n : 1, sizeof(*tot));
	size_t *to = NULL, ne = 0;

	/* each edge's callee, once */
	for (y = 0; y < n; y++)
		ne += a->comp[y].nout;
	to = sc_xcalloc(ne ? ne : 1, sizeof(*to));
	for (ne = 0, y = 0; y < n; y++) {
		const struct sc_component *c = &a->comp[y];

		tot[y] = (long double)c->threads_ns + (long double)c->in_ns +
			 (long double)c->unseen_in_ns;
		for (e = 0; e < c->nout; e++) {
			const struct sc_component *t = sc_agg_component(a, c->out[e].callee);

			to[ne++] = t ? (size_t)(t - a->comp) : n;
		}
	}
	for (b = 0; b < n; b++) {
		struct sc_component *B = &a->comp[b];
		long double re = 0, are = 0;

		if (b == owner || B->in_ns <= 0)
			continue;
		memset(s, 0, n * sizeof(*s));
		s[b] = 1;
		/* a fixed point: s only rises from round to round (a share is
		 * a mean of others', weights adding up to at most 1) */
		for (round = 0; round < n + 1; round++) {
			long double moved = 0;

			for (y = 0; y < n; y++) {
				long double in = 0;
				size_t k = 0;

				if (y == b || tot[y] <= 0)
					continue;
				for (size_t z = 0; z < n; z++)
					for (e = 0; e < a->comp[z].nout; e++, k++)
						if (to[k] == y && z != y && s[z] > 0)
							in += (long double)a->comp[z].out[e].ns * s[z];
				in /= tot[y];
				if (in > 1)
					in = 1;
				if (in < INSIDE_MIN)
					in = 0;
				if (in - s[y] > moved)
					moved = in - s[y];
				s[y] = in;
			}
			if (moved < 1e-9L)
				break;
		}
		for (y = 0; y < n; y++) {
			const struct sc_component *c = &a->comp[y];

			for (size_t k = 0; k < c->nout; k++)
				if (y != b && s[y] > 0 && strcmp(c->out[k].callee, B->name) == 0) {
					re += (long double)c->out[k].ns * s[y];
					are += (long double)c->out[k].attr_ns * s[y];
				}
		}
		B->reenter_ns = sc_round_ns(re);
		B->attr_reenter_ns = sc_round_ns(are);
	}
	free(to);
	free(tot);
	free(s);
}

/*
 * An API's calls nested in calls of the same API on the same edge (a
 * signal handler's read inside the read it interrupted, a comparator's
 * qsort inside qsort) are all in its total, and only once in its edge's
 * time, which holds all of that API's: so its total is at most its
 * edge's time, and held to it (each part of it with it).
 */
static void clamp_to_edges(struct sc_agg *a, size_t *capcomp, const struct thr_in *thr,
			   size_t nthr)
{
	for (size_t i = 0; i < a->ncalls; i++) {
		struct sc_call *k = &a->calls[i];
		const struct sc_component *from = &a->comp[comp_get(a, capcomp, k->caller, thr, nthr)];
		int64_t lim = -1;

		for (size_t e = 0; e < from->nout; e++)
			if (!from->out[e].unseen && strcmp(from->out[e].callee, k->callee) == 0)
				lim = from->out[e].ns;
		if (lim < 0 || k->total_ns <= lim)
			continue;
		k->total_ns = lim;
		if (k->edge_ns > lim)
			k->edge_ns = lim;
		if (k->self_ns > lim)
			k->self_ns = lim;
		if (k->attr_ns > lim)
			k->attr_ns = lim;
		if (k->wait_ns > lim)
			k->wait_ns = lim;
	}
}

/*
 * Build an aggregate from call contributions (sorted and merged here; the
 * array is reordered) and thread contributions.
 *
 * The self-time invariant. For every component C
 *     total(C) = threads(C) + in(C)     self(C) = total(C) - out(C)
 * where in/out only count calls between different components. Every such
 * call is in() of exactly one component and out() of exactly one other,
 * so summing over all components the in and out terms cancel:
 *     sum self(C) = sum threads(C) = time of all threads.
 * To make that hold exactly, the ns of each call key are rounded once,
 * here, and everything else is integer sums of those. Entries nothing saw
 * (find_unseen) add the same time to one component's in and another's
 * out, and keep the sums. self(C) can come
 * out negative when estimated call times exceed the measured thread time;
 * it is kept as is (display code clamps) so the invariant survives.
 * Every sum saturates (estimate.h): made-up counters near 2^64 give the
 * largest times, never wrapped ones, and the invariant holds while none
 * saturates.
 *
 * The unseen entries are found here when `find` (an image), else the
 * nu given in u are booked (the images' own, summed).
 */
static void agg_build(struct sc_agg *a, struct call_in *in, size_t nin,
		      const struct thr_in *thr, size_t nthr,
		      const struct unseen *u, size_t nu, int find)
{
	size_t i, j, capcomp = 0;

	memset(a, 0, sizeof(*a));
	sc_sort(in, nin, sizeof(*in), cmp_call_key);
	a->calls = sc_xcalloc(nin, sizeof(*a->calls));
	for (i = 0; i < nin; i = j) {
		struct sc_call *c;
		long double tot = 0, self = 0, dup = 0, attr = 0, waitns = 0;
		long double blocked = 0, preempt = 0, kernel = 0, self_preempt = 0;
		long double hist[SC_HIST_BUCKETS] = {0};
		uint64_t count = 0, timed = 0;
		int64_t maxns = 0;
		int wait = 0, function = 0, measured = 0, b;

		for (j = i; j < nin && cmp_call_key(&in[i], &in[j]) == 0; j++) {
			wait |= in[j].wait;
			if (in[j].measured > measured)
				measured = in[j].measured;
			blocked += in[j].blocked_ns;
			preempt += in[j].preempt_ns;
			self_preempt += in[j].self_preempt_ns;
			kernel += in[j].kernel_ns;
			function |= in[j].function;
			tot += in[j].total_ns;
			self += in[j].self_ns;
			dup += in[j].dup_ns;
			attr += in[j].attr_ns;
			waitns += in[j].wait_ns;
			count = sc_addu_sat(count, in[j].count);
			timed = sc_addu_sat(timed, in[j].timed);
			if (in[j].max_ns > maxns)
				maxns = in[j].max_ns;
			for (b = 0; b < SC_HIST_BUCKETS; b++)
				hist[b] += in[j].hist[b];
		}
		if (count == 0)
			continue;
		c = &a->calls[a->ncalls++];
		for (size_t k = i; k < j; k++)
			sc_argdist_merge(&c->args, &c->nargs, in[k].args, in[k].nargs);
		c->caller = in[i].caller;
		c->callee = in[i].callee;
		c->api = in[i].api;
		c->count = count;
		c->timed = timed;
		c->wait = wait;
		c->function = function;
		c->total_ns = sc_round_ns(tot);
		c->self_ns = sc_round_ns(self);
		if (c->self_ns > c->total_ns)
			c->self_ns = c->total_ns;
		c->edge_ns = sc_sub_sat(c->total_ns, sc_round_ns(dup));
		if (c->edge_ns < 0)
			c->edge_ns = 0;
		c->attr_ns = sc_round_ns(attr);
		if (c->attr_ns > c->total_ns)
			c->attr_ns = c->total_ns;
		c->wait_ns = sc_round_ns(waitns);
		if (c->wait_ns > c->total_ns)
			c->wait_ns = c->total_ns;
		c->measured = measured;
		c->blocked_ns = sc_round_ns(blocked);
		c->preempt_ns = sc_round_ns(preempt);
		c->self_preempt_ns = sc_round_ns(self_preempt);
		if (c->self_preempt_ns > c->self_ns)
			c->self_preempt_ns = c->self_ns;
		c->kernel_ns = sc_round_ns(kernel);
		merge_kfuncs(c, in + i, j - i, 0);
		merge_kfuncs(c, in + i, j - i, 1);
		c->max_ns = maxns;
		for (b = 0; b < SC_HIST_BUCKETS; b++)
			c->hist[b] = (uint64_t)llroundl(hist[b]);
		sc_latency_quantiles(c->hist, count, c->total_ns, maxns, &c->p50_ns, &c->p99_ns);
		a->calls_count = sc_addu_sat(a->calls_count, count);
	}
	sc_sort(a->calls, a->ncalls, sizeof(*a->calls), cmp_call_out);

	for (i = 0; i < nthr; i++) {
		struct sc_component *c;
		size_t ci;

		/* an image's component without threads may still bring its
		 * re-entries (find_nested) */
		if (thr[i].n == 0 && !thr[i].reenter_ns && !thr[i].attr_reenter_ns)
			continue;
		ci = comp_get(a, &capcomp, thr[i].name, thr, nthr);
		c = &a->comp[ci];
		c->nthreads = c->nthreads + thr[i].n < c->nthreads ? UINT32_MAX
			      : c->nthreads + thr[i].n;
		c->threads_ns = sc_add_sat(c->threads_ns, thr[i].ns);
		c->attr_total_ns = sc_add_sat(c->attr_total_ns, thr[i].attr_ns);
		c->attr_threads_ns = sc_add_sat(c->attr_threads_ns, thr[i].attr_ns);
		c->reenter_ns = sc_add_sat(c->reenter_ns, thr[i].reenter_ns);
		c->attr_reenter_ns = sc_add_sat(c->attr_reenter_ns, thr[i].attr_reenter_ns);
		a->threads_ns = sc_add_sat(a->threads_ns, thr[i].ns);
		a->attr_ns = sc_add_sat(a->attr_ns, thr[i].attr_ns);
	}
	for (i = 0; i < a->ncalls; i++) {
		const struct sc_call *k = &a->calls[i];
		struct sc_component *from, *to;
		size_t e, fi, ti;

		fi = comp_get(a, &capcomp, k->caller, thr, nthr);
		ti = comp_get(a, &capcomp, k->callee, thr, nthr);
		from = &a->comp[fi];
		to = &a->comp[ti];
		if (from == to)
			continue;       /* calls within a component are not edges */
		/* each call's part of the edge (edge_ns): a call nested in one
		 * on the same edge is in once */
		to->in_ns = sc_add_sat(to->in_ns, k->edge_ns);
		to->in_calls = sc_addu_sat(to->in_calls, k->count);
		from->out_ns = sc_add_sat(from->out_ns, k->edge_ns);
		from->out_calls = sc_addu_sat(from->out_calls, k->count);
		from->wait_ns = sc_add_sat(from->wait_ns, sc_call_on_edge(k, k->wait_ns));
		from->preempt_ns = sc_add_sat(from->preempt_ns, sc_call_on_edge(k, k->preempt_ns));
		/* the same arithmetic on the 1/k-weighted times; a Wait is no
		 * part of the critical time (its thread was not running) */
		if (!k->wait) {
			to->attr_total_ns = sc_add_sat(to->attr_total_ns, sc_call_on_edge(k, k->attr_ns));
			from->attr_self_ns = sc_sub_sat(from->attr_self_ns, sc_call_on_edge(k, k->attr_ns));
		}
		for (e = 0; e < from->nout; e++)
			if (strcmp(from->out[e].callee, k->callee) == 0)
				break;
		if (e == from->nout) {
			from->out = sc_xrealloc(from->out, (from->nout + 1) * sizeof(*from->out));
			memset(&from->out[e], 0, sizeof(from->out[e]));
			from->out[e].callee = k->callee;
			from->nout++;
		}
		from->out[e].ns = sc_add_sat(from->out[e].ns, k->edge_ns);
		from->out[e].calls = sc_addu_sat(from->out[e].calls, k->count);
		from->out[e].attr_ns = sc_add_sat(from->out[e].attr_ns, sc_call_on_edge(k, k->attr_ns));
		from->out[e].wait_ns = sc_add_sat(from->out[e].wait_ns, sc_call_on_edge(k, k->wait_ns));
	}
	clamp_to_edges(a, &capcomp, thr, nthr);
	if (find) {
		size_t owner = find_reentry(a);

		find_unseen(a);
		find_nested(a, owner);
	}
	for (i = 0; i < nu; i++) {
		size_t fi = comp_get(a, &capcomp, u[i].from, thr, nthr);
		size_t ti = comp_get(a, &capcomp, u[i].to, thr, nthr);

		add_unseen(&a->comp[fi], &a->comp[ti], u[i].ns, u[i].attr_ns);
	}
	calibrate_nesting(a);
	for (i = 0; i < a->ncalls; i++) {
		const struct sc_call *k = &a->calls[i];
		struct sc_component *to;

		if (strcmp(k->caller, k->callee) == 0)
			continue;
		to = &a->comp[comp_get(a, &capcomp, k->callee, thr, nthr)];
		to->self_wait_ns = sc_add_sat(to->self_wait_ns,
					      k->wait_ns < k->self_ns ? k->wait_ns : k->self_ns);
	}
	for (i = 0; i < a->ncomp; i++) {
		struct sc_component *c = &a->comp[i];

		comp_total(c, a);
		sc_sort(c->out, c->nout, sizeof(*c->out), cmp_edge);
	}
	sc_sort(a->comp, a->ncomp, sizeof(*a->comp), cmp_comp);
}

static void agg_free(struct sc_agg *a)
{
	size_t i;

	for (i = 0; i < a->ncomp; i++)
		free(a->comp[i].out);
	free(a->comp);
	for (i = 0; i < a->ncalls; i++) {
		free(a->calls[i].args);
		free(a->calls[i].kfuncs);
		free(a->calls[i].okfuncs);
	}
	free(a->calls);
	memset(a, 0, sizeof(*a));
}

const struct sc_component *sc_agg_component(const struct sc_agg *a, const char *name)
{
	size_t i;

	for (i = 0; i < a->ncomp; i++)
		if (strcmp(a->comp[i].name, name) == 0)
			return &a->comp[i];
	return NULL;
}

/* An entry's n kernel functions with their ns (NULL for none). */
static struct sc_call_kfunc *kfuncs_ns(const struct sc_image *im, const struct sc_kfunc *f,
				       size_t n)
{
	struct sc_call_kfunc *v = n ? sc_xcalloc(n, sizeof(*v)) : NULL;

	for (size_t k = 0; k < n; k++)
		v[k] = (struct sc_call_kfunc){f[k].name,
					     sc_round_ns(sc_ticks_to_ns(im->tsc_hz, f[k].ticks))};
	return v;
}

/* One image's aggregate: its threads by the component each belongs to,
 * its entries as call contributions. */
static void image_agg(struct sc_agg *a, struct sc_profile *p, const struct sc_image *im)
{
	struct sc_call_kfunc **kf;
	struct call_in *in;
	struct thr_in *thr;
	size_t i, nin = 0;

	thr = sc_xcalloc(im->nthreads + im->nobjects, sizeof(*thr));
	for (i = 0; i < im->nthreads; i++) {
		const struct sc_thread *t = &im->threads[i];
		const struct sc_object *o = sc_image_object(im, t->obj);

		thr[i].name = sc_object_name(p, im, t->obj);
		thr[i].path = o ? o->path : "";
		thr[i].ns = t->wall_ns;
		thr[i].attr_ns = t->attr_ns;
		thr[i].n = 1;
	}
	for (i = 0; i < im->nobjects; i++) {
		thr[im->nthreads + i].name = im->objects[i].name;
		thr[im->nthreads + i].path = im->objects[i].path;
	}

	/* one call contribution per entry with calls; its kernel functions
	 * as ns (each entry's list, kept until agg_build has merged them) */
	in = sc_xcalloc(im->nentries, sizeof(*in));
	kf = sc_xcalloc(2 * im->nentries, sizeof(*kf));
	for (i = 0; i < im->nentries; i++) {
		const struct sc_entry *e = &im->entries[i];

		if (e->count == 0)
			continue;
		in[nin].measured = im->wait_source == SC_WAIT_NAMES ||
				   im->timing_mode == SC_TIMING_NONE ? 0
				   : im->kernel_sampled ? 2 : 1;
		if (in[nin].measured) {
			in[nin].blocked_ns = sc_ticks_to_ns(im->tsc_hz, e->blocked_ticks);
			in[nin].preempt_ns = sc_ticks_to_ns(im->tsc_hz, e->preempt_ticks);
			in[nin].self_preempt_ns = sc_ticks_to_ns(im->tsc_hz, e->self_preempt_ticks);
			in[nin].kernel_ns = sc_ticks_to_ns(im->tsc_hz, e->kernel_ticks);
			in[nin].kfuncs = kf[2 * i] = kfuncs_ns(im, e->kfuncs, e->nkfuncs);
			in[nin].nkfuncs = e->nkfuncs;
			in[nin].okfuncs = kf[2 * i + 1] = kfuncs_ns(im, e->okfuncs, e->nokfuncs);
			in[nin].nokfuncs = e->nokfuncs;
		}
		in[nin].caller = sc_object_name(p, im, e->caller);
		in[nin].callee = sc_object_name(p, im, e->callee);
		in[nin].api = e->api;
		in[nin].count = e->count;
		in[nin].timed = im->timing_mode == SC_TIMING_NONE ? 0 : e->timed;
		in[nin].total_ns = e->total_ns;
		in[nin].self_ns = e->self_ns;
		in[nin].dup_ns = e->dup_ns;
		in[nin].wait = (e->flags & SC_ENT_WAIT) != 0;
		in[nin].function = (e->flags & SC_ENT_FUNC) != 0;
		in[nin].nargs = e->nargs;
		in[nin].args = e->args;
		if (im->timing_mode != SC_TIMING_NONE) {
			in[nin].wait_ns = sc_ticks_to_ns(im->tsc_hz, e->block_ticks);
			/* a Wait is no part of the critical time */
			in[nin].attr_ns = in[nin].wait ? 0 : sc_ticks_to_ns(im->tsc_hz, e->attr_ticks);
			in[nin].max_ns = sc_round_ns(sc_ticks_to_ns(im->tsc_hz,
								    (long double)e->max_ticks));
			sc_hist_to_ns(im->tsc_hz, e->hist, in[nin].hist);
		}
		nin++;
	}
	agg_build(a, in, nin, thr, im->nthreads + im->nobjects, NULL, 0, 1);
	a->wait_source = im->wait_source;
	a->kernel_sampled = im->kernel_sampled;
	for (i = 0; i < 2 * im->nentries; i++)
		free(kf[i]);
	free(kf);
	free(in);
	free(thr);
}

/* The whole profile: the images' aggregates summed by name. */
static void profile_agg(struct sc_agg *a, const struct sc_agg *img, size_t nimg)
{
	size_t i, j, nin = 0, nthr = 0, capin = 0, capthr = 0;
	int k;
	struct call_in *in = NULL;
	struct thr_in *thr = NULL;
	struct unseen *u = NULL;
	size_t nu = 0, capu = 0;

	for (i = 0; i < nimg; i++) {
		for (j = 0; j < img[i].ncalls; j++) {
			const struct sc_call *c = &img[i].calls[j];

			in = sc_grow(in, &capin, nin + 1, sizeof(*in));
			in[nin].caller = c->caller;
			in[nin].callee = c->callee;
			in[nin].api = c->api;
			in[nin].count = c->count;
			in[nin].timed = c->timed;
			in[nin].total_ns = (long double)c->total_ns;
			in[nin].self_ns = (long double)c->self_ns;
			in[nin].dup_ns = (long double)(c->total_ns - c->edge_ns);
			in[nin].wait = c->wait;
			in[nin].function = c->function;
			in[nin].attr_ns = (long double)c->attr_ns;
			in[nin].wait_ns = (long double)c->wait_ns;
			in[nin].measured = c->measured;
			in[nin].blocked_ns = (long double)c->blocked_ns;
			in[nin].preempt_ns = (long double)c->preempt_ns;
			in[nin].self_preempt_ns = (long double)c->self_preempt_ns;
			in[nin].kernel_ns = (long double)c->kernel_ns;
			in[nin].kfuncs = c->kfuncs;
			in[nin].nkfuncs = c->nkfuncs;
			in[nin].okfuncs = c->okfuncs;
			in[nin].nokfuncs = c->nokfuncs;
			in[nin].max_ns = c->max_ns;
			for (k = 0; k < SC_HIST_BUCKETS; k++)
				in[nin].hist[k] = (long double)c->hist[k];
			in[nin].nargs = c->nargs;
			in[nin].args = c->args;
			nin++;
		}
		for (j = 0; j < img[i].ncomp; j++) {
			const struct sc_component *c = &img[i].comp[j];

			thr = sc_grow(thr, &capthr, nthr + 1, sizeof(*thr));
			thr[nthr].name = c->name;
			thr[nthr].path = c->path;
			thr[nthr].ns = c->threads_ns;
			thr[nthr].attr_ns = c->attr_threads_ns;
			thr[nthr].n = c->nthreads;
			thr[nthr].reenter_ns = c->reenter_ns;
			thr[nthr].attr_reenter_ns = c->attr_reenter_ns;
			nthr++;
			for (size_t e = 0; e < c->nout; e++) {
				if (!c->out[e].unseen)
					continue;
				u = sc_grow(u, &capu, nu + 1, sizeof(*u));
				u[nu].from = c->name;
				u[nu].to = c->out[e].callee;
				u[nu].ns = c->out[e].ns;
				u[nu].attr_ns = c->out[e].attr_ns;
				nu++;
			}
		}
	}
	agg_build(a, in, nin, thr, nthr, u, nu, 0);
	for (i = 0; i < nimg; i++) {
		a->kernel_sampled |= img[i].kernel_sampled;
		if (i == 0)
			a->wait_source = img[i].wait_source;
		else if (a->wait_source != img[i].wait_source)
			a->wait_source = SC_WAIT_MIXED;
	}
	free(in);
	free(thr);
	free(u);
}

/* ---- entry points ----------------------------------------------------- */

/* The calls' names for people, once every aggregate is keyed by symbol. */
static void name_calls(struct sc_agg *a, struct sc_profile *p)
{
	char buf[1024];

	for (size_t i = 0; i < a->ncalls; i++) {
		struct sc_call *c = &a->calls[i];
		const char *d = sc_demangle(c->api, buf, sizeof(buf));

		c->symbol = c->api;
		if (d != c->api)
			c->api = sc_profile_strdup(p, d);
	}
}

void sc_model_build(struct sc_model *m, struct sc_profile *p)
{
	size_t i;

	memset(m, 0, sizeof(*m));
	m->p = p;
	sc_model_name_routines(p);
	m->nimages = p->nimages;
	m->images = sc_xcalloc(p->nimages, sizeof(*m->images));
	for (i = 0; i < p->nimages; i++)
		image_agg(&m->images[i], p, &p->images[i]);
	profile_agg(&m->agg, m->images, m->nimages);
	for (i = 0; i < p->nimages; i++)
		name_calls(&m->images[i], p);
	name_calls(&m->agg, p);
}

void sc_model_free(struct sc_model *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nimages; i++)
		agg_free(&m->images[i]);
	free(m->images);
	agg_free(&m->agg);
	memset(m, 0, sizeof(*m));
}

const struct sc_agg *sc_model_image(const struct sc_model *m, const struct sc_image *im)
{
	return &m->images[im - m->p->images];
}
