/*
 * diff_write.c - the outputs of `scaler diff` (diff_write.h): text for
 * people, JSON for programs ("format": "scaler-diff", version 1; keys are
 * only ever added) and one self-contained HTML page.
 */
#include "diff_write.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "json.h"
#include "report.h"

/* ---- JSON ------------------------------------------------------------------ */

/* A number: an integer when it is one, else 6 significant digits; null
 * when not finite. */
static void jnum(FILE *o, double v)
{
	if (!isfinite(v))
		fputs("null", o);
	else if (v == floor(v) && fabs(v) < 9e15)
		fprintf(o, "%.0f", v);
	else
		fprintf(o, "%.6g", v);
}

static void jkey(FILE *o, int *first, const char *k)
{
	fputs(*first ? "" : ",", o);
	*first = 0;
	sc_json_write_string(o, k);
	fputc(':', o);
}

static void jstr(FILE *o, const char *s)
{
	if (s)
		sc_json_write_string(o, s);
	else
		fputs("null", o);
}

/* "key": value, for a number, a string (or null) and a boolean */
static void jfnum(FILE *o, int *first, const char *k, double v)
{
	jkey(o, first, k);
	jnum(o, v);
}

static void jfstr(FILE *o, int *first, const char *k, const char *v)
{
	jkey(o, first, k);
	jstr(o, v);
}

static void jfbool(FILE *o, int *first, const char *k, int v)
{
	jkey(o, first, k);
	fputs(v ? "true" : "false", o);
}

static void json_figs(FILE *o, const struct diff_finding *f, const struct diff_figs *g, int timed)
{
	int first = 1;

	fputc('{', o);
	jkey(o, &first, f->kind == DIFF_THREADS ? "threads" :
			f->kind == DIFF_PROCESSES ? "processes" : "calls");
	jnum(o, g->calls);
	if (f->kind == DIFF_CALL) {
		jfnum(o, &first, "calls_per_work", g->per_work >= 0 ? g->per_work : NAN);
	}
	if (timed) {
		jkey(o, &first, f->kind == DIFF_CALL || f->kind == DIFF_COMPONENT ? "total_ns"
									  : "threads_ns");
		jnum(o, round(g->total_ns));
		if (f->kind == DIFF_CALL || f->kind == DIFF_COMPONENT) {
			jfnum(o, &first, "self_ns", round(g->self_ns));
			jfnum(o, &first, "wait_ns", round(g->wait_ns));
			jfnum(o, &first, "attr_ns", round(g->attr_ns));
		}
		if (f->kind == DIFF_CALL) {
			jfnum(o, &first, "mean_ns", round(g->mean_ns));
			jfnum(o, &first, "p50_ns", (double)g->p50_ns);
			jfnum(o, &first, "p99_ns", (double)g->p99_ns);
			jfnum(o, &first, "max_ns", (double)g->max_ns);
			jfnum(o, &first, "timed", g->timed);
			jkey(o, &first, "hist");
			fputc('[', o);
			int any = 0;
			for (int b = 0; b < SC_HIST_BUCKETS; b++) {
				if (g->hist[b] <= 0)
					continue;
				fprintf(o, "%s[%" PRIu64 ",", any++ ? "," : "", sc_hist_lo_ns(b));
				if (b + 1 < SC_HIST_BUCKETS)
					fprintf(o, "%" PRIu64, sc_hist_lo_ns(b + 1));
				else
					fputs("null", o);
				fputc(',', o);
				jnum(o, round(g->hist[b]));
				fputc(']', o);
			}
			fputc(']', o);
		}
	}
	fputc('}', o);
}

static void json_tests(FILE *o, const struct diff_finding *f)
{
	int first = 1;

	fputc('{', o);
	for (int s = 0; s < DS_NSCALAR; s++) {
		const struct diff_scalar *x = &f->scalar[s];
		int k = 1;
		if (!x->tested)
			continue;
		jkey(o, &first, diff_scalar_name((enum diff_scalar_id)s));
		fputc('{', o);
		jfnum(o, &k, "ratio", x->r.ratio);
		jfnum(o, &k, "stat", x->r.stat);
		jfnum(o, &k, "p", x->r.p);
		jfnum(o, &k, "size", x->r.size);
		jfbool(o, &k, "significant", x->significant);
		fputc('}', o);
	}
	fputc('}', o);
}

static void json_dists(FILE *o, const struct diff_finding *f)
{
	fputc('[', o);
	for (size_t d = 0; d < f->ndist; d++) {
		const struct diff_dist *x = &f->dist[d];
		int k = 1;
		fputs(d ? ",{" : "{", o);
		jfstr(o, &k, "name", x->name);
		jfstr(o, &k, "unit", x->unit);
		jfbool(o, &k, "tested", x->tested);
		jfnum(o, &k, "anderson_darling", x->tested ? x->ad.t : NAN);
		jfnum(o, &k, "critical_05", x->tested ? x->ad.crit05 : NAN);
		jfnum(o, &k, "p", x->tested ? x->ad.p : NAN);
		jfnum(o, &k, "hellinger", x->hellinger);
		jfnum(o, &k, "hellinger_within", x->within);
		jfbool(o, &k, "significant", x->significant);
		fputc('}', o);
	}
	fputc(']', o);
}

static void json_dirs(FILE *o, const struct diff_side *s)
{
	fputc('[', o);
	for (size_t i = 0; i < s->nruns; i++) {
		fputs(i ? "," : "", o);
		sc_json_write_string(o, s->runs[i].dir);
	}
	fputc(']', o);
}

void diff_json(FILE *o, const struct diff_result *r, const struct diff_side *base,
	       const struct diff_side *new_)
{
	int first = 1;

	fputc('{', o);
	jfstr(o, &first, "format", "scaler-diff");
	jkey(o, &first, "version");
	fputc('1', o);
	jkey(o, &first, "base");
	json_dirs(o, base);
	jkey(o, &first, "new");
	json_dirs(o, new_);
	jfbool(o, &first, "timed", r->timed);
	jfnum(o, &first, "alpha", r->alpha);
	jkey(o, &first, "work");
	if (r->work_api) {
		int k = 1;
		fputc('{', o);
		jfstr(o, &k, "caller", r->work_caller);
		jfstr(o, &k, "callee", r->work_callee);
		jfstr(o, &k, "api", r->work_api);
		jfnum(o, &k, "base", r->work_base);
		jfnum(o, &k, "new", r->work_new);
		fputc('}', o);
	} else {
		fputs("null", o);
	}
	jkey(o, &first, "findings");
	fputc('[', o);
	for (size_t i = 0; i < r->n; i++) {
		const struct diff_finding *f = &r->f[i];
		int k = 1;
		fputs(i ? ",{" : "{", o);
		jfnum(o, &k, "rank", (double)f->rank);
		jfstr(o, &k, "kind", diff_kind_name(f->kind));
		jfstr(o, &k, "caller", f->caller);
		jfstr(o, &k, "callee", f->callee);
		jfstr(o, &k, "api", f->api);
		jfbool(o, &k, "significant", f->significant);
		jfnum(o, &k, "score", round(f->score));
		jfnum(o, &k, "raw", round(f->raw));
		jfnum(o, &k, "discount", f->discount);
		jfstr(o, &k, "pattern", f->pattern);
		jfstr(o, &k, "vprof", f->vprof);
		jkey(o, &k, "base");
		json_figs(o, f, &f->base, r->timed);
		jkey(o, &k, "new");
		json_figs(o, f, &f->new_, r->timed);
		jkey(o, &k, "tests");
		json_tests(o, f);
		jkey(o, &k, "distributions");
		json_dists(o, f);
		fputc('}', o);
	}
	fputs("]}\n", o);
}

/* ---- text ------------------------------------------------------------------ */

/* "caller -> callee api", "component X", "threads", "processes" */
static void where(char *b, size_t n, const struct diff_finding *f)
{
	switch (f->kind) {
	case DIFF_CALL:
		/* the model's api is already demangled */
		snprintf(b, n, "%s -> %s  %s", f->caller, f->callee, f->api);
		break;
	case DIFF_COMPONENT:
		snprintf(b, n, "component %s", f->caller);
		break;
	default:
		snprintf(b, n, "%s", diff_kind_name(f->kind));
	}
}

static void cost(char *b, size_t n, double v, int timed)
{
	if (timed)
		report_fmt_ns(b, n, v);
	else
		report_fmt_count(b, n, (uint64_t)llround(v > 0 ? v : 0));
}

static void fmt_count_d(char *b, size_t n, double v)
{
	report_fmt_count(b, n, (uint64_t)llround(v > 0 ? v : 0));
}

static void sides(FILE *o, const char *name, const struct diff_side *s)
{
	fprintf(o, "%s: %s", name, s->runs[0].dir);
	for (size_t i = 1; i < s->nruns && i < 4; i++)
		fprintf(o, ", %s", s->runs[i].dir);
	if (s->nruns >= 4)
		fprintf(o, ", ...");
	fprintf(o, " (%zu run%s)\n", s->nruns, s->nruns == 1 ? "" : "s");
}

#define TEXT_UNCHANGED 5

void diff_text(FILE *o, const struct diff_result *r, const struct diff_side *base,
	       const struct diff_side *new_)
{
	size_t i, nsig = 0;
	char w[512], c[32], x[32], y[32];

	sides(o, "base", base);
	sides(o, "new ", new_);
	if (r->work_api) {
		fmt_count_d(x, sizeof(x), r->work_base);
		fprintf(o, "unit of work: %s (%s -> %s), %s calls a run\n", r->work_api,
			r->work_caller, r->work_callee, x);
	}
	if (r->timed) {
		report_fmt_ns(x, sizeof(x), r->new_threads_ns);
		report_fmt_ns(y, sizeof(y), r->base_threads_ns);
		fprintf(o, "all threads' time: %s, was %s\n", x, y);
	}
	for (i = 0; i < r->n; i++)
		nsig += r->f[i].significant;
	fprintf(o, "\n%zu significant change%s", nsig, nsig == 1 ? "" : "s");
	fprintf(o, nsig ? ", by score (the cost of what changed):\n" : ".\n");
	for (i = 0; i < r->n && r->f[i].significant; i++) {
		const struct diff_finding *f = &r->f[i];
		where(w, sizeof(w), f);
		cost(c, sizeof(c), f->score, r->timed);
		fprintf(o, "%3zu. %s   (score %s)\n     %s", f->rank, w, c, f->pattern);
		if (f->vprof)
			fprintf(o, "   [%s]", f->vprof);
		fputc('\n', o);
	}
	size_t shown = 0;
	for (; i < r->n && shown < TEXT_UNCHANGED; i++) {
		const struct diff_finding *f = &r->f[i];
		if (f->raw <= 0)
			continue;
		if (!shown++)
			fprintf(o, "\nlargest without a significant change (discounted ×%.1f):\n",
				1 - DIFF_DEFAULT_DISCOUNT);
		where(w, sizeof(w), f);
		cost(c, sizeof(c), f->raw, r->timed);
		fprintf(o, "%3zu. %s   (%s in both)\n", f->rank, w, c);
	}
}

/* ---- HTML ------------------------------------------------------------------ */

static const char *html_esc(unsigned ch, char *buf)
{
	(void)buf;
	switch (ch) {
	case '<': return "&lt;";
	case '>': return "&gt;";
	case '&': return "&amp;";
	case '"': return "&quot;";
	case '\'': return "&#39;";
	default: return NULL;
	}
}

static void h(FILE *o, const char *s)
{
	sc_write_escaped(o, s ? s : "", html_esc);
}

void diff_html(FILE *o, const struct diff_result *r, const struct diff_side *base,
	       const struct diff_side *new_)
{
	char w[512], c[32], x[32], y[32];

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<title>scaler diff</title><style>"
	      "body{font:14px sans-serif;margin:1.5em}table{border-collapse:collapse}"
	      "td,th{padding:3px 8px;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}"
	      "td.n{text-align:right;font-variant-numeric:tabular-nums}"
	      "tr.sig td{background:#fff3e0}.v{color:#666;font-size:90%}"
	      "</style></head><body>\n<h1>scaler diff</h1>\n<p>base: ", o);
	for (size_t i = 0; i < base->nruns; i++) {
		fputs(i ? ", " : "", o);
		h(o, base->runs[i].dir);
	}
	fputs("<br>new: ", o);
	for (size_t i = 0; i < new_->nruns; i++) {
		fputs(i ? ", " : "", o);
		h(o, new_->runs[i].dir);
	}
	if (r->work_api) {
		fputs("<br>unit of work: ", o);
		h(o, r->work_api);
	}
	fputs("</p>\n<table><thead><tr><th>#</th><th>where</th><th>change</th><th>score</th>"
	      "<th>base</th><th>new</th></tr></thead><tbody>\n", o);
	for (size_t i = 0; i < r->n; i++) {
		const struct diff_finding *f = &r->f[i];
		if (!f->significant && f->raw <= 0)
			continue;
		where(w, sizeof(w), f);
		cost(c, sizeof(c), f->score, r->timed);
		fprintf(o, "<tr%s><td class=\"n\">%zu</td><td>", f->significant ? " class=\"sig\"" : "",
			f->rank);
		h(o, w);
		fputs("</td><td>", o);
		h(o, f->pattern);
		if (f->vprof) {
			fputs(" <span class=\"v\">[", o);
			h(o, f->vprof);
			fputs("]</span>", o);
		}
		fprintf(o, "</td><td class=\"n\">%s</td>", c);
		cost(x, sizeof(x), r->timed ? f->base.self_ns : f->base.calls, r->timed);
		cost(y, sizeof(y), r->timed ? f->new_.self_ns : f->new_.calls, r->timed);
		fprintf(o, "<td class=\"n\">%s</td><td class=\"n\">%s</td></tr>\n", x, y);
	}
	fputs("</tbody></table>\n<p class=\"v\">Significant rows (shaded) first; "
	      "see doc/diff.md.</p>\n</body></html>\n", o);
}
