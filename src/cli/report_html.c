/*
 * report_html.c - `scaler report --format html`: one self-contained page
 * (inline CSS and JS from report_html_assets.c; nothing fetched) with
 *   - a flame graph (an icicle: callers above callees) of the nesting tree
 *     report_stacks.c builds: process -> component with threads -> the
 *     APIs it calls -> their callees' calls out, each frame as wide as its
 *     share of the graph's total;
 *   - the component view: each component's total as a bar split into its
 *     self time, the time spent in each component it calls and the Wait
 *     (blocked) part, then the same numbers (raw and attributed) as a table;
 *   - the calls (API view) with a latency sparkline per call when the
 *     profile has histograms;
 *   - thread groups' effective vs Wait bars and the imbalance explanation,
 *     the threads, and the processes.
 * Everything is server-rendered markup sized in percent of its track, so
 * the page reads the same with JavaScript off and at any width; the script
 * adds sorting, row filters and the flame graph's zoom. A component has
 * one colour everywhere, from a hash of its name (comp_colour), so it is
 * the same in every report. Every string from the profile goes through
 * html_text(), which escapes markup characters and replaces control
 * characters and bytes that are not UTF-8.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "demangle.h"
#include "report.h"
#include "report_args.h"
#include "report_html.h"

#define WAIT_COLOR "#b9bec7"
#define EFF_COLOR "#59a14f"
#define PROCESS_COLOR "#a3acb9"
/* frame height in the flame graph, px (the CSS's .fr height plus border) */
#define FLAME_ROW 20
/* Past this many frames, frames under 1/FLAME_MAX of the total are not
 * drawn (a page of 200000 positioned boxes would not load); the graph says
 * how many it left out. */
#define FLAME_MAX 5000

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

void report_html_text(FILE *f, const char *s)
{
	html_text(f, s);
}

/* ---- colours ----------------------------------------------------------- */

struct colour {
	char hex[8];
};

/*
 * A component's colour: FNV-1a of its name, through murmur3's finaliser
 * (FNV's low bits vary little between names that differ in one place),
 * picks a hue and one of three tones, so a name gets the same colour in
 * every report without any table shared between runs. Two names can land
 * close; the tones make that rarer. All tones are light enough for the
 * frames' dark text, in light and dark mode alike.
 */
static struct colour comp_colour(const char *name)
{
	static const double sl[3][2] = { { 0.60, 0.65 }, { 0.50, 0.73 }, { 0.70, 0.81 } };
	uint32_t h = 2166136261u;
	const unsigned char *s = (const unsigned char *)name;
	double hue, sat, light, c, x, m, rgb[3];
	struct colour out;
	int i;

	for (; *s; s++)
		h = (h ^ *s) * 16777619u;
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	hue = (double)(h % 360);
	sat = sl[(h >> 12) % 3][0];
	light = sl[(h >> 12) % 3][1];
	c = (1 - (2 * light - 1 < 0 ? 1 - 2 * light : 2 * light - 1)) * sat;
	x = hue / 60;
	while (x >= 2)
		x -= 2;
	x = c * (1 - (x - 1 < 0 ? 1 - x : x - 1));
	m = light - c / 2;
	switch ((int)(hue / 60)) {
	case 0: rgb[0] = c; rgb[1] = x; rgb[2] = 0; break;
	case 1: rgb[0] = x; rgb[1] = c; rgb[2] = 0; break;
	case 2: rgb[0] = 0; rgb[1] = c; rgb[2] = x; break;
	case 3: rgb[0] = 0; rgb[1] = x; rgb[2] = c; break;
	case 4: rgb[0] = x; rgb[1] = 0; rgb[2] = c; break;
	default: rgb[0] = c; rgb[1] = 0; rgb[2] = x; break;
	}
	for (i = 0; i < 3; i++)
		rgb[i] = (rgb[i] + m) * 255 + 0.5;
	snprintf(out.hex, sizeof(out.hex), "#%02x%02x%02x", (unsigned)rgb[0] & 255,
		 (unsigned)rgb[1] & 255, (unsigned)rgb[2] & 255);
	return out;
}

/* A colour swatch for name. */
static void swatch(FILE *f, const char *name)
{
	fprintf(f, "<i class=\"sw\" style=\"background:%s\"></i>", comp_colour(name).hex);
}

/* ---- tables ------------------------------------------------------------ */

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

static void td_uint(FILE *f, unsigned v)
{
	fprintf(f, "<td class=\"n\" data-v=\"%u\">%u</td>", v, v);
}

static void td_text(FILE *f, const char *s)
{
	fputs("<td>", f);
	html_text(f, s);
	fputs("</td>", f);
}

/*
 * A component name in a table cell: it may wrap after each dot
 * (libsqlite3.|so.0) before the cell breaks it anywhere else.
 */
static void comp_text(FILE *f, const char *name)
{
	const char *dot;
	char part[4096];

	while ((dot = strchr(name, '.')) && dot[1] && (size_t)(dot - name) < sizeof(part) - 1) {
		memcpy(part, name, (size_t)(dot - name) + 1);
		part[dot - name + 1] = 0;
		html_text(f, part);
		fputs("<wbr>", f);
		name = dot + 1;
	}
	html_text(f, name);
}

/* A component name with its colour. */
static void td_comp(FILE *f, const char *name)
{
	fputs("<td class=\"c\"><span class=\"cn\">", f);
	swatch(f, name);
	comp_text(f, name);
	fputs("</span></td>", f);
}

/*
 * A sortable table's start: a scrolling wrapper (a wide table scrolls in
 * it, never the page), then a <thead> from a list of "label" (text) or
 * "#label" (numeric) columns. table_end closes both.
 */
static void table_start(FILE *f, const char *id, const char *label, const char *const *cols,
			size_t n)
{
	size_t i;

	fprintf(f, "<div class=\"tw\"><table class=\"sortable\" id=\"%s\" aria-label=\"%s\">"
		"<thead><tr>", id, label);
	for (i = 0; i < n; i++) {
		int num = cols[i][0] == '#';

		fprintf(f, "<th data-type=\"%s\"%s>", num ? "num" : "str", num ? " class=\"n\"" : "");
		html_text(f, cols[i] + num);
		fputs("</th>", f);
	}
	fputs("</tr></thead>\n<tbody>\n", f);
}

static void table_end(FILE *f)
{
	fputs("</tbody></table></div>\n", f);
}

/* ---- bars -------------------------------------------------------------- */

/*
 * A bar chart row (a grid row of .bars): a label that wraps, a track,
 * and a value. frac is the part of the track the value's text states;
 * the caller's bar_seg widths, in percent of the track, add up to it, so
 * the bar is as long as its label says. data-share lets a test compare.
 */
static void bar_start(FILE *f, const char *label, const char *suffix, double frac)
{
	fputs("<div class=\"lbl\">", f);
	html_text(f, label);
	if (suffix)
		fputs(suffix, f);
	fprintf(f, "</div><div class=\"track\" data-share=\"%.6f\">", frac);
}

static void bar_seg(FILE *f, double frac, const char *color, const char *what, const char *name,
		    int64_t ns, long double all)
{
	char b[32], pc[32];

	if (frac <= 0)
		return;
	report_fmt_ns(b, sizeof(b), (long double)ns);
	fprintf(f, "<span class=\"seg\" style=\"width:%.4f%%;background:%s\" title=\"", frac * 100,
		color);
	html_text(f, what);
	html_text(f, name);
	fprintf(f, ": %s", b);
	if (all > 0) {
		report_fmt_pct(pc, sizeof(pc), (long double)ns, all);
		fprintf(f, " (%s)", pc);
	}
	fputs("\"></span>", f);
}

static void bar_end(FILE *f, const char *value)
{
	fprintf(f, "</div><div class=\"val\">%s</div>\n", value);
}

/* ---- head ---------------------------------------------------------------- */

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
	      "<meta name=\"color-scheme\" content=\"light dark\">\n"
	      "<title>scaler report: ", f);
	html_text(f, cmd);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<header>\n<h1>scaler report</h1>\n"
		"<p class=\"sub\"><code>", report_html_css);
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
	fputs("</p>\n<nav><a href=\"#flame\">Flame graph</a><a href=\"#components\">Components</a>"
	      "<a href=\"#calls\">Calls</a><a href=\"#threads\">Threads</a>"
	      "<a href=\"#processes\">Processes</a></nav>\n</header>\n", f);
}

/* ---- flame graph --------------------------------------------------------- */

/* A frame's hover text: its name, value, shares and calls. */
static void frame_title(FILE *f, const struct report *r, const struct stack_node *n,
			const struct stack_node *parent, uint64_t v, uint64_t total)
{
	enum report_weight w = r->timed ? WEIGHT_TIME : WEIGHT_COUNT;
	char b[64], pc[32], label[4096];

	report_stack_label(n, label, sizeof(label));
	html_text(f, label);
	if (r->timed)
		report_fmt_ns(b, sizeof(b), (long double)v);
	else
		report_fmt_count(b, sizeof(b), v);
	report_fmt_pct(pc, sizeof(pc), (long double)v, (long double)total);
	fprintf(f, "&#10;%s%s, %s of the graph", b, r->timed ? "" : " calls", pc);
	if (parent) {
		report_fmt_pct(pc, sizeof(pc), (long double)v,
			       (long double)report_stack_total(parent, w));
		fprintf(f, ", %s of its caller", pc);
	}
	if (r->timed) {
		report_fmt_ns(b, sizeof(b), (long double)report_clamp0(n->self_ns));
		fprintf(f, "; self %s", b);
	}
	if (n->kind == STACK_API) {
		report_fmt_count(b, sizeof(b), n->count);
		fprintf(f, "; %s call%s", b, n->count == 1 ? "" : "s");
		if (n->call) {
			fputs(" from ", f);
			html_text(f, n->call->caller);
		}
	}
}

/*
 * The icicle: one absolutely placed box per frame, left and width in
 * percent of the graph's total (the sum of its processes), top by depth.
 * A frame's children start at its left edge, in the tree's order, so
 * they sit under it within its width. data-i/e/l/v carry a frame's
 * index, subtree end, offset and value for the script's zoom; data-total
 * the graph's total. Untimed profiles weigh frames by calls.
 */
static void html_flame(const struct report *r)
{
	FILE *f = r->out;
	enum report_weight w = r->timed ? WEIGHT_TIME : WEIGHT_COUNT;
	struct stack_tree t;
	uint64_t total = 0, min = 0, *left, *cursor;
	unsigned maxdepth = 0;
	size_t i, drawn = 0;

	report_stacks(r, &t);
	for (i = 0; i < t.n; i++)
		if (t.nodes[i].parent == STACK_NONE)
			total += report_stack_total(&t.nodes[i], w);
	fprintf(f, "<section id=\"flame\">\n<h2>Flame graph: where the %s go%s</h2>\n",
		r->timed ? "time" : "calls", r->timed ? "es" : "");
	if (total == 0) {
		fputs("<p>No nesting recorded.</p>\n</section>\n", f);
		report_stacks_free(&t);
		return;
	}
	if (t.n > FLAME_MAX)
		min = total / FLAME_MAX;
	left = report_xcalloc(t.n, sizeof(*left));
	cursor = report_xcalloc(t.n + 1, sizeof(*cursor));
	for (i = 0; i < t.n; i++) {
		const struct stack_node *n = &t.nodes[i];
		uint64_t *at = n->parent == STACK_NONE ? &cursor[t.n] : &cursor[n->parent];

		left[i] = cursor[i] = *at;
		*at += report_stack_total(n, w);
		if (report_stack_total(n, w) >= min) {
			drawn++;
			if (n->depth > maxdepth)
				maxdepth = n->depth;
		}
	}
	fprintf(f, "<p class=\"note\">An icicle graph of who calls whom: each process on top, "
		"the components running its threads under it, then the APIs each calls and, under "
		"an API, its component's own calls out. A frame is as wide as its share of %s; "
		"the percentage on a frame is its width. Where a component's calls out sit among "
		"the APIs that called it is estimated%s.</p>\n",
		r->timed ? "all the threads' time" : "all the calls",
		r->timed ? " from their nested time" : "");
	fprintf(f, "<div class=\"flame-bar\"><button type=\"button\" id=\"flame-out\" hidden>"
		"Zoom out</button><div id=\"flame-detail\">Hover a frame for its figures."
		"</div></div>\n"
		"<div class=\"flame\" id=\"flame-graph\" role=\"img\" aria-label=\"flame graph\" "
		"data-total=\"%" PRIu64 "\" data-nodes=\"%zu\" data-drawn=\"%zu\" "
		"style=\"height:%upx\">\n", total, t.n, drawn, (maxdepth + 1) * FLAME_ROW);
	for (i = 0; i < t.n; i++) {
		const struct stack_node *n = &t.nodes[i];
		const struct stack_node *parent = n->parent == STACK_NONE ? NULL : &t.nodes[n->parent];
		uint64_t v = report_stack_total(n, w);
		char pc[32], dem[4096];

		if (v < min)
			continue;
		report_fmt_pct(pc, sizeof(pc), (long double)v, (long double)total);
		fprintf(f, "<div class=\"fr\" data-i=\"%zu\" data-e=\"%zu\" data-l=\"%" PRIu64 "\" "
			"data-v=\"%" PRIu64 "\" data-d=\"%u\" data-k=\"%s\" style=\"left:%.6f%%;"
			"width:%.6f%%;top:%upx;background:%s\" title=\"", i, n->end, left[i], v,
			n->depth, n->kind == STACK_PROCESS ? "process" :
			n->kind == STACK_COMPONENT ? "component" : "api",
			(double)left[i] * 100 / (double)total, (double)v * 100 / (double)total,
			n->depth * FLAME_ROW,
			n->kind == STACK_PROCESS ? PROCESS_COLOR : comp_colour(n->component).hex);
		frame_title(f, r, n, parent, v, total);
		fputs("\">", f);
		if (n->kind == STACK_PROCESS) {
			report_stack_label(n, dem, sizeof(dem));
			html_text(f, dem);
		} else {
			html_text(f, n->kind == STACK_API ? sc_demangle(n->name, dem, sizeof(dem))
							  : n->name);
		}
		fprintf(f, "<span class=\"p\">%s</span></div>\n", pc);
	}
	fputs("</div>\n", f);
	if (drawn < t.n || t.truncated)
		fprintf(f, "<p class=\"note\">%zu of %zu frames drawn%s%s.</p>\n", drawn, t.n,
			min ? ": frames under 0.02% of the total are left out" : "",
			t.truncated ? "; the tree was cut at its node limit" : "");
	fputs("</section>\n", f);
	free(cursor);
	free(left);
	report_stacks_free(&t);
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
		/* each call's part of the edge (model.h: edge_ns) */
		*attr = sc_add_sat(*attr, sc_call_on_edge(c, c->attr_ns));
		*wait = sc_add_sat(*wait, sc_call_on_edge(c, c->wait_ns > 0 ? c->wait_ns
							  : c->wait ? c->total_ns : 0));
	}
}

/* One legend entry per colour the chart shows. */
static void legend_add(const char **names, size_t *n, const char *name)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp(names[i], name))
			return;
	names[(*n)++] = name;
}

/*
 * Each component's bar: 100% of the track is all threads' time (what the
 * percentages are of), and the bar is as long as the component's total.
 * Its segments (self, then time in each callee, then the Wait part) are
 * estimates that need not add up to the total: they are scaled to it, so
 * the bar's length is the value its label states. A total past 100% (a
 * component with threads that is also called into) fills the track.
 */
static void html_chart(const struct report *r)
{
	FILE *f = r->out;
	long double all = (long double)r->agg->threads_ns;
	const char **legend = report_xcalloc(r->agg->ncomp + 1, sizeof(*legend));
	size_t i, e, nlegend = 0;
	int any_wait = 0;

	if (all <= 0)
		all = 1;
	fputs("<div class=\"bars\" id=\"component-chart\" role=\"img\" aria-label=\"component view\">\n", f);
	for (i = 0; i < r->ncomp; i++) {
		const struct sc_component *c = r->comp[i];
		long double sum = (long double)report_clamp0(c->self_ns), scale;
		double frac = (double)((long double)c->total_ns / all);
		char b[32], pc[32], val[80];

		for (e = 0; e < c->nout; e++)
			sum += (long double)c->out[e].ns;
		if (frac > 1)
			frac = 1;
		scale = sum > 0 ? (long double)frac / sum : 0;
		report_fmt_ns(b, sizeof(b), (long double)c->total_ns);
		report_fmt_pct(pc, sizeof(pc), (long double)c->total_ns, all);
		snprintf(val, sizeof(val), "%s (%s)", b, pc);
		bar_start(f, c->name, NULL, frac);
		if (c->self_ns > 0) {
			bar_seg(f, (double)((long double)c->self_ns * scale), comp_colour(c->name).hex,
				"self: ", c->name, c->self_ns, all);
			legend_add(legend, &nlegend, c->name);
		}
		for (e = 0; e < c->nout; e++) {
			const struct sc_edge *ed = &c->out[e];
			int64_t attr, wait;

			edge_times(r, c->name, ed->callee, &attr, &wait);
			if (ed->unseen)
				wait = 0;       /* the calls' Wait is the seen edge's */
			if (wait > ed->ns)
				wait = ed->ns;
			if (ed->ns - wait > 0) {
				bar_seg(f, (double)((long double)(ed->ns - wait) * scale),
					comp_colour(ed->callee).hex,
					ed->unseen ? UNSEEN_NOTE ": in " : "in ", ed->callee,
					ed->ns - wait, all);
				legend_add(legend, &nlegend, ed->callee);
			}
			if (wait > 0) {
				bar_seg(f, (double)((long double)wait * scale), WAIT_COLOR,
					"Wait (blocked) in ", ed->callee, wait, all);
				any_wait = 1;
			}
		}
		bar_end(f, val);
	}
	fputs("</div>\n<div class=\"legend\">", f);
	for (i = 0; i < nlegend; i++) {
		fputs("<span>", f);
		swatch(f, legend[i]);
		html_text(f, legend[i]);
		fputs("</span>", f);
	}
	if (any_wait)
		fputs("<span><i class=\"sw\" style=\"background:" WAIT_COLOR "\"></i>Wait (blocked)</span>", f);
	free(legend);
	fputs("</div>\n<p class=\"note\">Each bar is a component's total time, in percent of all "
	      "threads' time: its own (self) time in its colour, then the time spent in each "
	      "component it calls, in that component's colour; grey is time blocked in waiting "
	      "APIs.</p>\n", f);
}

/* The components entered where nothing intercepts (model.h:
 * unseen_in_ns), each a line under the table. */
static void html_unseen(const struct report *r)
{
	FILE *f = r->out;
	char b[32];

	for (size_t i = 0; i < r->ncomp; i++) {
		const struct sc_component *c = r->comp[i];

		if (c->unseen_in_ns <= 0)
			continue;
		report_fmt_ns(b, sizeof(b), (long double)c->unseen_in_ns);
		fputs("<p class=\"note unseen\">", f);
		html_text(f, c->name);
		fprintf(f, ": %s " UNSEEN_NOTE " (its calls out while so entered are taken off "
			"the self time of the components running threads)</p>\n", b);
	}
}

static void html_components(const struct report *r)
{
	static const char *const cols[] = {
		"component", "#total", "#%", "#work", "#%", "#Wait inside", "#%", "#attributed total", "#%",
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
	table_start(f, "component-table", "components", cols, sizeof(cols) / sizeof(cols[0]));
	for (i = 0; i < r->ncomp; i++) {
		const struct sc_component *c = r->comp[i];

		fputs("<tr>", f);
		td_comp(f, c->name);
		td_ns(f, (long double)c->total_ns, r->timed);
		td_pct(f, (long double)c->total_ns, all);
		td_ns(f, (long double)report_comp_work(c), r->timed);
		td_pct(f, (long double)report_comp_work(c), all);
		td_ns(f, (long double)(report_clamp0(c->self_ns) - report_comp_work(c)), r->timed);
		td_pct(f, (long double)(report_clamp0(c->self_ns) - report_comp_work(c)), all);
		td_ns(f, (long double)c->attr_total_ns, attr);
		td_pct(f, (long double)c->attr_total_ns, crit);
		td_ns(f, (long double)report_clamp0(c->attr_self_ns), attr);
		td_pct(f, (long double)report_clamp0(c->attr_self_ns), crit);
		td_count(f, c->in_calls);
		td_count(f, c->out_calls);
		fputs("</tr>\n", f);
	}
	table_end(f);
	html_unseen(r);
	fputs("</section>\n", f);
}

/* ---- calls (API view) -------------------------------------------------- */

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
	bw = 64.0 / (spark_hi - spark_lo + 1);
	fprintf(f, "<td class=\"n\" data-v=\"%" PRId64 "\"><svg class=\"spark\" width=\"64\" "
		"height=\"18\" xmlns=\"http://www.w3.org/2000/svg\"><line x1=\"0\" y1=\"17.5\" "
		"x2=\"64\" y2=\"17.5\"/>", c->p50_ns);
	for (i = spark_lo; i <= spark_hi; i++) {
		double h = 1 + 16.0 * (double)c->hist[i] / (double)max;
		char a[32], b[32];

		if (!c->hist[i])
			continue;
		bucket_range(a, b, sizeof(a), i, i);
		fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\">"
			"<title>%s \xe2\x80\x93 %s: %" PRIu64 " calls</title></rect>",
			(i - spark_lo) * bw, 18 - h, bw > 1.5 ? bw - 0.5 : bw, h,
			comp_colour(c->callee).hex, a, b, c->hist[i]);
	}
	fputs("</svg></td>", f);
}

/* Every shown call in one table: the API, the component it runs in and
 * the one that called it; "% in" is its part of its callee's incoming
 * time. */
static void html_calls(const struct report *r)
{
	static const char *const cols[] = {
		"api", "component", "from", "#calls", "#total", "#% in", "#self", "#wait",
		"#attributed", "#avg", "#p50", "#p99", "#max", "#latency",
	};
	FILE *f = r->out;
	int attr = r->agg->attr_ns > 0;
	size_t k;

	fputs("<section id=\"calls\">\n<h2>API view: calls between components</h2>\n", f);
	if (r->ncalls == 0) {
		fputs("<p>No calls recorded.</p>\n</section>\n", f);
		return;
	}
	if (spark_hi >= spark_lo) {
		char lo[32], hi[32];

		bucket_range(lo, hi, sizeof(lo), spark_lo, spark_hi);
		fprintf(f, "<p class=\"note\">latency: calls per duration, on one log scale "
			"from %s (left) to %s (right) for every row.</p>\n", lo, hi);
	}
	table_start(f, "call-table", "calls", cols, sizeof(cols) / sizeof(cols[0]));
	for (k = 0; k < r->ncalls; k++) {
		const struct sc_call *call = r->calls[k];
		const struct sc_component *callee = sc_agg_component(r->agg, call->callee);
		int hist = report_has_hist(call), internal = !strcmp(call->caller, call->callee);

		if (internal && call->function)
			continue;       /* time inside its component: html_functions */

		fprintf(f, "<tr%s><td class=\"api\" title=\"", call->wait ? " class=\"wait\"" : "");
		html_text(f, call->symbol ? call->symbol : call->api);
		fputs("\">", f);
		html_text(f, call->api);
		if (call->wait)
			fputs(" <small>(Wait)</small>", f);
		fputs("</td>", f);
		td_comp(f, call->callee);
		fputs("<td class=\"c\">", f);
		comp_text(f, call->caller);
		fputs("</td>", f);
		td_count(f, call->count);
		td_ns(f, (long double)call->total_ns, r->timed);
		if (callee && !internal && r->timed)
			td_pct(f, (long double)call->total_ns, (long double)callee->in_ns);
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
		fputs("</tr>\n", f);
	}
	table_end(f);
	fputs("</section>\n", f);
}

/* Argument and return values (--args), one row per value of a shown call:
 * its range, mean and the buckets holding most of its calls in words. */
static void html_values(const struct report *r)
{
	static const char *const cols[] = {
		"api", "component", "from", "value", "#calls", "#min", "#max", "#mean",
		"distribution",
	};
	FILE *f = r->out;
	char b[600];
	size_t k;

	for (k = 0; k < r->ncalls && !r->calls[k]->nargs; k++)
		;
	if (k == r->ncalls)
		return;
	fputs("<section id=\"values\">\n<h2>Values: arguments and return values of timed "
	      "calls (--args)</h2>\n<p class=\"note\">calls estimated from the timed ones, "
	      "as the times are; log2 buckets.</p>\n", f);
	table_start(f, "value-table", "values", cols, sizeof(cols) / sizeof(cols[0]));
	for (k = 0; k < r->ncalls; k++) {
		const struct sc_call *call = r->calls[k];

		for (uint32_t i = 0; i < call->nargs; i++) {
			const struct sc_argdist *d = &call->args[i];

			fputs("<tr><td class=\"api\">", f);
			html_text(f, call->api);
			fputs("</td>", f);
			td_comp(f, call->callee);
			fputs("<td class=\"c\">", f);
			comp_text(f, call->caller);
			fputs("</td><td>", f);
			html_text(f, d->name);
			fputs("</td>", f);
			td_count(f, (uint64_t)llroundl(d->calls));
			if (d->flags & (SC_ARGV_DISTINCT | SC_ARGV_ERRNO)) {
				/* a count of addresses or of failures: no range */
				fputs("<td class=\"n\" data-v=\"0\">-</td><td class=\"n\" "
				      "data-v=\"0\">-</td><td class=\"n\" data-v=\"0\">-</td><td>", f);
				report_args_phrase(b, sizeof(b), d);
				html_text(f, b);
				fputs("</td></tr>\n", f);
				continue;
			}
			report_args_value(b, sizeof(b), d, d->min);
			fprintf(f, "<td class=\"n\" data-v=\"%s\">%s</td>", b, b);
			report_args_value(b, sizeof(b), d, d->max);
			fprintf(f, "<td class=\"n\" data-v=\"%s\">%s</td>", b, b);
			fprintf(f, "<td class=\"n\" data-v=\"%.3Lf\">%.1Lf</td><td>",
				sc_argdist_mean(d), sc_argdist_mean(d));
			report_args_phrase(b, sizeof(b), d);
			html_text(f, b);
			fputs("</td></tr>\n", f);
		}
	}
	table_end(f);
	fputs("</section>\n", f);
}

/* ---- the kernel below the APIs (record --kernel) ------------------------ */

#define USER_COLOR "#4e79a7"
#define KERNEL_COLOR "#e15759"
#define PREEMPT_COLOR "#f28e2b"
#define KERNEL_TOP 5            /* kernel functions listed per API */

/* A cell of call c's kernel functions fn[idx[0..n)], each with its share
 * of c's time. */
static void kfuncs_cell(FILE *f, const struct sc_call *c, const struct sc_call_kfunc *fn,
			const size_t *idx, size_t n)
{
	char pc[32];

	fputs("<td>", f);
	for (size_t i = 0; i < n; i++) {
		report_fmt_pct(pc, sizeof(pc), (long double)fn[idx[i]].ns, (long double)c->total_ns);
		fputs(i ? ", " : "", f);
		html_text(f, fn[idx[i]].name);
		fprintf(f, " %s", pc);
	}
	fputs("</td>", f);
}

/* Each API row that spends some of its time in the kernel: its time as a
 * stacked bar (user, kernel, blocked, preempted: the bar is the call's
 * whole time) and its top kernel functions. */
static void html_kernel(const struct report *r)
{
	static const char *const cols[] = {
		"api", "from", "#total", "#user", "#kernel", "#blocked", "#preempted",
		"kernel functions (share of the API's time)", "blocked in",
	};
	FILE *f = r->out;
	size_t k, n = 0;

	for (k = 0; k < r->ncalls; k++)
		n += r->timed && report_kernel_shown(r->calls[k]);
	if (!n)
		return;
	fputs("<section id=\"kernel\">\n<h2>Kernel: the APIs' time below the system call</h2>\n"
	      "<p class=\"note\">each bar is one API's whole time, as measured by the kernel "
	      "(record --kernel); functions by inclusive time, largest first</p>\n"
	      "<div class=\"bars\" id=\"kernel-chart\" role=\"img\" aria-label=\"kernel split\">\n", f);
	for (k = 0; k < r->ncalls; k++) {
		const struct sc_call *c = r->calls[k];
		struct report_ksplit s;
		char label[512], val[32];
		double all = (double)c->total_ns;

		if (!report_kernel_shown(c))
			continue;
		report_kernel_split(c, &s);
		snprintf(label, sizeof(label), "%s \xe2\x86\x90 %s", c->api, c->caller);
		bar_start(f, label, NULL, 1.0);
		bar_seg(f, (double)s.user / all, USER_COLOR, "user: ", c->api, s.user, all);
		bar_seg(f, (double)s.kernel / all, KERNEL_COLOR, "kernel: ", c->api, s.kernel, all);
		bar_seg(f, (double)s.blocked / all, WAIT_COLOR, "blocked: ", c->api, s.blocked, all);
		bar_seg(f, (double)s.preempted / all, PREEMPT_COLOR, "preempted: ", c->api,
			s.preempted, all);
		report_fmt_ns(val, sizeof(val), all);
		bar_end(f, val);
	}
	fputs("</div>\n<div class=\"legend\">"
	      "<span><i class=\"sw\" style=\"background:" USER_COLOR "\"></i>user</span>"
	      "<span><i class=\"sw\" style=\"background:" KERNEL_COLOR "\"></i>kernel (on CPU)</span>"
	      "<span><i class=\"sw\" style=\"background:" WAIT_COLOR "\"></i>blocked</span>"
	      "<span><i class=\"sw\" style=\"background:" PREEMPT_COLOR "\"></i>preempted "
	      "(runnable)</span></div>\n", f);
	table_start(f, "kernel-table", "kernel split", cols, sizeof(cols) / sizeof(cols[0]));
	for (k = 0; k < r->ncalls; k++) {
		const struct sc_call *c = r->calls[k];
		struct report_ksplit s;
		size_t idx[KERNEL_TOP], nf;

		if (!report_kernel_shown(c))
			continue;
		report_kernel_split(c, &s);
		nf = report_kernel_chain(c, idx, KERNEL_TOP);
		fputs("<tr>", f);
		td_text(f, c->api);
		fputs("<td class=\"c\">", f);
		comp_text(f, c->caller);
		fputs("</td>", f);
		td_ns(f, (long double)c->total_ns, 1);
		td_ns(f, (long double)s.user, 1);
		td_ns(f, (long double)s.kernel, c->measured > 1);
		td_ns(f, (long double)s.blocked, 1);
		td_ns(f, (long double)s.preempted, 1);
		kfuncs_cell(f, c, c->kfuncs, idx, nf);
		/* where its blocked time was spent */
		nf = report_kernel_off_chain(c, idx, KERNEL_TOP);
		kfuncs_cell(f, c, c->okfuncs, idx, nf);
		fputs("</tr>\n", f);
	}
	table_end(f);
	fputs("</section>\n", f);
}

/* ---- threads and processes --------------------------------------------- */

/* Effective and Wait time per thread of each group, on one scale: the
 * longest group's wall time per thread is the full track. */
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
	      "time per thread</h3>\n<div class=\"bars\" id=\"group-chart\" role=\"img\" "
	      "aria-label=\"thread groups\">\n", f);
	for (i = 0; i < r->ngroups; i++) {
		const struct report_group *g = &r->groups[i];
		long double eff = report_group_eff(g);
		long double wait = (long double)g->wait_ns / (long double)g->threads;
		char e1[32], w1[32], val[96], n[32];

		if (eff < 0)
			eff = 0;
		snprintf(n, sizeof(n), " \xc3\x97%" PRIu64, g->threads);
		bar_start(f, g->routine, n, (double)((eff + wait) / scale));
		bar_seg(f, (double)(eff / scale), EFF_COLOR, "effective per thread: ", g->routine,
			(int64_t)eff, 0);
		bar_seg(f, (double)(wait / scale), WAIT_COLOR, "Wait per thread: ", g->routine,
			(int64_t)wait, 0);
		report_fmt_ns(e1, sizeof(e1), eff);
		report_fmt_ns(w1, sizeof(w1), wait);
		snprintf(val, sizeof(val), "%s + %s%s", e1, w1, g->imbalance ? " \xe2\x9a\xa0" : "");
		bar_end(f, val);
	}
	fputs("</div>\n<div class=\"legend\"><span><i class=\"sw\" style=\"background:" EFF_COLOR
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
	fputs("<h3>Threads (effective = wall \xe2\x88\x92 Wait)</h3>\n", f);
	table_start(f, "thread-table", "threads", cols, sizeof(cols) / sizeof(cols[0]));
	while ((t = report_next_thread(r->p, r->only, &it, &im))) {
		fputs("<tr>", f);
		td_uint(f, im->pid);
		td_uint(f, t->tid);
		td_text(f, t->name);
		td_text(f, report_thread_routine(t));
		td_ns(f, (long double)t->wall_ns, 1);
		td_ns(f, (long double)(t->wall_ns - t->wait_ns), 1);
		td_ns(f, (long double)t->wait_ns, r->timed);
		td_ns(f, (long double)t->attr_ns, attr);
		fputs("</tr>\n", f);
	}
	table_end(f);
	fputs("</section>\n", f);
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

	fputs("<section id=\"processes\">\n<h2>Processes</h2>\n", f);
	table_start(f, "process-table", "processes", cols, sizeof(cols) / sizeof(cols[0]));
	for (i = 0; i < p->nimages; i++) {
		const struct sc_image *im = &p->images[i];

		if (!report_has_image(r, im))
			continue;
		report_status_label(st, sizeof(st), im);
		report_fmt_command(cmd, sizeof(cmd), im);
		fputs("<tr>", f);
		td_uint(f, im->pid);
		td_uint(f, im->ppid);
		td_uint(f, im->gen);
		td_text(f, st);
		td_ns(f, (long double)im->wall_ns, im->wall_ns > 0);
		fputs("<td><code>", f);
		html_text(f, cmd);
		fputs("</code></td></tr>\n", f);
	}
	table_end(f);
	fputs("</section>\n", f);
}

/* One row of the function table: a function, or (clone) one symbol of it. */
static void function_row(FILE *f, const struct report *r, const struct sc_component *c,
			 const char *name, const char *title, const struct report_fn_figures *g,
			 int clone)
{
	int timed = r->timed && g->timed > 0;

	fprintf(f, "<tr%s><td class=\"api\" title=\"", clone ? " class=\"clone\"" : "");
	html_text(f, title);
	fputs("\">", f);
	if (clone)
		fputs("\xe2\x86\xb3 ", f);
	html_text(f, name);
	fputs("</td>", f);
	td_comp(f, c->name);
	fputs("<td class=\"c\">", f);
	html_text(f, g->callers_many ? "several components" : g->caller);
	fputs("</td>", f);
	td_count(f, g->count);
	td_ns(f, (long double)g->total_ns, timed);
	td_ns(f, (long double)g->run_ns, timed);
	if (timed && report_comp_run_ns(r, c) > 0)
		td_pct(f, (long double)g->run_ns, (long double)report_comp_run_ns(r, c));
	else
		fputs("<td class=\"n\" data-v=\"-1\">-</td>", f);
	td_ns(f, (long double)g->p50_ns, g->has_hist);
	td_ns(f, (long double)g->p99_ns, g->has_hist);
	fputs("</tr>\n", f);
}

/*
 * The function view (--functions): each component's self time by its
 * patched functions, every caller summed; a function with clones is
 * followed by one row per symbol (report_functions.c).
 */
static void html_functions(const struct report *r)
{
	static const char *const cols[] = {
		"function", "component", "from", "#calls", "#incl", "#excl", "#% self", "#p50",
		"#p99",
	};
	FILE *f = r->out;
	size_t i, k, p, n;
	int any = 0;

	for (i = 0; i < r->ncomp; i++) {
		const struct sc_component *c = r->comp[i];
		struct report_fn *fn;

		if (!report_comp_selected(r, c->name))
			continue;
		n = report_functions(r, c->name, &fn);
		if (n && !any) {
			fputs("<section id=\"functions\">\n<h2>Function view: each component's self "
			      "time by its patched functions</h2>\n<p class=\"note\">-: none of "
			      "its calls was timed.</p>\n", f);
			table_start(f, "function-table", "functions", cols,
				    sizeof(cols) / sizeof(cols[0]));
			any = 1;
		}
		for (k = 0; k < n; k++) {
			function_row(f, r, c, fn[k].name, fn[k].name, &fn[k].fig, 0);
			if (fn[k].nparts == 1 && !*fn[k].parts[0].suffix)
				continue;
			for (p = 0; p < fn[k].nparts; p++)
				function_row(f, r, c, fn[k].parts[p].api, fn[k].parts[p].symbol,
					     &fn[k].parts[p].fig, 1);
		}
		report_functions_free(fn, n);
	}
	if (any) {
		table_end(f);
		fputs("</section>\n", f);
	}
}

void report_html(const struct report *r)
{
	spark_axis(r);
	html_head(r);
	html_flame(r);
	html_components(r);
	html_calls(r);
	html_values(r);
	html_kernel(r);
	html_functions(r);
	if (r->series)
		report_html_series(r);
	html_threads(r);
	html_processes(r);
	fprintf(r->out, "<script>\n%s</script>\n</body>\n</html>\n", report_html_js);
}
