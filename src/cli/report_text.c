/*
 * report_text.c - the text view of `scaler report` (report.h): the header
 * and process list, the component view (raw and 1/k-attributed times side
 * by side, as in the paper's Figure 1), the API view of each component,
 * and the threads and thread groups. Lines stay within about 120 columns
 * (the API view's within the terminal's width, report.h: cols);
 * ANSI colour only when r->color.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_args.h"

#define LINE_COLS 120
#define NAME_COLS 40            /* component column */
#define COMP_COLS 34            /* ... of the timed component view */
#define TC 9                    /* its time columns */
#define FN_COLS 32              /* function column of the function view */
#define API_ROWS 30             /* API view rows per component by default */
#define KERNEL_FUNCS 3          /* kernel functions under an API row */
#define T 8                     /* a time column */

/* SGR codes */
#define C_HEAD "1"
#define C_WARN "1;33"
#define C_DIM "2"

static void sgr(const struct report *r, const char *code)
{
	if (r->color)
		fprintf(r->out, "\033[%sm", code);
}

static void heading(const struct report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void heading(const struct report *r, const char *fmt, ...)
{
	va_list ap;

	fputc('\n', r->out);
	sgr(r, C_HEAD);
	va_start(ap, fmt);
	vfprintf(r->out, fmt, ap);
	va_end(ap);
	sgr(r, "0");
	fputc('\n', r->out);
}

/* Print s padded to `width` columns (right-aligned if right). A
 * right-aligned value as wide as its column or wider (a time of years
 * from a damaged profile) still gets a space before it, so that it never
 * runs into the value before it ("-" and "5 s" are not "-5 s"). */
static void col(const struct report *r, const char *s, int width, int right)
{
	int pad = width - report_text_width(s);

	if (right && pad <= 0)
		fputc(' ', r->out);
	if (right)
		while (pad-- > 0)
			fputc(' ', r->out);
	fputs(s, r->out);
	if (!right)
		while (pad-- > 0)
			fputc(' ', r->out);
}

/* A table's header line: labels at their column widths. */
struct colspec {
	const char *label;
	int width, right;
};

static void header_row(const struct report *r, const struct colspec *c, size_t n)
{
	size_t i;

	fputs("  ", r->out);
	for (i = 0; i < n; i++)
		col(r, c[i].label, c[i].width, c[i].right);
	fputc('\n', r->out);
}

/* A time column: "-" when the value is not known (known == 0). */
static void col_ns(const struct report *r, long double ns, int known, int width)
{
	char b[32];

	if (known)
		report_fmt_ns(b, sizeof(b), ns);
	else
		snprintf(b, sizeof(b), "-");
	col(r, b, width, 1);
}

static void col_pct(const struct report *r, long double part, long double whole, int width)
{
	char b[32];

	report_fmt_pct(b, sizeof(b), part, whole);
	col(r, b, width, 1);
}

static void col_count(const struct report *r, uint64_t v, int width)
{
	char b[32];

	report_fmt_count(b, sizeof(b), v);
	col(r, b, width, 1);
}

/* Word-wrap s to LINE_COLS with `indent` spaces before every line. */
static void wrapped(const struct report *r, const char *s, int indent)
{
	int first = 1;

	while (*s) {
		int room = LINE_COLS - indent, len = (int)strlen(s), cut = len;

		if (report_text_width(s) > room) {
			for (cut = room; cut > 0 && s[cut] != ' '; cut--)
				;
			if (cut == 0)
				cut = room;
		}
		fprintf(r->out, "%*s%.*s\n", indent, "", cut, s);
		s += cut;
		while (*s == ' ')
			s++;
		if (first)
			indent += 2;    /* continuation lines */
		first = 0;
	}
}

/* ---- header and processes ---------------------------------------------- */

static void text_processes(const struct report *r)
{
	const struct sc_profile *p = r->p;
	char cmd[4096];
	size_t i;

	static const struct colspec cols[] = {
		{ "pid", 18, 0 }, { "ppid", 8, 0 }, { "status", 12, 0 }, { "wall", 10, 1 },
		{ "  command", 0, 0 },
	};

	heading(r, "PROCESSES");
	header_row(r, cols, sizeof(cols) / sizeof(cols[0]));
	for (i = 0; i < p->nimages; i++) {
		const struct sc_image *im = &p->images[i];
		char id[64], pp[16], st[32], c[512];

		snprintf(id, sizeof(id), "%u", im->pid);
		if (im->gen)
			snprintf(id, sizeof(id), "%u (exec %u)", im->pid, im->gen);
		snprintf(pp, sizeof(pp), "%u", im->ppid);
		report_status_label(st, sizeof(st), im);
		report_fmt_command(cmd, sizeof(cmd), im);
		report_fit(c, sizeof(c), cmd, LINE_COLS - 2 - 18 - 8 - 12 - 10 - 2);
		fputs("  ", r->out);
		col(r, id, 18, 0);
		col(r, pp, 8, 0);
		col(r, st, 12, 0);
		col_ns(r, (long double)im->wall_ns, im->wall_ns > 0, 10);
		fprintf(r->out, "  %s\n", c);
	}
	for (i = 0; i < p->nimages; i++)
		if (p->images[i].incomplete)
			fprintf(r->out, "(incomplete: process %u did not finish normally)\n",
				p->images[i].pid);
}

static void text_header(const struct report *r)
{
	const struct sc_profile *p = r->p;
	const struct sc_image *root = r->only ? r->only : report_root_image(p);
	char cmd[4096], cmdfit[512], wall[32], tail[200], st[32];
	int64_t wall_ns = r->only ? r->only->wall_ns : p->wall_ns;

	report_fmt_command(cmd, sizeof(cmd), root);
	if (wall_ns > 0)
		report_fmt_ns(wall, sizeof(wall), (long double)wall_ns);
	else
		snprintf(wall, sizeof(wall), "unknown");
	if (r->only) {
		report_status_label(st, sizeof(st), r->only);
		snprintf(tail, sizeof(tail), " (process %u, one of %zu, %s, wall %s)",
			 r->only->pid, p->nimages, st, wall);
	} else if (p->nimages == 1) {
		report_status_label(st, sizeof(st), &p->images[0]);
		snprintf(tail, sizeof(tail), " (1 process, %s, wall %s)", st, wall);
	} else {
		snprintf(tail, sizeof(tail), " (%zu processes, wall %s)", p->nimages, wall);
	}
	report_fit(cmdfit, sizeof(cmdfit), cmd,
		   LINE_COLS - (int)strlen("scaler report: ") - report_text_width(tail));
	sgr(r, C_HEAD);
	fprintf(r->out, "scaler report: %s%s", cmdfit, tail);
	sgr(r, "0");
	fprintf(r->out, "\n%s", report_timing_desc(p->timing_mode));
	/* the interceptor's own share of each timed call was measured (and
	 * re-measured on each thread) and taken off every call's time: say
	 * how much, and how far it moved */
	if (p->timing_mode != SC_TIMING_NONE && root && root->tsc_hz > 0 && root->ovh_n) {
		char b[32], lo[32], hi[32];

		report_fmt_ns(b, sizeof(b), (long double)root->ovh_mean_ns);
		report_fmt_ns(lo, sizeof(lo), (long double)root->ovh_min_ns);
		report_fmt_ns(hi, sizeof(hi), (long double)root->ovh_max_ns);
		if (root->ovh_min == root->ovh_max)
			fprintf(r->out, "; own cost taken off each timed call: %s", b);
		else
			fprintf(r->out, "; own cost taken off each timed call: %s (%s-%s, "
				"%" PRIu64 " measurements)", b, lo, hi, root->ovh_n);
	} else if (p->timing_mode != SC_TIMING_NONE && root && root->ovh_unknown) {
		fprintf(r->out, "; own cost taken off each timed call: unknown (format %u)",
			root->hdr.version);
	} else if (p->timing_mode != SC_TIMING_NONE && root && root->ovh_unknown) {
		fprintf(r->out, "; own cost taken off each timed call: unknown (format %u)",
			root->hdr.version);
	}
	fputc('\n', r->out);
	if (p->timing_mode != SC_TIMING_NONE)
		fprintf(r->out, "%s%s\n", report_wait_desc(r->agg->wait_source),
			r->agg->kernel_sampled ? "; kernel stacks sampled" : "");
	if (r->component) {
		fprintf(r->out, "component%s", r->nselected > 1 ? "s" : "");
		for (size_t i = 0; i < r->nselected; i++)
			fprintf(r->out, "%s %s", i ? "," : "", r->selected[i]);
		fprintf(r->out, " only%s\n", r->nselected ? "" : " (none matches)");
	}
	if (r->min_percent > 0)
		fprintf(r->out, "rows under %g%% hidden\n", r->min_percent);

	if (r->only || p->nimages == 1) {
		if (root && root->incomplete)
			fprintf(r->out, "(incomplete: process did not finish normally)\n");
	} else {
		text_processes(r);
	}
}

/* ---- component view ---------------------------------------------------- */

/*
 * The component view. Timed, each component's self time is shown as its
 * work and the Wait inside it (model.h: self_wait_ns), so a library whose
 * time is its callers blocked in epoll_wait reads as Wait, not as work;
 * each edge shows the Wait part of the calls too. Every percentage is of
 * all threads' time (attributed: of the critical time), the base
 * --min-percent measures rows against.
 */
static void text_components(const struct report *r)
{
	const struct sc_agg *a = r->agg;
	long double all = (long double)a->threads_ns, crit = (long double)a->attr_ns;
	int attr = a->attr_ns > 0;
	int nw = r->timed ? COMP_COLS : NAME_COLS;
	int unseen = 0;
	char b1[64], b2[64], name[256];
	size_t i, e;

	report_fmt_ns(b1, sizeof(b1), all);
	if (attr) {
		report_fmt_ns(b2, sizeof(b2), crit);
		heading(r, "COMPONENT VIEW: where the threads' time goes (all threads: %s; "
			"attributed, each call / running threads: %s)", b1, b2);
	} else {
		heading(r, "COMPONENT VIEW: where the threads' time goes (all threads: %s)", b1);
	}
	if (r->timed) {
		fprintf(r->out, "  %*s  %s  %s\n", nw, "",
			"----------------- raw: self = work + Wait ----",
			"--------- attributed ---------");
	}
	fputs("  ", r->out);
	col(r, "component", nw, 0);
	if (r->timed) {
		col(r, "total", TC, 1);
		col(r, "%", 7, 1);
		col(r, "work", TC, 1);
		col(r, "%", 7, 1);
		col(r, "Wait", TC, 1);
		col(r, "%", 7, 1);
		col(r, "total", TC, 1);
		col(r, "%", 7, 1);
		col(r, "self", TC, 1);
		col(r, "%", 7, 1);
	} else {
		col(r, "threads", 11, 1);
		col(r, "%", 7, 1);
		col(r, "calls out", 14, 1);
		col(r, "calls in", 14, 1);
	}
	fputc('\n', r->out);
	if (r->ncomp == 0)
		fprintf(r->out, "  (no %s recorded)\n", r->component || r->min_percent > 0
			? "component selected" : "threads or calls");
	for (i = 0; i < r->ncomp; i++) {
		const struct sc_component *c = r->comp[i];

		report_fit(name, sizeof(name), c->name, nw - 1);
		fputs("  ", r->out);
		col(r, name, nw, 0);
		if (r->timed) {
			int64_t work = report_comp_work(c);
			int64_t wait = report_clamp0(c->self_ns) - work;

			col_ns(r, (long double)c->total_ns, 1, TC);
			col_pct(r, (long double)c->total_ns, all, 7);
			col_ns(r, (long double)work, 1, TC);
			col_pct(r, (long double)work, all, 7);
			if (wait > 0) {
				col_ns(r, (long double)wait, 1, TC);
				col_pct(r, (long double)wait, all, 7);
			} else {
				col(r, "-", TC + 7, 1);
			}
			col_ns(r, (long double)c->attr_total_ns, attr, TC);
			col_pct(r, (long double)c->attr_total_ns, crit, 7);
			col_ns(r, (long double)report_clamp0(c->attr_self_ns), attr, TC);
			col_pct(r, (long double)report_clamp0(c->attr_self_ns), crit, 7);
		} else {
			col_ns(r, (long double)c->threads_ns, 1, 11);
			col_pct(r, (long double)c->threads_ns, all, 7);
			col_count(r, c->out_calls, 14);
			col_count(r, c->in_calls, 14);
		}
		fputc('\n', r->out);
		for (e = 0; e < c->nout; e++) {
			const struct sc_edge *ed = &c->out[e];
			char arrow[300];

			if (report_row_hidden(r, ed->ns, ed->calls))
				continue;
			report_fit(name, sizeof(name), ed->callee, nw - 7);
			/* an unseen entry's edge: a dashed arrow, the note
			 * once under the view */
			snprintf(arrow, sizeof(arrow), "    %s %s",
				 ed->unseen ? "\xe2\x87\xa2" : "\xe2\x86\x92", name);
			unseen |= ed->unseen;
			fputs("  ", r->out);
			col(r, arrow, nw, 0);
			if (r->timed) {
				col_ns(r, (long double)ed->ns, 1, TC);
				col_pct(r, (long double)ed->ns, all, 7);
				col(r, "", TC + 7, 0);
				if (ed->wait_ns > 0) {
					/* the caller blocked in these calls: the
					 * Wait of the callee's row, seen from here */
					sgr(r, C_DIM);
					col_ns(r, (long double)ed->wait_ns, 1, TC);
					col_pct(r, (long double)ed->wait_ns, all, 7);
					sgr(r, "0");
				} else {
					col(r, "", TC + 7, 0);
				}
				col_ns(r, (long double)ed->attr_ns, attr, TC);
				col_pct(r, (long double)ed->attr_ns, crit, 7);
			} else {
				col(r, "", 18, 1);
				col_count(r, ed->calls, 14);
			}
			fputc('\n', r->out);
		}
		/* runnable but not running (preempted) in its calls out:
		 * contention for CPUs, neither work of the callees nor Wait */
		if (r->timed && c->preempt_ns > 0) {
			fputs("  ", r->out);
			sgr(r, C_DIM);
			col(r, "    (of which preempted: runnable)", nw, 0);
			col_ns(r, (long double)c->preempt_ns, 1, TC);
			col_pct(r, (long double)c->preempt_ns, all, 7);
			sgr(r, "0");
			fputc('\n', r->out);
		}
	}
	if (unseen) {
		fputs("  ", r->out);
		sgr(r, C_DIM);
		fputs("\xe2\x87\xa2 " UNSEEN_NOTE ": the callee's calls out while so entered, "
		      "taken off the caller's self time", r->out);
		sgr(r, "0");
		fputc('\n', r->out);
	}
}

static int cmp_in(const void *x, const void *y, void *arg)
{
	const struct sc_component *a = *(const struct sc_component *const *)x;
	const struct sc_component *b = *(const struct sc_component *const *)y;
	const struct report *r = arg;

	if (r->sort == SORT_NAME)
		return strcmp(a->name, b->name);
	if (a->in_ns != b->in_ns)
		return a->in_ns > b->in_ns ? -1 : 1;
	if (a->in_calls != b->in_calls)
		return a->in_calls > b->in_calls ? -1 : 1;
	return strcmp(a->name, b->name);
}

/*
 * One component's table: the calls into it (into != 0, with the calling
 * component) or the calls it makes (with the called one). c is the
 * component (for the share of its incoming time), name its name.
 */
/* Under an API that spends some of its time in the kernel: the split of
 * its time and the kernel functions that hold most of it. */
static void kernel_line(const struct report *r, const struct sc_call *c)
{
	struct report_ksplit s;
	size_t idx[KERNEL_FUNCS], n = report_kernel_chain(c, idx, KERNEL_FUNCS);
	long double all = (long double)c->total_ns;
	char u[32], k[32], b[32], p[32], f[32];

	report_kernel_split(c, &s);
	report_fmt_pct(u, sizeof(u), (long double)s.user, all);
	report_fmt_pct(k, sizeof(k), (long double)s.kernel, all);
	report_fmt_pct(b, sizeof(b), (long double)s.blocked, all);
	report_fmt_pct(p, sizeof(p), (long double)s.preempted, all);
	sgr(r, C_DIM);
	fprintf(r->out, "      \xe2\x86\xb3 user %s, kernel %s, blocked %s, preempted %s", u,
		c->measured > 1 ? k : "?", b, p);
	for (size_t i = 0; i < n; i++) {
		report_fmt_pct(f, sizeof(f), (long double)c->kfuncs[idx[i]].ns, all);
		fprintf(r->out, "%s %s %s", i ? "," : ";", c->kfuncs[idx[i]].name, f);
	}
	/* where its blocked time was spent (the stacks it blocked at) */
	n = report_kernel_off_chain(c, idx, KERNEL_FUNCS);
	for (size_t i = 0; i < n; i++) {
		report_fmt_pct(f, sizeof(f), (long double)c->okfuncs[idx[i]].ns, all);
		fprintf(r->out, "%s %s %s", i ? "," : "\n        blocked in", c->okfuncs[idx[i]].name,
			f);
	}
	sgr(r, "0");
	fputc('\n', r->out);
}

static void api_table(const struct report *r, const struct sc_component *c, int into)
{
	size_t k, shown = 0, more = 0;
	uint64_t more_calls = 0;
	int64_t more_ns = 0;
	int attr = r->agg->attr_ns > 0;
	int limit = !r->component && r->min_percent <= 0;
	char name[512], b1[64], b2[64], b3[64];
	const struct sc_call **rows = report_xcalloc(r->ncalls ? r->ncalls : 1, sizeof(*rows));
	const char **apis = report_xcalloc(r->ncalls ? r->ncalls : 1, sizeof(*apis));
	size_t nrows = 0;
	int api_w = 0, other_w = 0, line = r->cols > 0 ? r->cols : LINE_COLS;
	int fixed = 4 + 11 + (r->timed ? 7 + 7 * T : 7) + 2;

	/* the rows shown, and the widths their names need */
	for (k = 0; k < r->ncalls; k++) {
		const struct sc_call *call = r->calls[k];
		const char *other = into ? call->caller : call->callee;

		if (strcmp(into ? call->callee : call->caller, c->name))
			continue;
		if (call->function && !strcmp(call->caller, call->callee))
			continue;       /* time inside c: the function view's */
		if (limit && nrows == API_ROWS) {
			more++;
			more_calls = sc_addu_sat(more_calls, call->count);
			more_ns = sc_add_sat(more_ns, call->edge_ns);   /* none twice */
			continue;
		}
		rows[nrows] = call;
		apis[nrows++] = call->api;
		if (report_text_width(call->api) + 1 > api_w)
			api_w = report_text_width(call->api) + 1;
		int ow = report_text_width(other) + (strcmp(call->caller, call->callee) ? 0 : 9);

		if (ow > other_w)
			other_w = ow;                   /* with " (itself)" */
	}
	/* the api column takes what the line has left after the others, the
	 * calling component's at most 20 + 9 columns */
	if (other_w > 29)
		other_w = 29;
	if (api_w > line - fixed - other_w)
		api_w = line - fixed - other_w;
	if (api_w < 12)
		api_w = 12;
	char *fit = report_xcalloc(nrows ? nrows : 1, 512);
	report_fit_unique(fit, 512, apis, nrows, api_w - 1);

	fputs("    ", r->out);
	col(r, "api", api_w, 0);
	col(r, "calls", 11, 1);
	if (r->timed) {
		col(r, "total", T, 1);
		col(r, "%in", 7, 1);
		col(r, "self", T, 1);
		col(r, "attr", T, 1);
		col(r, "avg", T, 1);
		col(r, "p50", T, 1);
		col(r, "p99", T, 1);
		col(r, "max", T, 1);
	} else {
		col(r, "%in", 7, 1);
	}
	fprintf(r->out, "  %s\n", into ? "from" : "to");
	for (k = 0; k < nrows; k++) {
		const struct sc_call *call = rows[k];
		const char *other = into ? call->caller : call->callee;
		int internal = !strcmp(call->caller, call->callee), used;
		int hist = report_has_hist(call);

		shown++;
		fputs("    ", r->out);
		if (call->wait)
			sgr(r, C_DIM);
		col(r, fit + k * 512, api_w, 0);
		col_count(r, call->count, 11);
		used = 4 + api_w + 11;
		if (r->timed) {
			col_ns(r, (long double)call->total_ns, 1, T);
			if (internal || !into)
				col(r, "-", 7, 1);
			else
				col_pct(r, (long double)call->total_ns, (long double)c->in_ns, 7);
			col_ns(r, (long double)call->self_ns, 1, T);
			col_ns(r, (long double)call->attr_ns, attr, T);
			col_ns(r, (long double)call->total_ns / (long double)call->count, 1, T);
			col_ns(r, (long double)call->p50_ns, hist, T);
			col_ns(r, (long double)call->p99_ns, hist, T);
			col_ns(r, (long double)call->max_ns, call->max_ns > 0, T);
			used += 7 + 7 * T;
		} else {
			if (internal || !into)
				snprintf(b3, sizeof(b3), "-");
			else
				report_fmt_pct(b3, sizeof(b3), (long double)call->count,
					       (long double)c->in_calls);
			col(r, b3, 7, 1);
			used += 7;
		}
		report_fit(name, sizeof(name), other,
			   line - used - 2 - 9 > 20 ? line - used - 2 - 9 : 20);
		fprintf(r->out, "  %s%s", name, internal ? " (itself)" : "");
		if (call->wait)
			sgr(r, "0");
		fputc('\n', r->out);
		if (r->timed && report_kernel_shown(call))
			kernel_line(r, call);
	}
	if (more) {
		report_fmt_count(b1, sizeof(b1), more);
		report_fmt_count(b2, sizeof(b2), more_calls);
		if (r->timed) {
			report_fmt_ns(b3, sizeof(b3), (long double)more_ns);
			fprintf(r->out, "    \xe2\x80\xa6 %s more (%s calls, %s; all of them: "
				"--component %s)\n", b1, b2, b3, c->name);
		} else {
			fprintf(r->out, "    \xe2\x80\xa6 %s more (%s calls)\n", b1, b2);
		}
	}
	if (shown == 0)
		fprintf(r->out, "    (none shown)\n");
	free(fit);
	free(apis);
	free(rows);
}

/* A component's name over its table, the rest of the line the caller's. */
static void comp_title(const struct report *r, const char *comp)
{
	char name[256];

	report_fit(name, sizeof(name), comp, 50);
	fputs("\n  ", r->out);
	sgr(r, C_HEAD);
	fputs(name, r->out);
	sgr(r, "0");
}

static void text_apis(const struct report *r)
{
	const struct sc_agg *a = r->agg;
	const struct sc_component **by_in;
	char b1[64], b2[64];
	size_t i, k, n = 0;

	by_in = report_xcalloc(a->ncomp, sizeof(*by_in));
	for (i = 0; i < a->ncomp; i++) {
		/* listed if any shown call goes into it, even from itself
		 * (but a function called from its own component is time
		 * inside it, in the function view) */
		for (k = 0; k < r->ncalls; k++)
			if (!strcmp(r->calls[k]->callee, a->comp[i].name) &&
			    !(r->calls[k]->function &&
			      !strcmp(r->calls[k]->caller, r->calls[k]->callee)))
				break;
		if (k < r->ncalls && report_comp_selected(r, a->comp[i].name))
			by_in[n++] = &a->comp[i];
	}
	if (n > 1)
		qsort_r(by_in, n, sizeof(*by_in), cmp_in, (void *)r);

	heading(r, "API VIEW: calls into each component");
	if (n == 0)
		fprintf(r->out, "  (no calls %s)\n", r->ncalls ? "into it" : "recorded");
	for (i = 0; i < n; i++) {
		const struct sc_component *c = by_in[i];

		report_fmt_count(b2, sizeof(b2), c->in_calls);
		comp_title(r, c->name);
		if (r->timed) {
			report_fmt_ns(b1, sizeof(b1), (long double)c->in_ns);
			fprintf(r->out, ": %s in %s calls from other components\n", b1, b2);
		} else {
			fprintf(r->out, ": %s calls from other components\n", b2);
		}
		api_table(r, c, 1);
	}
	free(by_in);

	/* --component: the other direction too, the calls they make */
	for (i = 0; r->component && i < r->nselected; i++) {
		const struct sc_component *c = sc_agg_component(a, r->selected[i]);

		if (c) {
			heading(r, "CALLS FROM %s", c->name);
			api_table(r, c, 0);
		}
	}
}

/* ---- values (--args) -------------------------------------------------- */

/* The shown calls that have argument or return values, one line each. */
static void text_values(const struct report *r)
{
	char cnt[32], line[600];
	size_t k;

	for (k = 0; k < r->ncalls && !r->calls[k]->nargs; k++)
		;
	if (k == r->ncalls)
		return;
	heading(r, "VALUES: arguments and return values of timed calls (--args), calls "
		"estimated from them");
	for (k = 0; k < r->ncalls; k++) {
		const struct sc_call *c = r->calls[k];

		if (!c->nargs)
			continue;
		report_fmt_count(cnt, sizeof(cnt), c->count);
		fprintf(r->out, "  %s \xe2\x86\x90 %s (%s): %s calls\n", c->api, c->caller,
			c->callee, cnt);
		for (uint32_t i = 0; i < c->nargs; i++) {
			report_args_phrase(line, sizeof(line), &c->args[i]);
			fprintf(r->out, "    %s\n", line);
		}
	}
}

/* ---- functions (--functions) ------------------------------------------ */

/* One row of the function view: a function or (part) one of its clones. */
static void fn_row(const struct report *r, const struct sc_component *c, int64_t run,
		   const char *label, const struct report_fn_figures *f)
{
	char name[512];
	int timed = f->timed > 0;

	report_fit(name, sizeof(name), label, FN_COLS - 1);
	fputs("    ", r->out);
	col(r, name, FN_COLS, 0);
	col_count(r, f->count, 11);
	if (r->timed) {
		col_ns(r, (long double)f->total_ns, timed, T);
		col_ns(r, (long double)f->run_ns, timed, T);
		if (timed && run > 0)
			col_pct(r, (long double)f->run_ns, (long double)run, 7);
		else
			col(r, "-", 7, 1);
		col_ns(r, (long double)f->p50_ns, f->has_hist, T);
		col_ns(r, (long double)f->p99_ns, f->has_hist, T);
	}
	fputs("  ", r->out);
	if (f->callers_many)
		fputs("several components", r->out);
	else
		fprintf(r->out, "%s%s", f->caller, strcmp(f->caller, c->name) ? "" : " (itself)");
	fputc('\n', r->out);
}

/*
 * FUNCTION VIEW: each component's patched functions, every caller summed:
 * inclusive and exclusive time, the exclusive part of the component's
 * self time, calls and percentiles; a function with clones gets one row
 * per symbol under it, named by its clone suffix.
 */
static void text_functions(const struct report *r)
{
	size_t i, k, p, n;
	int any = 0;
	char b1[64], b2[64], name[256];

	for (i = 0; i < r->ncomp; i++) {
		const struct sc_component *c = r->comp[i];
		struct report_fn *fn;
		int untimed = 0;
		int64_t run = report_comp_run_ns(r, c);

		if (!report_comp_selected(r, c->name))
			continue;
		n = report_functions(r, c->name, &fn);
		if (n == 0)
			continue;
		if (!any)
			heading(r, "FUNCTION VIEW: each component's self time by its patched functions");
		any = 1;
		report_fmt_count(b2, sizeof(b2), n);
		comp_title(r, c->name);
		if (r->timed) {
			report_fmt_ns(b1, sizeof(b1), (long double)run);
			fprintf(r->out, ": self %s on the CPU; %s patched functions called\n", b1, b2);
		} else {
			fprintf(r->out, ": %s patched functions called\n", b2);
		}
		fputs("    ", r->out);
		col(r, "function", FN_COLS, 0);
		col(r, "calls", 11, 1);
		if (r->timed) {
			col(r, "incl", T, 1);
			col(r, "excl", T, 1);
			col(r, "%self", 7, 1);
			col(r, "p50", T, 1);
			col(r, "p99", T, 1);
		}
		fputs("  from\n", r->out);
		for (k = 0; k < n; k++) {
			fn_row(r, c, run, fn[k].name, &fn[k].fig);
			untimed |= fn[k].fig.timed == 0;
			if (fn[k].nparts == 1 && !*fn[k].parts[0].suffix)
				continue;
			for (p = 0; p < fn[k].nparts; p++) {
				snprintf(name, sizeof(name), "  %s",
					 *fn[k].parts[p].suffix ? fn[k].parts[p].suffix : "(itself)");
				fn_row(r, c, run, name, &fn[k].parts[p].fig);
			}
		}
		if (r->timed && untimed)
			fputs("    (\"-\": none of its calls was timed)\n", r->out);
		report_functions_free(fn, n);
	}
}

/* ---- threads ----------------------------------------------------------- */

static void text_imbalance(const struct report *r)
{
	char b[1024];
	size_t i;

	for (i = 0; i < r->ngroups; i++) {
		if (!r->groups[i].imbalance)
			continue;
		report_imbalance_text(b, sizeof(b), r, &r->groups[i]);
		sgr(r, C_WARN);
		wrapped(r, b, 2);
		sgr(r, "0");
	}
}

static void text_threads(const struct report *r)
{
	int attr = r->agg->attr_ns > 0;
	struct report_iter it = { 0, 0 };
	const struct sc_thread *t;
	const struct sc_image *im;
	size_t i;
	char name[256], b[32];

	static const struct colspec tcols[] = {
		{ "pid", 8, 0 }, { "tid", 8, 0 }, { "name", 17, 0 }, { "start routine", 30, 0 },
		{ "wall", 10, 1 }, { "effective", 11, 1 }, { "wait", 10, 1 }, { "attributed", 12, 1 },
	};
	static const struct colspec gcols[] = {
		{ "start routine", 30, 0 }, { "threads", 8, 1 }, { "wall", 10, 1 },
		{ "effective", 11, 1 }, { "per thread", 12, 1 }, { "wait", 10, 1 },
		{ "wait %", 8, 1 }, { "attributed", 12, 1 },
	};

	heading(r, "THREADS (effective = wall - Wait)");
	header_row(r, tcols, sizeof(tcols) / sizeof(tcols[0]));
	while ((t = report_next_thread(r->p, r->only, &it, &im))) {
		fputs("  ", r->out);
		snprintf(b, sizeof(b), "%u", im->pid);
		col(r, b, 8, 0);
		snprintf(b, sizeof(b), "%u", t->tid);
		col(r, b, 8, 0);
		report_fit(name, sizeof(name), t->name, 16);
		col(r, name, 17, 0);
		report_fit(name, sizeof(name), report_thread_routine(t), 29);
		col(r, name, 30, 0);
		col_ns(r, (long double)t->wall_ns, 1, 10);
		col_ns(r, (long double)(t->wall_ns - t->wait_ns), 1, 11);
		col_ns(r, (long double)t->wait_ns, r->timed, 10);
		col_ns(r, (long double)t->attr_ns, attr, 12);
		fputc('\n', r->out);
	}

	heading(r, "THREAD GROUPS (threads with the same start routine)");
	header_row(r, gcols, sizeof(gcols) / sizeof(gcols[0]));
	for (i = 0; i < r->ngroups; i++) {
		const struct report_group *g = &r->groups[i];

		fputs("  ", r->out);
		report_fit(name, sizeof(name), g->routine, 29);
		col(r, name, 30, 0);
		snprintf(b, sizeof(b), "%" PRIu64, g->threads);
		col(r, b, 8, 1);
		col_ns(r, (long double)g->wall_ns, 1, 10);
		col_ns(r, (long double)(g->wall_ns - g->wait_ns), 1, 11);
		col_ns(r, report_group_eff(g), 1, 12);
		col_ns(r, (long double)g->wait_ns, r->timed, 10);
		col_pct(r, (long double)g->wait_ns, (long double)g->wall_ns, 8);
		col_ns(r, (long double)g->attr_ns, attr, 12);
		if (g->imbalance) {
			sgr(r, C_WARN);
			fputs("  imbalance", r->out);
			sgr(r, "0");
		}
		fputc('\n', r->out);
	}
	text_imbalance(r);
}

void report_text(const struct report *r)
{
	size_t i;
	int imbalance = 0;

	text_header(r);
	text_components(r);
	text_apis(r);
	text_values(r);
	text_functions(r);
	for (i = 0; i < r->ngroups; i++)
		imbalance |= r->groups[i].imbalance;
	if (r->threads) {
		text_threads(r);
	} else if (imbalance) {
		/* worth saying even unasked: the paper's ferret finding */
		heading(r, "THREAD IMBALANCE (scaler report --threads for the tables)");
		text_imbalance(r);
	}
}
