/*
 * test_live.c - `scaler live`'s snapshots compared (src/cli/live_snap.c)
 * and drawn (live_view.c), on in-memory snapshots: a key new since the
 * last snapshot counts from zero, an estimate that came out lower grows by
 * 0, the images of a process tree (with a parent cycle, which must end),
 * rows merged across images and by component pair, the table's width.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "live.h"
#include "report.h"

static struct sc_call call(const char *caller, const char *callee, const char *api,
			   uint64_t count, int64_t total_ns)
{
	struct sc_call c;

	memset(&c, 0, sizeof(c));
	c.caller = caller;
	c.callee = callee;
	c.api = api;
	c.count = count;
	c.timed = count;
	c.total_ns = total_ns;
	c.edge_ns = total_ns;
	c.max_ns = count ? total_ns / (int64_t)count : 0;
	c.hist[4] = count;
	return c;
}

/* A snapshot of n images (pid, ppid) with the calls of each. */
struct fake {
	struct live_snap s;
	struct sc_image im[4];
	struct sc_agg agg[4];
};

static void fake_init(struct fake *f, int64_t mono_ns)
{
	memset(f, 0, sizeof(*f));
	f->s.p.images = f->im;
	f->s.m.images = f->agg;
	f->s.m.p = &f->s.p;
	f->s.mono_ns = mono_ns;
}

static void fake_image(struct fake *f, uint32_t pid, uint32_t ppid, struct sc_call *calls, size_t n)
{
	size_t i = f->s.p.nimages++;

	f->s.m.nimages++;
	f->im[i].pid = pid;
	f->im[i].ppid = ppid;
	f->im[i].incomplete = 1;
	f->im[i].hdr.start_mono_ns = 1000000000;
	f->agg[i].calls = calls;
	f->agg[i].ncalls = n;
}

static const struct live_row *row(const struct live_rows *r, const char *caller, const char *api)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->rows[i].c.caller, caller) && !strcmp(r->rows[i].c.api, api))
			return &r->rows[i];
	return NULL;
}

static void test_deltas(void)
{
	struct sc_call then[] = { call("app", "libc.so.6", "read", 10, 1000) };
	/* read's estimate came out lower (a new sample), write is new */
	struct sc_call now[] = { call("app", "libc.so.6", "read", 15, 900),
				 call("app", "libc.so.6", "write", 5, 500) };
	struct fake a, b;
	struct live_sel all = { SEL_ALL, 0, 0 };
	struct live_rows r;
	const struct live_row *x;

	fake_init(&a, 2000000000);
	fake_image(&a, 10, 1, then, 1);
	fake_init(&b, 2500000000);
	fake_image(&b, 10, 1, now, 2);
	live_rows_build(&r, &b.s, &a.s, &all, VIEW_API, LSORT_RATE);
	CHECK_EQ(r.n, 2, "rows");
	CHECK_EQ(r.dt_ns, 500000000, "interval between the snapshots");
	CHECK_EQ(r.elapsed_ns, 1500000000, "elapsed since the process started");
	x = row(&r, "app", "read");
	CHECK(x && x->dcount == 5 && x->dns == 0, "read grew by 5 calls and no time");
	x = row(&r, "app", "write");
	CHECK(x && x->dcount == 5 && x->dns == 500, "write, new, counts from zero");
	CHECK(!strcmp(r.rows[0].c.api, "write"), "sorted by rate: write first");
	CHECK_EQ(r.dcount, 10, "calls in the interval");
	live_rows_free(&r);

	/* without a previous snapshot: everything since the start */
	live_rows_build(&r, &b.s, NULL, &all, VIEW_API, LSORT_TOTAL);
	x = row(&r, "app", "read");
	CHECK(x && x->dcount == 15 && x->dns == 900 && r.dt_ns == r.elapsed_ns,
	      "one snapshot: growth is since the start");
	CHECK(!strcmp(r.rows[0].c.api, "read"), "sorted by total: read first");
	live_rows_free(&r);
}

static void test_tree(void)
{
	struct sc_call c1[] = { call("app", "libc.so.6", "read", 1, 10) };
	struct sc_call c2[] = { call("app", "libc.so.6", "read", 2, 20),
				call("app", "libc.so.6", "open", 1, 5) };
	struct sc_call c3[] = { call("sh", "libc.so.6", "read", 4, 40) };
	struct sc_call c4[] = { call("app", "libc.so.6", "read", 8, 80) };
	struct fake f;
	struct live_rows r;
	const struct live_row *x;

	fake_init(&f, 2000000000);
	fake_image(&f, 10, 1, c1, 1);
	fake_image(&f, 11, 10, c2, 2);
	fake_image(&f, 12, 11, c3, 1);
	/* a parent cycle (pid reuse across a long run) must not loop */
	fake_image(&f, 30, 31, c4, 1);
	f.im[3].ppid = 30;

	struct live_sel tree = { SEL_TREE, 11, 0 }, one = { SEL_IMAGE, 11, 0 };

	CHECK(!live_sel_has(&f.s.p, &tree, &f.im[0]) && live_sel_has(&f.s.p, &tree, &f.im[1]) &&
	      live_sel_has(&f.s.p, &tree, &f.im[2]) && !live_sel_has(&f.s.p, &tree, &f.im[3]),
	      "the tree of 11 is 11 and 12");
	live_rows_build(&r, &f.s, NULL, &tree, VIEW_API, LSORT_COUNT);
	CHECK_EQ(r.nimages, 2, "images of the tree");
	x = row(&r, "app", "read");
	CHECK(x && x->c.count == 2 && x->c.total_ns == 20, "app's read in the tree: pid 11's");
	CHECK_EQ(r.count, 7, "calls of the tree");
	live_rows_free(&r);

	live_rows_build(&r, &f.s, NULL, &tree, VIEW_COMP, LSORT_COUNT);
	CHECK_EQ(r.n, 2, "component pairs of the tree");
	CHECK(!strcmp(r.rows[0].c.caller, "sh") && r.rows[0].c.count == 4 &&
	      !strcmp(r.rows[1].c.caller, "app") && r.rows[1].c.count == 3 &&
	      r.rows[1].c.total_ns == 25 && !r.rows[1].c.api[0],
	      "app's read and open merged into app -> libc.so.6");
	live_rows_free(&r);

	size_t n;
	struct sc_call *owned;
	const struct sc_call *calls = live_calls(&f.s, &one, &n, &owned);
	CHECK(calls == c2 && n == 2 && !owned, "one image: its model's own calls");
	calls = live_calls(&f.s, &tree, &n, &owned);
	CHECK(owned && n == 3, "a tree: its calls merged (%zu)", n);
	free(owned);
}

static void test_view(void)
{
	struct sc_call c[] = { call("a-very-long-component-name.so.1", "libc.so.6",
				    "_ZNSt6vectorIiSaIiEE9push_backERKi", 1234567, 987654321) };
	struct fake f;
	struct live_sel all = { SEL_ALL, 0, 0 };
	struct live_rows r;
	char **lines;
	size_t n;
	int ok = 1;

	fake_init(&f, 2000000000);
	fake_image(&f, 10, 1, c, 1);
	live_rows_build(&r, &f.s, NULL, &all, VIEW_API, LSORT_RATE);
	n = live_view_lines(&r, VIEW_API, 80, 0, &lines);
	CHECK_EQ(n, 2, "title and one row");
	for (size_t i = 0; i < n; i++) {
		ok &= report_text_width(lines[i]) <= 80;
		free(lines[i]);
	}
	free(lines);
	CHECK(ok, "every line fits 80 columns");
	n = live_view_lines(&r, VIEW_API, 200, 0, &lines);
	CHECK(strstr(lines[1], "1,234,567") && strstr(lines[1], "988 ms"),
	      "the row has the count and the total: %s", lines[1]);
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	live_rows_free(&r);
}

int main(void)
{
	test_deltas();
	test_tree();
	test_view();
	return check_summary();
}
