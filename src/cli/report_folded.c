/*
 * report_folded.c - `scaler report --format folded`: the nesting tree
 * (report_stacks.c) as folded stacks, the input of flamegraph.pl,
 * speedscope, Pyroscope and inferno: one line per tree node with a weight
 * of its own,
 *
 *   process[pid];component;callee:api;callee:api ... N
 *
 * with C++ names demangled, as in the text view (report_stack_title), and
 * N its own time in ns (--weight=time, the default) or its own calls
 * (--weight=count; a component has none of its own). Summing the lines
 * under a prefix gives that node's inclusive figure. Frames never hold
 * ';' (the separator) or a line end: such bytes are written as '?'.
 */
#include <inttypes.h>
#include <stdio.h>

#include "report.h"

static void frame(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == ';' || *s == '\n' || *s == '\r' ? '?' : *s, f);
}

void report_folded(const struct report *r)
{
	struct stack_tree t;
	size_t i, k, n, path[STACK_MAX_PATH];
	char label[1024];

	report_stacks(r, &t);
	for (i = 0; i < t.n; i++) {
		uint64_t w = report_stack_self(&t.nodes[i], r->weight);

		if (!w)
			continue;
		n = report_stack_path(&t, i, path);
		for (k = 0; k < n; k++) {
			report_stack_title(&t.nodes[path[k]], label, sizeof(label));
			if (k)
				fputc(';', r->out);
			frame(r->out, label);
		}
		fprintf(r->out, " %" PRIu64 "\n", w);
	}
	report_stacks_free(&t);
}
