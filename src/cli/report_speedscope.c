/*
 * report_speedscope.c - `scaler report --format speedscope`: the nesting
 * tree (report_stacks.c) in speedscope's file format
 * (https://www.speedscope.app/file-format-schema.json): the tree's frames
 * shared, one "sampled" profile per process whose samples are the tree's
 * stacks (process first) weighted by each node's own time in ns
 * (--weight=time) or own calls (--weight=count, unit "none"). The
 * profile records no per-thread nesting, so there is no profile per
 * thread.
 */
#include <stdio.h>

#include "json.h"
#include "report.h"

static void frames(struct sc_json *j, const struct stack_tree *t)
{
	char label[1024];
	size_t i;

	sc_json_key(j, "frames");
	sc_json_begin_array(j);
	for (i = 0; i < t->nframes; i++) {
		const struct stack_node *n = &t->nodes[t->frames[i]];

		sc_json_begin_object(j);
		sc_json_key(j, "name");
		report_stack_title(n, label, sizeof(label));
		sc_json_string(j, label);
		if (n->component) {
			sc_json_key(j, "file");
			sc_json_string(j, n->component);
		}
		sc_json_end_object(j);
	}
	sc_json_end_array(j);
}

/* The sampled profile of process node p. */
static void profile(struct sc_json *j, const struct report *r, const struct stack_tree *t, size_t p)
{
	const struct stack_node *proc = &t->nodes[p];
	size_t i, k, n, path[STACK_MAX_PATH];
	char label[1024];

	sc_json_begin_object(j);
	sc_json_key(j, "type");
	sc_json_string(j, "sampled");
	sc_json_key(j, "name");
	report_stack_label(proc, label, sizeof(label));
	sc_json_string(j, label);
	sc_json_key(j, "unit");
	sc_json_string(j, r->weight == WEIGHT_COUNT ? "none" : "nanoseconds");
	sc_json_key(j, "startValue");
	sc_json_uint(j, 0);
	sc_json_key(j, "endValue");
	sc_json_uint(j, report_stack_total(proc, r->weight));
	sc_json_key(j, "samples");
	sc_json_begin_array(j);
	for (i = p; i < proc->end; i++) {
		if (!report_stack_self(&t->nodes[i], r->weight))
			continue;
		sc_json_begin_array(j);
		n = report_stack_path(t, i, path);
		for (k = 0; k < n; k++)
			sc_json_uint(j, t->nodes[path[k]].frame);
		sc_json_end_array(j);
	}
	sc_json_end_array(j);
	sc_json_key(j, "weights");
	sc_json_begin_array(j);
	for (i = p; i < proc->end; i++) {
		uint64_t w = report_stack_self(&t->nodes[i], r->weight);

		if (w)
			sc_json_uint(j, w);
	}
	sc_json_end_array(j);
	sc_json_end_object(j);
}

void report_speedscope(const struct report *r)
{
	struct stack_tree t;
	struct sc_json j;
	size_t i;

	report_stacks(r, &t);
	sc_json_init(&j, r->out);
	sc_json_begin_object(&j);
	sc_json_key(&j, "$schema");
	sc_json_string(&j, "https://www.speedscope.app/file-format-schema.json");
	sc_json_key(&j, "exporter");
	sc_json_string(&j, "scaler");
	sc_json_key(&j, "name");
	sc_json_string(&j, r->p->dir);
	sc_json_key(&j, "activeProfileIndex");
	sc_json_uint(&j, 0);
	sc_json_key(&j, "shared");
	sc_json_begin_object(&j);
	frames(&j, &t);
	sc_json_end_object(&j);
	sc_json_key(&j, "profiles");
	sc_json_begin_array(&j);
	for (i = 0; i < t.n; i = t.nodes[i].end)
		profile(&j, r, &t, i);
	sc_json_end_array(&j);
	sc_json_end_object(&j);
	fputc('\n', r->out);
	report_stacks_free(&t);
}
