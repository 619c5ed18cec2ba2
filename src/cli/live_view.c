/*
 * live_view.c - the table of `scaler live` as lines of text (live.h): the
 * same lines make the full-screen view and the --once text output. Rates
 * are over the interval between the two snapshots, totals since start.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "live.h"
#include "report.h"
#include "xalloc.h"

#define NUMW 10         /* width of a number column */

/* s right-aligned in w display columns (µs is one column, two bytes). */
static int put_num(char *b, size_t n, const char *s)
{
	int pad = NUMW - report_text_width(s);

	return snprintf(b, n, " %*s%s", pad > 0 ? pad : 0, "", s);
}

static void fmt_rate_count(char *b, size_t n, uint64_t d, int64_t dt_ns)
{
	if (dt_ns <= 0) {
		snprintf(b, n, "-");
		return;
	}
	report_fmt_count(b, n, (uint64_t)((long double)d * 1e9L / (long double)dt_ns + 0.5L));
}

/* time per second: "12.3 ms" (the /s is in the column's title) */
static void fmt_rate_ns(char *b, size_t n, int64_t d, int64_t dt_ns)
{
	if (dt_ns <= 0) {
		snprintf(b, n, "-");
		return;
	}
	report_fmt_ns(b, n, (long double)d * 1e9L / (long double)dt_ns);
}

static char *dup_line(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = sc_xrealloc(NULL, n);

	memcpy(d, s, n);
	return d;
}

size_t live_view_lines(const struct live_rows *r, enum live_view v, int cols, size_t max_rows,
		       char ***lines)
{
	size_t nrows = max_rows && r->n > max_rows ? max_rows : r->n, k = 0;
	char **out = sc_xcalloc(nrows + 1, sizeof(*out));
	int namew = cols - 1 - 5 * (NUMW + 1) - 2;
	char line[1024];

	if (namew < 10)
		namew = 10;
	snprintf(line, sizeof(line), " %*s %*s %*s %*s %*s  %s", NUMW, "calls/s", NUMW, "time/s",
		 NUMW, "calls", NUMW, "total", NUMW, "p99",
		 v == VIEW_API ? "caller → callee  api" : "caller → callee");
	out[k++] = dup_line(line);
	for (size_t i = 0; i < nrows; i++) {
		const struct live_row *row = &r->rows[i];
		char num[64], name[600], fitted[600], pretty[512];
		int at = 0;

		fmt_rate_count(num, sizeof(num), row->dcount, r->dt_ns);
		at += put_num(line + at, sizeof(line) - (size_t)at, num);
		fmt_rate_ns(num, sizeof(num), row->dns, r->dt_ns);
		at += put_num(line + at, sizeof(line) - (size_t)at, num);
		report_fmt_count(num, sizeof(num), row->c.count);
		at += put_num(line + at, sizeof(line) - (size_t)at, num);
		report_fmt_ns(num, sizeof(num), (long double)row->c.total_ns);
		at += put_num(line + at, sizeof(line) - (size_t)at, num);
		if (row->c.timed)
			report_fmt_ns(num, sizeof(num), (long double)row->c.p99_ns);
		else
			snprintf(num, sizeof(num), "-");
		at += put_num(line + at, sizeof(line) - (size_t)at, num);
		if (v == VIEW_API)
			snprintf(name, sizeof(name), "%s → %s  %s", row->c.caller, row->c.callee,
				 sc_demangle(row->c.api, pretty, sizeof(pretty)));
		else
			snprintf(name, sizeof(name), "%s → %s", row->c.caller, row->c.callee);
		report_fit(fitted, sizeof(fitted), name, namew);
		snprintf(line + at, sizeof(line) - (size_t)at, "  %s", fitted);
		out[k++] = dup_line(line);
	}
	*lines = out;
	return k;
}
