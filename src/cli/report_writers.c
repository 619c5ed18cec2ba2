/*
 * report_writers.c - the one table of `scaler report`'s output formats:
 * it checks --format, lists the formats in the help and the completion,
 * and picks the writer. A new format is its report_<name>.c, its
 * prototype in report.h and a row here.
 */
#include <string.h>

#include "report.h"

static const struct report_writer writers[] = {
	{ "text", "for people: component view, API view, threads", report_text },
	{ "json", "for programs: the \"scaler-report\" document, version 1", report_json },
	{ "csv", "one row per (caller, callee, api) call (RFC 4180)", report_csv },
	{ "html", "one self-contained page: flame graph, charts, sortable tables", report_html },
	{ "folded", "folded stacks of the nesting (flamegraph.pl, speedscope, Pyroscope)",
	  report_folded },
	{ "speedscope", "speedscope's JSON file format: the nesting per process",
	  report_speedscope },
	{ "chrome", "Chrome trace events (Perfetto, chrome://tracing): threads, longest calls",
	  report_chrome },
	{ "pprof", "gzipped profile.proto (pprof, Pyroscope, Parca): the nesting",
	  report_pprof },
};

#define NWRITERS (sizeof(writers) / sizeof(writers[0]))

const struct report_writer *report_writer(const char *name)
{
	for (size_t i = 0; i < NWRITERS; i++)
		if (!strcmp(writers[i].name, name))
			return &writers[i];
	return NULL;
}

const char *report_writer_choice(size_t i, const char **help)
{
	if (i >= NWRITERS)
		return NULL;
	if (help)
		*help = writers[i].description;
	return writers[i].name;
}
