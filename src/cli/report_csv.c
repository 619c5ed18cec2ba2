/*
 * report_csv.c - `scaler report --format csv`: one header row, then one
 * row per (caller, callee, api) call as the report selected them (the
 * fields of the JSON calls[] rows without the histogram; `function` empty
 * for an import), RFC 4180: CRLF line ends, a field with a comma, quote,
 * CR or LF quoted, quotes doubled.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

static void field(FILE *f, const char *s)
{
	if (!s[strcspn(s, ",\"\r\n")]) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void report_csv(const struct report *r)
{
	FILE *f = r->out;
	size_t i;

	fputs("caller,callee,api,kind,count,timed,total_ns,self_ns,edge_ns,wait,wait_ns,attr_ns,"
	      "p50_ns,p99_ns,max_ns,symbol,function\r\n", f);
	for (i = 0; i < r->ncalls; i++) {
		const struct sc_call *c = r->calls[i];

		field(f, c->caller);
		fputc(',', f);
		field(f, c->callee);
		fputc(',', f);
		field(f, c->api);
		fputs(c->function ? ",function" : ",import", f);
		fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%s,%" PRId64
			",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",",
			c->count, c->timed, c->total_ns, c->self_ns, c->edge_ns,
			c->wait ? "true" : "false", c->wait_ns, c->attr_ns, c->p50_ns, c->p99_ns,
			c->max_ns);
		field(f, c->symbol ? c->symbol : c->api);
		fputc(',', f);
		if (c->function) {
			char dem[1024];

			field(f, report_function_name(c->api, dem, sizeof(dem)));
		}
		fputs("\r\n", f);
	}
}
