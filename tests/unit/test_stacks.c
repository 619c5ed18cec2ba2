/*
 * test_stacks.c - unit test of the nesting tree (src/cli/report_stacks.c)
 * on profiles built in memory: a chain whose placing is certain (exact
 * figures), a callback cycle (the invariants and the cycle guard), and a
 * profile without times (counts placed by incoming counts).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "report.h"
#include "check.h"

#define MS 1000000LL

static struct sc_image image;
static struct sc_profile prof;
static struct sc_agg image_agg;
static struct sc_model model;
static const char *argv0[] = { "/usr/bin/app", "x" };

static void load(struct sc_component *comp, size_t ncomp, struct sc_call *calls, size_t ncalls,
		 int64_t threads_ns, uint32_t timing)
{
	memset(&image, 0, sizeof(image));
	image.pid = 7;
	image.argc = 2;
	image.argv = argv0;
	memset(&image_agg, 0, sizeof(image_agg));
	image_agg.comp = comp;
	image_agg.ncomp = ncomp;
	image_agg.calls = calls;
	image_agg.ncalls = ncalls;
	image_agg.threads_ns = threads_ns;
	memset(&prof, 0, sizeof(prof));
	prof.nimages = 1;
	prof.images = &image;
	prof.timing_mode = timing;
	memset(&model, 0, sizeof(model));
	model.p = &prof;
	model.agg = image_agg;
	model.nimages = 1;
	model.images = &image_agg;
}

static void tree_of(struct stack_tree *t)
{
	struct report r;

	memset(&r, 0, sizeof(r));
	r.p = &prof;
	r.model = &model;
	r.agg = &model.agg;
	report_stacks(&r, t);
}

/* The node with this label path ("app;libc.so.6:malloc" below the
 * process), or NULL. */
static const struct stack_node *find(const struct stack_tree *t, const char *path)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		size_t up[64], d = 0, k;
		char full[512] = "", lab[128];

		for (k = i; t->nodes[k].parent != STACK_NONE && d < 64; k = t->nodes[k].parent)
			up[d++] = k;
		while (d-- > 0) {
			report_stack_label(&t->nodes[up[d]], lab, sizeof(lab));
			if (full[0])
				strcat(full, ";");
			strcat(full, lab);
		}
		if (t->nodes[i].parent != STACK_NONE && !strcmp(full, path))
			return &t->nodes[i];
	}
	return NULL;
}

/* Children within their parent's time, self = ns - children, totals of
 * counts, preorder subtrees; returns the number of violations. */
static int invariants(const struct stack_tree *t)
{
	size_t i, bad = 0;

	for (i = 0; i < t->n; i++) {
		const struct stack_node *n = &t->nodes[i];
		int64_t kids = 0;
		uint64_t cnt = n->count;
		size_t k;

		for (k = i + 1; k < n->end; k++)
			if (t->nodes[k].parent == i) {
				kids += t->nodes[k].ns;
				cnt += t->nodes[k].total_count;
			}
		if (kids > n->ns || n->self_ns != n->ns - kids || n->self_ns < 0 ||
		    cnt != n->total_count)
			bad++;
		if (n->parent != STACK_NONE &&
		    (n->parent >= i || t->nodes[n->parent].end < n->end))
			bad++;
	}
	return (int)bad;
}

/* The count of one call row summed over every place the tree puts it. */
static uint64_t row_count(const struct stack_tree *t, const struct sc_call *c)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->nodes[i].call == c)
			sum += t->nodes[i].count;
	return sum;
}

static void chain(void)
{
	static struct sc_component comp[3] = {
		{ .name = "app", .nthreads = 2, .threads_ns = 100 * MS },
		{ .name = "libstdc++.so.6" },
		{ .name = "libc.so.6" },
	};
	static struct sc_call calls[3] = {
		{ .caller = "app", .callee = "libstdc++.so.6", .api = "_Znwm", .count = 10,
		  .total_ns = 30 * MS, .edge_ns = 30 * MS, .self_ns = 10 * MS },
		{ .caller = "libstdc++.so.6", .callee = "libc.so.6", .api = "malloc", .count = 10,
		  .total_ns = 20 * MS, .edge_ns = 20 * MS, .self_ns = 20 * MS },
		{ .caller = "app", .callee = "libc.so.6", .api = "free", .count = 7,
		  .total_ns = 5 * MS, .edge_ns = 5 * MS, .self_ns = 5 * MS },
	};
	struct stack_tree t;
	const struct stack_node *n;
	char lab[64];

	load(comp, 3, calls, 3, 100 * MS, SC_TIMING_ALL);
	tree_of(&t);
	CHECK_EQ(t.n, 5, "chain: nodes");
	CHECK_EQ(invariants(&t), 0, "chain: invariants");
	report_stack_label(&t.nodes[0], lab, sizeof(lab));
	CHECK(!strcmp(lab, "app[7]"), "chain: process label %s", lab);
	CHECK_EQ(t.nodes[0].ns, 100 * MS, "chain: process = threads' time");
	CHECK_EQ(t.nodes[0].end, 5, "chain: process subtree");
	n = find(&t, "app");
	CHECK(n && n->ns == 100 * MS && n->self_ns == 65 * MS, "chain: app's own time");
	n = find(&t, "app;libstdc++.so.6:_Znwm");
	CHECK(n && n->ns == 30 * MS && n->self_ns == 10 * MS && n->count == 10,
	      "chain: operator new, its measured self");
	n = find(&t, "app;libstdc++.so.6:_Znwm;libc.so.6:malloc");
	CHECK(n && n->ns == 20 * MS && n->count == 10 && n->self_ns == 20 * MS,
	      "chain: malloc inside operator new");
	n = find(&t, "app;libc.so.6:free");
	CHECK(n && n->ns == 5 * MS && n->count == 7, "chain: free from app");
	CHECK_EQ(report_stack_total(&t.nodes[0], WEIGHT_COUNT), 27, "chain: all calls by count");
	CHECK_EQ(report_stack_self(find(&t, "app"), WEIGHT_COUNT), 0, "chain: a component has no calls");
	report_stacks_free(&t);
}

/* app -> libc:qsort -> app:cmp -> libc:strcmp, and app -> libc:strcmp
 * directly: libc's call of cmp sits inside qsort, app's calls out split
 * between its threads and cmp by cmp's nested time. */
static void callback(void)
{
	static struct sc_component comp[2] = {
		{ .name = "app", .nthreads = 1, .threads_ns = 100 * MS },
		{ .name = "libc.so.6" },
	};
	static struct sc_call calls[3] = {
		{ .caller = "app", .callee = "libc.so.6", .api = "qsort", .count = 2,
		  .total_ns = 40 * MS, .edge_ns = 40 * MS, .self_ns = 20 * MS },
		{ .caller = "libc.so.6", .callee = "app", .api = "cmp", .count = 1000,
		  .total_ns = 20 * MS, .edge_ns = 20 * MS, .self_ns = 10 * MS },
		{ .caller = "app", .callee = "libc.so.6", .api = "strcmp", .count = 1000,
		  .total_ns = 10 * MS, .edge_ns = 10 * MS, .self_ns = 10 * MS },
	};
	struct stack_tree t;
	const struct stack_node *n, *m;
	uint64_t c;

	load(comp, 2, calls, 3, 100 * MS, SC_TIMING_ALL);
	tree_of(&t);
	CHECK_EQ(invariants(&t), 0, "callback: invariants");
	CHECK_EQ(t.nodes[0].ns, 100 * MS, "callback: process = threads' time");
	n = find(&t, "app;libc.so.6:qsort;app:cmp");
	CHECK(n != NULL, "callback: cmp under qsort");
	/* app's calls out: 50 ms, 10 of them inside cmp: a fifth each, so
	 * 4/5 of qsort at the top, 1/5 of that inside cmp */
	m = find(&t, "app;libc.so.6:qsort;app:cmp;libc.so.6:strcmp");
	CHECK(m && m->ns == 8 * MS / 5 && m->count == 160, "callback: strcmp inside cmp, apportioned");
	m = find(&t, "app;libc.so.6:strcmp");
	CHECK(m && m->ns == 8 * MS && m->count == 800, "callback: strcmp from app's threads");
	CHECK(find(&t, "app;libc.so.6:qsort;app:cmp;libc.so.6:qsort") == NULL,
	      "callback: qsort not expanded inside itself");
	/* the cycle guard cuts qsort inside cmp (4/25 of it) and what would
	 * repeat below it: strcmp's 1/25 there */
	c = row_count(&t, &calls[2]);
	CHECK_EQ(c, 960, "callback: strcmp's pieces less the cut cycle");
	report_stacks_free(&t);
}

/* app -> libc:qsort, whose comparator (entered through a pointer: no row)
 * calls libc:strcmp: strcmp's 30 ms are inside qsort's 95 and on its edge,
 * so qsort is drawn at its edge time (65) beside strcmp, and app's calls
 * out fill 95 of its 100 ms, not 125 cut down to 100. */
static void reentered(void)
{
	static struct sc_component comp[2] = {
		{ .name = "app", .nthreads = 1, .threads_ns = 100 * MS },
		{ .name = "libc.so.6" },
	};
	static struct sc_call calls[2] = {
		{ .caller = "app", .callee = "libc.so.6", .api = "qsort", .count = 1,
		  .total_ns = 95 * MS, .edge_ns = 65 * MS, .self_ns = 65 * MS },
		{ .caller = "app", .callee = "libc.so.6", .api = "strcmp", .count = 1000,
		  .total_ns = 30 * MS, .edge_ns = 30 * MS, .self_ns = 30 * MS },
	};
	struct stack_tree t;
	const struct stack_node *n;

	load(comp, 2, calls, 2, 100 * MS, SC_TIMING_ALL);
	tree_of(&t);
	CHECK_EQ(invariants(&t), 0, "reentered: invariants");
	n = find(&t, "app;libc.so.6:qsort");
	CHECK(n && n->ns == 65 * MS, "reentered: qsort at its edge time");
	n = find(&t, "app;libc.so.6:strcmp");
	CHECK(n && n->ns == 30 * MS && n->count == 1000, "reentered: strcmp whole, beside it");
	n = find(&t, "app");
	CHECK(n && n->ns == 100 * MS, "reentered: app's threads' time");
	report_stacks_free(&t);
}

/* No times: a component with threads keeps its calls out, one without
 * splits them by its incoming counts. */
static void untimed(void)
{
	static struct sc_component comp[3] = {
		{ .name = "app", .nthreads = 1 },
		{ .name = "libz.so.1" },
		{ .name = "libc.so.6" },
	};
	static struct sc_call calls[3] = {
		{ .caller = "app", .callee = "libz.so.1", .api = "inflate", .count = 30 },
		{ .caller = "app", .callee = "libz.so.1", .api = "deflate", .count = 10 },
		{ .caller = "libz.so.1", .callee = "libc.so.6", .api = "memcpy", .count = 400 },
	};
	struct stack_tree t;
	const struct stack_node *n;

	load(comp, 3, calls, 3, 0, SC_TIMING_NONE);
	tree_of(&t);
	CHECK_EQ(invariants(&t), 0, "untimed: invariants");
	n = find(&t, "app;libz.so.1:inflate;libc.so.6:memcpy");
	CHECK(n && n->count == 300, "untimed: memcpy under inflate by count");
	n = find(&t, "app;libz.so.1:deflate;libc.so.6:memcpy");
	CHECK(n && n->count == 100, "untimed: memcpy under deflate by count");
	CHECK_EQ(report_stack_total(&t.nodes[0], WEIGHT_COUNT), 440, "untimed: every call");
	report_stacks_free(&t);
}

/* A library's calls out with no nested time in any call into it (its
 * destructor's, made outside any API) sit under the main thread's
 * component, in a node of the library's own. */
static void homeless(void)
{
	static struct sc_component comp[3] = {
		{ .name = "app", .nthreads = 1, .threads_ns = 10 * MS },
		{ .name = "libfoo.so" },
		{ .name = "libc.so.6" },
	};
	static struct sc_call calls[2] = {
		{ .caller = "app", .callee = "libfoo.so", .api = "foo", .count = 5,
		  .total_ns = 2 * MS, .edge_ns = 2 * MS, .self_ns = 2 * MS },
		{ .caller = "libfoo.so", .callee = "libc.so.6", .api = "free", .count = 3,
		  .total_ns = 1 * MS, .edge_ns = 1 * MS, .self_ns = 1 * MS },
	};
	struct stack_tree t;
	const struct stack_node *n;

	load(comp, 3, calls, 2, 10 * MS, SC_TIMING_ALL);
	tree_of(&t);
	CHECK_EQ(invariants(&t), 0, "homeless: invariants");
	CHECK(find(&t, "app;libfoo.so:foo;libc.so.6:free") == NULL, "homeless: not inside foo");
	n = find(&t, "app;libfoo.so;libc.so.6:free");
	CHECK(n && n->count == 3 && n->ns == 1 * MS, "homeless: under the main component");
	n = find(&t, "app");
	CHECK(n && n->self_ns == 7 * MS, "homeless: app's own time less both");
	report_stacks_free(&t);
}

int main(void)
{
	chain();
	homeless();
	callback();
	reentered();
	untimed();
	return check_summary();
}
