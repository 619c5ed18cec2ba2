/*
 * test_report_names.c - unit test of the names the report gives functions
 * (src/cli/report_names.c: clone suffixes, mangled or demangled) and of their
 * grouping per function (report_functions.c): clones summed under their
 * function, callers merged, percentiles from the merged histograms.
 */
#include <stdio.h>
#include <string.h>

#include "demangle.h"
#include "report.h"
#include "check.h"

static void base(const char *sym, size_t want)
{
	CHECK_EQ(report_clone_base(sym), want, sym);
}

static void fname(const char *sym, const char *want)
{
	char buf[256];
	const char *got = report_function_name(sym, buf, sizeof(buf));

	CHECK(!strcmp(got, want), "function of %s: \"%s\" (want \"%s\")", sym, got, want);
}

static void pretty(const char *sym, const char *want)
{
	char buf[256];
	const char *got = sc_demangle(sym, buf, sizeof(buf));

	CHECK(!strcmp(got, want), "pretty %s: \"%s\" (want \"%s\")", sym, got, want);
}

static struct sc_call calls[] = {
	{ .caller = "app", .callee = "app", .api = "sc::scale(long, int) [clone .constprop.0]",
	  .symbol = "_ZN2sc5scaleEli.constprop.0", .function = 1,
	  .count = 10, .timed = 10, .total_ns = 1000, .edge_ns = 1000, .self_ns = 800, .max_ns = 300 },
	{ .caller = "libc.so.6", .callee = "app", .api = "sc::scale(long, int)",
	  .symbol = "_ZN2sc5scaleEli", .function = 1,
	  .count = 5, .timed = 5, .total_ns = 500, .edge_ns = 500, .self_ns = 500, .max_ns = 200 },
	{ .caller = "app", .callee = "app", .api = "parse.part.0", .function = 1,
	  .count = 7 },
	{ .caller = "app", .callee = "libc.so.6", .api = "sc::scale(long, int)",
	  .symbol = "_ZN2sc5scaleEli", .count = 99,
	  .total_ns = 99999, .edge_ns = 99999 },     /* an import, and of another component */
	{ .caller = "app", .callee = "app", .api = "parse", .function = 1, .count = 3 },
};

int main(void)
{
	/* clone suffixes */
	base("foo", 3);
	base("foo.isra.0", 3);
	base("foo.constprop.12", 3);
	base("foo.part.0.cold", 3);
	base("foo.cold", 3);
	base("_Z3fooi.isra.0", 7);
	base("libz.so.1+0x40", 14);             /* a stripped object's function */
	base("foo.bar", 7);                     /* not a clone word */
	base("foo.isra.bar", 12);
	base(".cold", 5);
	base("f(int) [clone .isra.0]", 6);            /* already demangled */
	base("f(int) [clone .isra.0] [clone .cold]", 6);
	base("f(int) [x]", 10);
	/* names for people: demangled, the clone visible or grouped */
	pretty("parse.part.0", "parse.part.0");
	pretty("_ZN2sc5scaleEli", "sc::scale(long, int)");
	pretty("_ZN2sc5scaleEli.constprop.0", "sc::scale(long, int) [clone .constprop.0]");
	pretty("_Zbad", "_Zbad");
	fname("sc::scale(long, int)", "sc::scale(long, int)");
	fname("_ZN2sc5scaleEli.constprop.0", "_ZN2sc5scaleEli");  /* no demangler at hand */
	fname("parse.part.0.cold", "parse");
	fname("libz.so.1+0x40", "libz.so.1+0x40");
	fname("sc::scale(long, int) [clone .constprop.0]", "sc::scale(long, int)");

	/* grouping: app's functions, clones and callers summed */
	struct report r;
	const struct sc_call *rows[5];
	struct report_fn *fn;
	size_t i, n;

	memset(&r, 0, sizeof(r));
	calls[0].hist[8] = 10;  /* 256..512 ns */
	calls[1].hist[7] = 5;   /* 128..256 ns */
	for (i = 0; i < 5; i++)
		rows[i] = &calls[i];
	r.ncalls = 5;
	r.calls = rows;
	n = report_functions(&r, "app", &fn);
	CHECK_EQ(n, 2, "app's functions");
	if (n == 2) {
		CHECK(!strcmp(fn[0].name, "sc::scale(long, int)"), "first by time: %s", fn[0].name);
		CHECK_EQ(fn[0].fig.count, 15, "sc::scale: its clone's and its own calls");
		CHECK_EQ(fn[0].fig.total_ns, 1500, "sc::scale: inclusive");
		CHECK_EQ(fn[0].fig.self_ns, 1300, "sc::scale: exclusive");
		CHECK(fn[0].fig.callers_many, "sc::scale: called from app and libc.so.6");
		CHECK(fn[0].fig.has_hist && fn[0].fig.p50_ns >= 256 && fn[0].fig.p50_ns <= 300 &&
		      fn[0].fig.p99_ns <= 300, "sc::scale: p50 %lld, p99 %lld from both histograms",
		      (long long)fn[0].fig.p50_ns, (long long)fn[0].fig.p99_ns);
		CHECK_EQ(fn[0].nparts, 2, "sc::scale: itself and one clone");
		CHECK(!strcmp(fn[0].parts[0].suffix, ".constprop.0") && fn[0].parts[0].fig.count == 10 &&
		      !strcmp(fn[0].parts[0].symbol, "_ZN2sc5scaleEli.constprop.0") &&
		      !strcmp(fn[0].parts[0].api, "sc::scale(long, int) [clone .constprop.0]") &&
		      !fn[0].parts[0].fig.callers_many, "sc::scale's clone part");
		CHECK(!strcmp(fn[1].name, "parse") && fn[1].fig.count == 10 && fn[1].nparts == 2 &&
		      !fn[1].fig.has_hist && !fn[1].fig.callers_many, "parse: counted, untimed");
		CHECK(!strcmp(fn[1].parts[0].symbol, "parse.part.0") &&
		      !strcmp(fn[1].parts[1].suffix, ""), "parse's parts by count");
	}
	report_functions_free(fn, n);
	n = report_functions(&r, "libc.so.6", &fn);
	CHECK_EQ(n, 0, "imports are no functions");
	report_functions_free(fn, n);

	/* the stack exports' frames are demangled */
	struct stack_node node = { .kind = STACK_API, .name = "_ZN2sc5scaleEli.constprop.0",
				   .component = "app" };
	char lab[256];

	report_stack_title(&node, lab, sizeof(lab));
	CHECK(!strcmp(lab, "app:sc::scale(long, int) [clone .constprop.0]"), "frame label: %s", lab);

	return check_summary();
}
