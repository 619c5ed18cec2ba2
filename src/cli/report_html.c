/*
 * report_html.c - `scaler report --format html`: one self-contained page
 * (inline CSS, inline SVG, a little inline JS; nothing fetched) with
 *   - the component view as stacked horizontal bars, as in the paper's
 *     Figure 1: each component's total split into its self time, the time
 *     spent in each other component and the Wait (blocked) part, with a
 *     legend, then the same numbers (raw and attributed) as a table;
 *   - each component's API view, with a latency sparkline per call when
 *     the profile has histograms;
 *   - thread groups' effective vs Wait bars and the imbalance explanation,
 *     the threads, and the processes.
 * Tables and charts are static markup, so the page reads the same with
 * JavaScript off; the script only makes table headers sort on click and
 * marks the document `data-sortable="ready"`. Every string from the profile
 * goes through html_text(), which escapes markup characters and replaces
 * control characters and bytes that are not UTF-8.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "report.h"

/* Component colours (Tableau 10 and a few more), given in the order the
 * components appear in the chart (see colour_order), so the ones in view
 * are distinct; only past a dozen do colours repeat. */
static const char *const palette[] = {
	"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
	"#b07aa1", "#ff9da7", "#9c755f", "#17becf", "#8cd17d", "#d37295",
};
#define NPALETTE (sizeof(palette) / sizeof(palette[0]))
#define WAIT_COLOR "#c7c7c7"
#define EFF_COLOR "#59a14f"

/* chart geometry, px */
#define CH_LABEL 270
#define CH_BAR 600
#define CH_VALUE 170
#define CH_ROW 26
#define CH_H 18

static const char *html_esc(unsigned c, char *buf)
{
	(void)buf;
	switch (c) {
	case '&': return "&amp;";
	case '<': return "&lt;";
	case '>': return "&gt;";
	case '"': return "&quot;";
	case '\'': return "&#39;";
	default: break;
	}
	if (c < 0x20 || c >= 0x7f)
		return "\xef\xbf\xbd";       /* U+FFFD */
	return NULL;
}

static void html_text(FILE *f, const char *s)
{
	sc_write_escaped(f, s, html_esc);
}

/* Component names in colour order: the charted components, the ones they
 * call, then the rest; *ncharted gets how many appear in the chart. */
static const char **colour_names;
static size_t ncolour_names, ncharted;

static void colour_add(const char *name)
{
	size_t i;

	for (i = 0; i < ncolour_names; i++)
		if (!strcmp(colour_names[i], name))
			return;
	colour_names[ncolour_names++] = name;
}

static void colour_order(const struct report *r)
{
	size_t i, e;

	colour_names = report_xcalloc(r->agg->ncomp, sizeof(*colour_names));
	ncolour_names = 0;
	for (i = 0; i < r->ncomp; i++)
		colour_add(r->comp[i]->name);
	for (i = 0; i < r->ncomp; i++)
		for (e = 0; e < r->comp[i]->nout; e++)
			if (sc_agg_component(r->agg, r->comp[i]->out[e].callee))
				colour_add(r->comp[i]->out[e].callee);
	ncharted = ncolour_names;
	for (i = 0; i < r->agg->ncomp; i++)
		colour_add(r->agg->comp[i].name);
}

static const char *comp_color(const char *name)
{
	size_t i;

	for (i = 0; i < ncolour_names; i++)
		if (!strcmp(colour_names[i], name))
			return palette[i % NPALETTE];
	return WAIT_COLOR;
}

/* A table cell with a humanised time and its raw value to sort by;
 * known == 0 shows "-". */
static void td_ns(FILE *f, long double ns, int known)
{
	char b[32];

	if (!known) {
		fputs("<td class=\"n\" data-v=\"-1\">-</td>", f);
		return;
	}
	report_fmt_ns(b, sizeof(b), ns);
	fprintf(f, "<td class=\"n\" data-v=\"%.0Lf\">%s</td>", ns, b);
}

static void td_pct(FILE *f, long double part, long double whole)
{
	char b[32];

	report_fmt_pct(b, sizeof(b), part, whole);
	fprintf(f, "<td class=\"n\" data-v=\"%.6Lf\">%s</td>", whole > 0 ? part / whole : 0, b);
}

static void td_count(FILE *f, uint64_t v)
{
	char b[32];

	report_fmt_count(b, sizeof(b), v);
	fprintf(f, "<td class=\"n\" data-v=\"%" PRIu64 "\">%s</td>", v, b);
}

static void td_text(FILE *f, const char *s)
{
	fputs("<td>", f);
	html_text(f, s);
	fputs("</td>", f);
}

/* <thead> from a list of "label" (text) or "#label" (numeric) columns. */
static void thead(FILE *f, const char *const *cols, size_t n)
{
	size_t i;

	fputs("<thead><tr>", f);
	for (i = 0; i < n; i++) {
		int num = cols[i][0] == '#';

		fprintf(f, "<th data-type=\"%s\"%s>", num ? "num" : "str", num ? " class=\"n\"" : "");
		html_text(f, cols[i] + num);
		fputs("</th>", f);
	}
	fputs("</tr></thead>\n<tbody>\n", f);
}

/* ---- head ---------------------------------------------------------------- */

static const char css[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;background:#fff}"
	"h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd}"
	"h3{font-size:15px;margin:18px 0 6px}.sub{color:#555;margin:0}"
	"table{border-collapse:collapse;margin:4px 0 12px}"
	"th,td{padding:2px 8px;border-bottom:1px solid #eee;text-align:left;white-space:nowrap}"
	"th{background:#f4f4f4;user-select:none}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}"
	"th[aria-sort=ascending]::after{content:' \\25b2'}th[aria-sort=descending]::after{content:' \\25bc'}"
	"html[data-sortable=ready] th{cursor:pointer}"
	".legend span{display:inline-block;margin:2px 14px 2px 0}"
	".sw{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-1px}"
	".warn{background:#fff4d6;border-left:4px solid #e0a800;padding:6px 10px;max-width:1000px}"
	".wait{color:#777}svg text{font:12px system-ui,sans-serif;fill:#222}"
	".note{color:#666;font-size:12px}";

/* The sorter: click (or Enter on) a header; numbers by data-v. */
static const char js[] =
	"(function(){\n"
	"function key(td,num){return num?parseFloat(td.getAttribute('data-v')||'0'):td.textContent.toLowerCase();}\n"
	"Array.prototype.forEach.call(document.querySelectorAll('table.sortable'),function(t){\n"
	" var ths=t.tHead.rows[0].cells;\n"
	" Array.prototype.forEach.call(ths,function(th,i){\n"
	"  th.tabIndex=0;\n"
	"  function go(){\n"
	"   var num=th.getAttribute('data-type')==='num',cur=th.getAttribute('aria-sort');\n"
	"   var asc=cur?cur!=='ascending':!num;\n"
	"   Array.prototype.forEach.call(ths,function(h){h.removeAttribute('aria-sort');});\n"
	"   th.setAttribute('aria-sort',asc?'ascending':'descending');\n"
	"   var b=t.tBodies[0],rows=Array.prototype.slice.call(b.rows);\n"
	"   rows.sort(function(x,y){var p=key(x.cells[i],num),q=key(y.cells[i],num);"
	"return (p<q?-1:p>q?1:0)*(asc?1:-1);});\n"
	"   rows.forEach(function(row){b.appendChild(row);});\n"
	"  }\n"
	"  th.addEventListener('click',go);\n"
	"  th.addEventListener('keydown',function(e){if(e.key==='Enter')go();});\n"
	" });\n"
	"});\n"
	"document.documentElement.setAttribute('data-sortable','ready');\n"
	"})();\n";

static void html_head(const struct report *r)
{
	FILE *f = r->out;
	const struct sc_profile *p = r->p;
	const struct sc_image *root = r->only ? r->only : report_root_image(p);
	int64_t wall_ns = r->only ? r->only->wall_ns : p->wall_ns;
	char cmd[4096], b[32];

	report_fmt_command(cmd, sizeof(cmd), root);
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n"
	      "<title>scaler report: ", f);
	html_text(f, cmd);
	fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>scaler report</h1>\n"
		"<p class=\"sub\"><code>", css);
	html_text(f, cmd);
	fputs("</code></p>\n<p class=\"sub\">", f);
	if (r->only)
		fprintf(f, "process %u, one of %zu; ", r->only->pid, p->nimages);
	else
		fprintf(f, "%zu process%s; ", p->nimages, p->nimages == 1 ? "" : "es");
	if (wall_ns > 0) {
		report_fmt_ns(b, sizeof(b), (long double)wall_ns);
		fprintf(f, "wall %s; ", b);
	}
	report_fmt_ns(b, sizeof(b), (long double)r->agg->threads_ns);
	fprintf(f, "all threads %s; ", b);
	html_text(f, report_timing_desc(p->timing_mode));
	if (r->component) {
		fprintf(f, "; component%s", r->nselected > 1 ? "s" : "");
		for (size_t i = 0; i < r->nselected; i++) {
			fputs(i ? ", " : " ", f);
			html_text(f, r->selected[i]);
		}
		fputs(" only", f);
	}
	if (r->min_percent > 0)
		fprintf(f, "; rows under %g%% hidden", r->min_percent);
	fputs("</p>\n", f);
}

/* ---- component view ---------------------------------------------------- */

/* Time a caller spends in one callee, and the Wait (blocked) part of it. */
static void edge_times(const struct report *r, const char *from, const char *to,
		       int64_t *attr, int64_t *wait)
{
	size_t i;

	*attr = *wait = 0;
	for (i = 0; i < r->agg->ncalls; i++) {
		const struct sc_call *c = &r->agg->calls[i];

		if (strcmp(c->caller, from) || strcmp(c->callee, to))
			continue;
		*attr += c->attr_ns;
		*wait += c->wait_ns > 0 ? c->wait_ns : c->wait ? c->total_ns : 0;
	}
}

/* A bar segment with its tooltip; returns whether it is wide enough to
 * see (then its colour belongs in the legend). */
static int rect(FILE *f, double x, double y, double w, const char *color,
		const char *what, const char *name, int64_t ns, long double all)
{
	char b[32], pc[32];

	if (w <= 0)
		return 0;
	report_fmt_ns(b, sizeof(b), (long double)ns);
	report_fmt_pct(pc, sizeof(pc), (long double)ns, all);
	fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%d\" fill=\"%s\">"
		"<title>", x, y, w, CH_H, color);
	html_text(f, what);
	html_text(f, name);
	fprintf(f, ": %s (%s)</title></rect>\n", b, pc);
	return w >= 1;
}

/* Note that name's colour is in sight. */
static void seen(unsigned char *shown, const char *name)
{
	size_t i;

	for (i = 0; i < ncolour_names; i++)
		if (!strcmp(colour_names[i], name))
			shown[i] = 1;
}

static void html_chart(const struct report *r)
{
	FILE *f = r->out;
	long double all = (long double)r->agg->threads_ns, scale = 0;
	size_t i, e;
	int h = (int)r->ncomp * CH_ROW + 10, any_wait = 0;
	unsigned char *shown = report_xcalloc(ncolour_names, 1);

	/* scale: the longest bar (self + edges; estimates may exceed total) */
	for (i = 0; i < r->ncomp; i++) {
		const struct sc_component *c = r->comp[i];
		long double sum = (long double)report_clamp0(c->self_ns);

		for (e = 0; e < c->nout; e++)
			sum += (long double)c->out[e].ns;
		if (sum > scale)
			scale = sum;
	}
	if (scale <= 0)
		scale = 1;
	fprintf(f, "<svg id=\"component-chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" role=\"img\" aria-label=\"component view\">\n",
		CH_LABEL + CH_BAR + CH_VALUE, h);
	for (i = 0; i < r->ncomp; i++) {
		const struct sc_component *c = r->comp[i];
		double y = 4 + (double)i * CH_ROW, x = CH_LABEL;
		double w = (double)((long double)report_clamp0(c->self_ns) * CH_BAR / scale);
		char name[128], b[32], pc[32];

		report_fit(name, sizeof(name), c->name, 38);
		fprintf(f, "<text x=\"0\" y=\"%.2f\">", y + CH_H - 5);
		html_text(f, name);
		fputs("</text>\n", f);
		if (rect(f, x, y, w, comp_color(c->name), "self: ", c->name,
			 report_clamp0(c->self_ns), all))
			seen(shown, c->name);
		x += w;
		for (e = 0; e < c->nout; e++) {
			const struct sc_edge *ed = &c->out[e];
			int64_t attr, wait;
			double ww;

			edge_times(r, c->name, ed->callee, &attr, &wait);
			if (wait > ed->ns)
				wait = ed->ns;
			w = (double)((long double)(ed->ns - wait) * CH_BAR / scale);
			ww = (double)((long double)wait * CH_BAR / scale);
			if (rect(f, x, y, w, comp_color(ed->callee), "in ", ed->callee,
				 ed->ns - wait, all))
				seen(shown, ed->callee);
			x += w;
			any_wait |= rect(f, x, y, ww, WAIT_COLOR, "Wait (blocked) in ", ed->callee,
					 wait, all);
			x += ww;
		}
		report_fmt_ns(b, sizeof(b), (long double)c->total_ns);
		report_fmt_pct(pc, sizeof(pc), (long double)c->total_ns, all);
		fprintf(f, "<text x=\"%.2f\" y=\"%.2f\">%s (%s)</text>\n", x + 6, y + CH_H - 5, b, pc);
	}
	fputs("</svg>\n<div class=\"legend\">", f);
	for (i = 0; i < ncharted; i++) {
		if (!shown[i])
			continue;
		fprintf(f, "<span><i class=\"sw\" style=\"background:%s\"></i>",
			comp_color(colour_names[i]));
		html_text(f, colour_names[i]);
		fputs("</span>", f);
	}
	if (any_wait)
		fputs("<span><i class=\"sw\" style=\"background:" WAIT_COLOR "\"></i>Wait (blocked)</span>", f);
	free(shown);
	fputs("</div>\n<p class=\"note\">Each bar is a component's total time: its own (self) time "
	      "in its colour, then the time spent in each component it calls, in that component's "
	      "colour; grey is time blocked in waiting APIs.</p>\n", f);
}

static void html_components(const struct report *r)
{
	static const char *const cols[] = {
		"component", "#total", "#%", "#self", "#%", "#wait", "#attributed total", "#%",
		"#attributed self", "#%", "#calls in", "#calls out",
	};
	FILE *f = r->out;
	long double all = (long double)r->agg->threads_ns, crit = (long double)r->agg->attr_ns;
	int attr = r->agg->attr_ns > 0;
	size_t i;

	fputs("<section id=\"components\">\n<h2>Component view</h2>\n", f);
	if (r->ncomp == 0) {
		fputs("<p>No component selected.</p>\n</section>\n", f);
		return;
	}
	if (r->timed)
		html_chart(r);
	fputs("<table class=\"sortable\" id=\"component-table\">", f);
	thead(f, cols, sizeof(cols) / sizeof(cols[0]));
	for (i = 0; i < r->ncomp; i++) {
		const struct sc_component *c = r->comp[i];

		fprintf(f, "<tr><td><i class=\"sw\" style=\"background:%s\"></i>",
			comp_color(c->name));
		html_text(f, c->name);
		fputs("</td>", f);
		td_ns(f, (long double)c->total_ns, r->timed);
		td_pct(f, (long double)c->total_ns, all);
		td_ns(f, (long double)report_clamp0(c->self_ns), r->timed);
		td_pct(f, (long double)report_clamp0(c->self_ns), all);
		td_ns(f, (long double)c->wait_ns, r->timed);
		td_ns(f, (long double)c->attr_total_ns, attr);
		td_pct(f, (long double)c->attr_total_ns, crit);
		td_ns(f, (long double)report_clamp0(c->attr_self_ns), attr);
		td_pct(f, (long double)report_clamp0(c->attr_self_ns), crit);
		td_count(f, c->in_calls);
		td_count(f, c->out_calls);
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n</section>\n", f);
}

/* ---- API view ---------------------------------------------------------- */

/*
 * Latency histograms share one axis across the page, from the fastest
 * bucket any shown call reached to the slowest, so sparklines compare: a
 * call's bars sit where its latencies are, not stretched to fill the cell.
 */
static int spark_lo, spark_hi;

static void spark_axis(const struct report *r)
{
	size_t k;
	int i;

	spark_lo = SC_HIST_BUCKETS;
	spark_hi = -1;
	for (k = 0; k < r->ncalls; k++)
		for (i = 0; i < SC_HIST_BUCKETS; i++)
			if (r->calls[k]->hist[i]) {
				if (i < spark_lo)
					spark_lo = i;
				if (i > spark_hi)
					spark_hi = i;
			}
}

/* Bounds of histogram buckets lo..hi as text: [lo's start, hi's end). */
static void bucket_range(char *a, char *b, size_t n, int lo, int hi)
{
	report_fmt_ns(a, n, (long double)sc_hist_lo_ns(lo));
	if (hi + 1 < SC_HIST_BUCKETS)
		report_fmt_ns(b, n, (long double)sc_hist_lo_ns(hi + 1));
	else
		snprintf(b, n, "\xe2\x88\x9e");
}

static void sparkline(FILE *f, const struct sc_call *c)
{
	uint64_t max = 0;
	double bw;
	int i;

	for (i = 0; i < SC_HIST_BUCKETS; i++)
		if (c->hist[i] > max)
			max = c->hist[i];
	if (!max || spark_hi < spark_lo) {
		fputs("<td data-v=\"0\"></td>", f);
		return;
	}
	bw = 96.0 / (spark_hi - spark_lo + 1);
	fprintf(f, "<td data-v=\"%" PRId64 "\"><svg class=\"spark\" width=\"96\" height=\"18\" "
		"xmlns=\"http://www.w3.org/2000/svg\"><line x1=\"0\" y1=\"17.5\" x2=\"96\" "
		"y2=\"17.5\" stroke=\"#ccc\"/>", c->p50_ns);
	for (i = spark_lo; i <= spark_hi; i++) {
		double h = 1 + 16.0 * (double)c->hist[i] / (double)max;
		char a[32], b[32];

		if (!c->hist[i])
			continue;
		bucket_range(a, b, sizeof(a), i, i);
		fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"#4e79a7\">"
			"<title>%s \xe2\x80\x93 %s: %" PRIu64 " calls</title></rect>",
			(i - spark_lo) * bw, 18 - h, bw > 1.5 ? bw - 0.5 : bw, h, a, b, c->hist[i]);
	}
	fputs("</svg></td>", f);
}

static void api_table(const struct report *r, const struct sc_component *c, int into)
{
	static const char *const cols[] = {
		"api", "#calls", "#total", "#% in", "#self", "#wait", "#attributed", "#avg", "#p50",
		"#p99", "#max", "#latency", "from",
	};
	const char *cols2[sizeof(cols) / sizeof(cols[0])];
	FILE *f = r->out;
	int attr = r->agg->attr_ns > 0;
	size_t k, n = sizeof(cols) / sizeof(cols[0]);
	char dem[512];

	memcpy(cols2, cols, sizeof(cols));
	if (!into)
		cols2[n - 1] = "to";
	fputs("<table class=\"sortable api\">", f);
	thead(f, cols2, n);
	for (k = 0; k < r->ncalls; k++) {
		const struct sc_call *call = r->calls[k];
		int hist = report_has_hist(call), internal = !strcmp(call->caller, call->callee);

		if (strcmp(into ? call->callee : call->caller, c->name))
			continue;
		fprintf(f, "<tr%s><td title=\"", call->wait ? " class=\"wait\"" : "");
		html_text(f, call->api);
		fputs("\">", f);
		html_text(f, report_pretty(call->api, dem, sizeof(dem)));
		if (call->wait)
			fputs(" <small>(Wait)</small>", f);
		fputs("</td>", f);
		td_count(f, call->count);
		td_ns(f, (long double)call->total_ns, r->timed);
		if (into && !internal)
			td_pct(f, (long double)call->total_ns, (long double)c->in_ns);
		else
			fputs("<td class=\"n\" data-v=\"-1\">-</td>", f);
		td_ns(f, (long double)call->self_ns, r->timed);
		td_ns(f, (long double)(call->wait_ns > 0 ? call->wait_ns : call->wait ? call->total_ns : 0),
		      r->timed);
		td_ns(f, (long double)call->attr_ns, attr);
		td_ns(f, (long double)call->total_ns / (long double)call->count, r->timed);
		td_ns(f, (long double)call->p50_ns, hist);
		td_ns(f, (long double)call->p99_ns, hist);
		td_ns(f, (long double)call->max_ns, call->max_ns > 0);
		sparkline(f, call);
		td_text(f, into ? call->caller : call->callee);
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

static void html_apis(const struct report *r)
{
	FILE *f = r->out;
	size_t i, k, n = 0;
	char b1[32], b2[32];

	fputs("<section id=\"apis\">\n<h2>API view: calls into each component</h2>\n", f);
	if (spark_hi >= spark_lo) {
		char lo[32], hi[32];

		bucket_range(lo, hi, sizeof(lo), spark_lo, spark_hi);
		fprintf(f, "<p class=\"note\">latency: calls per duration, on one log scale "
			"from %s (left) to %s (right) for every row.</p>\n", lo, hi);
	}
	for (i = 0; i < r->agg->ncomp; i++) {
		const struct sc_component *c = &r->agg->comp[i];

		if (!report_comp_selected(r, c->name))
			continue;
		for (k = 0; k < r->ncalls; k++)
			if (!strcmp(r->calls[k]->callee, c->name))
				break;
		if (k == r->ncalls)
			continue;
		n++;
		report_fmt_ns(b1, sizeof(b1), (long double)c->in_ns);
		report_fmt_count(b2, sizeof(b2), c->in_calls);
		fprintf(f, "<h3 id=\"api-%zu\"><i class=\"sw\" style=\"background:%s\"></i>", i,
			comp_color(c->name));
		html_text(f, c->name);
		fprintf(f, " <small>%s in %s calls from other components</small></h3>\n",
			r->timed ? b1 : "-", b2);
		api_table(r, c, 1);
	}
	if (n == 0)
		fputs("<p>No calls recorded.</p>\n", f);
	for (i = 0; r->component && i < r->nselected; i++) {
		const struct sc_component *c = sc_agg_component(r->agg, r->selected[i]);

		if (!c)
			continue;
		fputs("<h3>Calls from ", f);
		html_text(f, c->name);
		fputs("</h3>\n", f);
		api_table(r, c, 0);
	}
	fputs("</section>\n", f);
}

/* ---- threads and processes --------------------------------------------- */

static void html_groups(const struct report *r)
{
	FILE *f = r->out;
	long double scale = 0;
	size_t i;
	char b[1024];

	for (i = 0; i < r->ngroups; i++) {
		long double w = (long double)r->groups[i].wall_ns / (long double)r->groups[i].threads;

		if (w > scale)
			scale = w;
	}
	if (scale <= 0)
		scale = 1;
	fputs("<h3>Thread groups (threads with the same start routine): effective and Wait "
	      "time per thread</h3>\n", f);
	fprintf(f, "<svg id=\"group-chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%zu\" role=\"img\" aria-label=\"thread groups\">\n",
		CH_LABEL + CH_BAR + CH_VALUE, r->ngroups * CH_ROW + 10);
	for (i = 0; i < r->ngroups; i++) {
		const struct report_group *g = &r->groups[i];
		long double eff = report_group_eff(g);
		long double wait = (long double)g->wait_ns / (long double)g->threads;
		double y = 4 + (double)i * CH_ROW;
		double we = (double)(eff * CH_BAR / scale), ww = (double)(wait * CH_BAR / scale);
		char name[128], e1[32], w1[32];

		report_fit(name, sizeof(name), g->routine, 30);
		fprintf(f, "<text x=\"0\" y=\"%.2f\">", y + CH_H - 5);
		html_text(f, name);
		fprintf(f, " \xc3\x97%" PRIu64 "</text>\n", g->threads);
		rect(f, CH_LABEL, y, we, EFF_COLOR, "effective per thread: ", g->routine,
		     (int64_t)eff, 0);
		rect(f, CH_LABEL + we, y, ww, WAIT_COLOR, "Wait per thread: ", g->routine,
		     (int64_t)wait, 0);
		report_fmt_ns(e1, sizeof(e1), eff);
		report_fmt_ns(w1, sizeof(w1), wait);
		fprintf(f, "<text x=\"%.2f\" y=\"%.2f\">%s + %s%s</text>\n", CH_LABEL + we + ww + 6,
			y + CH_H - 5, e1, w1, g->imbalance ? " \xe2\x9a\xa0" : "");
	}
	fputs("</svg>\n<div class=\"legend\"><span><i class=\"sw\" style=\"background:" EFF_COLOR
	      "\"></i>effective (not waiting)</span><span><i class=\"sw\" style=\"background:"
	      WAIT_COLOR "\"></i>Wait (blocked)</span></div>\n", f);
	for (i = 0; i < r->ngroups; i++) {
		if (!r->groups[i].imbalance)
			continue;
		report_imbalance_text(b, sizeof(b), r, &r->groups[i]);
		fputs("<p class=\"warn\">", f);
		html_text(f, b);
		fputs("</p>\n", f);
	}
}

static void html_threads(const struct report *r)
{
	static const char *const cols[] = {
		"#pid", "#tid", "name", "start routine", "#wall", "#effective", "#wait", "#attributed",
	};
	FILE *f = r->out;
	int attr = r->agg->attr_ns > 0;
	struct report_iter it = { 0, 0 };
	const struct sc_thread *t;
	const struct sc_image *im;

	fputs("<section id=\"threads\">\n<h2>Threads</h2>\n", f);
	if (r->ngroups)
		html_groups(r);
	fputs("<h3>Threads (effective = wall \xe2\x88\x92 Wait)</h3>\n"
	      "<table class=\"sortable\" id=\"thread-table\">", f);
	thead(f, cols, sizeof(cols) / sizeof(cols[0]));
	while ((t = report_next_thread(r->p, r->only, &it, &im))) {
		fprintf(f, "<tr><td class=\"n\" data-v=\"%u\">%u</td>"
			"<td class=\"n\" data-v=\"%u\">%u</td>", im->pid, im->pid, t->tid, t->tid);
		td_text(f, t->name);
		td_text(f, report_thread_routine(t));
		td_ns(f, (long double)t->wall_ns, 1);
		td_ns(f, (long double)(t->wall_ns - t->wait_ns), 1);
		td_ns(f, (long double)t->wait_ns, r->timed);
		td_ns(f, (long double)t->attr_ns, attr);
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n</section>\n", f);
}

static void html_processes(const struct report *r)
{
	static const char *const cols[] = {
		"#pid", "#ppid", "#exec", "status", "#wall", "command",
	};
	FILE *f = r->out;
	const struct sc_profile *p = r->p;
	char cmd[4096], st[32];
	size_t i;

	fputs("<section id=\"processes\">\n<h2>Processes</h2>\n"
	      "<table class=\"sortable\" id=\"process-table\">", f);
	thead(f, cols, sizeof(cols) / sizeof(cols[0]));
	for (i = 0; i < p->nimages; i++) {
		const struct sc_image *im = &p->images[i];

		if (!report_has_image(r, im))
			continue;
		report_status_label(st, sizeof(st), im);
		report_fmt_command(cmd, sizeof(cmd), im);
		fprintf(f, "<tr><td class=\"n\" data-v=\"%u\">%u</td><td class=\"n\" data-v=\"%u\">%u</td>"
			"<td class=\"n\" data-v=\"%u\">%u</td>",
			im->pid, im->pid, im->ppid, im->ppid, im->gen, im->gen);
		td_text(f, st);
		td_ns(f, (long double)im->wall_ns, im->wall_ns > 0);
		fputs("<td><code>", f);
		html_text(f, cmd);
		fputs("</code></td></tr>\n", f);
	}
	fputs("</tbody></table>\n</section>\n", f);
}

void report_html(const struct report *r)
{
	colour_order(r);
	spark_axis(r);
	html_head(r);
	html_components(r);
	html_apis(r);
	html_threads(r);
	html_processes(r);
	fprintf(r->out, "<script>\n%s</script>\n</body>\n</html>\n", js);
	free(colour_names);
	colour_names = NULL;
}
