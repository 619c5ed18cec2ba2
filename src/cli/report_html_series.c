/*
 * report_html_series.c - the HTML report's "Over time" section for a
 * profile recorded with `scaler record --interval MS` (series.h): calls per
 * second and time per second of the APIs with the most calls, one line
 * each, as two inline SVG charts (no script needed) with a legend.
 */
#include <stdio.h>
#include <stdlib.h>

#include "report.h"
#include "report_html.h"
#include "series.h"

#define LINES 8
#define W 1000          /* the charts' viewBox */
#define H 160

/* eight hues apart, readable on light and dark backgrounds */
static const char *const palette[LINES] = {
	"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
};

static void chart(FILE *f, const struct series *s, const size_t *top, size_t n, int what)
{
	double peak = 0, t0 = s->nsamples ? (double)s->t_ns[0] : 0;
	double span = s->nsamples > 1 ? (double)s->t_ns[s->nsamples - 1] - t0 : 1;
	char b[32];

	for (size_t l = 0; l < n; l++)
		for (size_t i = 0; i < s->nsamples; i++)
			if (series_rate(s, i, top[l], what) > peak)
				peak = series_rate(s, i, top[l], what);
	if (what)
		report_fmt_ns(b, sizeof(b), peak);
	else
		report_fmt_count(b, sizeof(b), (uint64_t)(peak + 0.5));
	fprintf(f, "<p class=\"note\">%s, peak %s%s per second</p>\n",
		what ? "time per second" : "calls per second", b, what ? "" : " calls");
	fprintf(f, "<svg class=\"series\" id=\"series-%s\" viewBox=\"0 0 %d %d\" "
		"preserveAspectRatio=\"none\" width=\"100%%\" height=\"%d\" role=\"img\" "
		"aria-label=\"%s over time\">\n", what ? "time" : "calls", W, H, H,
		what ? "time per second" : "calls per second");
	for (size_t l = 0; l < n; l++) {
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
			"vector-effect=\"non-scaling-stroke\" points=\"", palette[l]);
		for (size_t i = 0; i < s->nsamples; i++) {
			double x = span > 0 ? ((double)s->t_ns[i] - t0) / span * W : 0;
			double y = H - (peak > 0 ? series_rate(s, i, top[l], what) / peak * (H - 4) : 0);

			fprintf(f, "%s%.1f,%.1f", i ? " " : "", x, y);
		}
		fputs("\"><title>", f);
		report_html_text(f, s->keys[top[l]].api);
		fputs("</title></polyline>\n", f);
	}
	fputs("</svg>\n", f);
}

void report_html_series(const struct report *r)
{
	const struct series *s = r->series;
	FILE *f = r->out;
	size_t top[LINES], n = series_top(s, top, LINES);
	char iv[32];

	report_fmt_ns(iv, sizeof(iv), (long double)s->interval_ns);
	fprintf(f, "<section id=\"series\">\n<h2>Over time</h2>\n<p class=\"note\">A sample every "
		"%s over the run (scaler record --interval): the %zu APIs with the most calls. A "
		"call is counted when it starts and its time is booked when it ends, all of it in "
		"that interval: a long blocking call shows as a spike of time per second%s.</p>\n",
		iv, n, s->dropped ? "; the oldest samples were overwritten in the ring" : "");
	fputs("<div class=\"legend\">", f);
	for (size_t l = 0; l < n; l++) {
		const struct sc_series_key *k = &s->keys[top[l]];

		fprintf(f, "<span><i class=\"sw\" style=\"background:%s\"></i>", palette[l]);
		report_html_text(f, k->caller);
		fputs(" → ", f);
		report_html_text(f, k->callee);
		fputs(": ", f);
		report_html_text(f, k->api);
		fputs("</span>", f);
	}
	fputs("</div>\n", f);
	chart(f, s, top, n, 0);
	chart(f, s, top, n, 1);
	fputs("</section>\n", f);
}
