/*
 * cmd_report.c - `scaler report`: loads a profile directory (profile.c) and
 * prints it for a person (text: the component view, then the API view) or
 * for a program (--format json, the "scaler-report" version 1 document).
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "json.h"
#include "profile.h"

#define LINE_MAX_COLS 100
#define API_ROWS 30             /* API view rows per component */

static void usage(FILE *f)
{
	fputs("usage: scaler report [-i DIR] [--format text|json]\n"
	      "\n"
	      "  -i, --input DIR   profile directory to read (default scaler.data)\n"
	      "      --format FMT  text (default), for people; json, for programs\n"
	      "  -h, --help        this help\n",
	      f);
}

/* ---- formatting helpers ------------------------------------------------ */

/*
 * C++ names for people: the text view shows `std::_Rb_tree_increment(...)`
 * where the profile (and the JSON) keep the linked symbol. The demangler is
 * libstdc++'s own, looked up when first needed, so scaler has no build
 * dependency on C++; without it names stay mangled.
 */
typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

static const char *pretty(const char *sym, char *buf, size_t n)
{
	static demangle_fn fn;
	static int tried;
	if (strncmp(sym, "_Z", 2) != 0)
		return sym;
	if (!tried) {
		tried = 1;
		void *h = dlopen("libstdc++.so.6", RTLD_LAZY);
		if (h)
			fn = (demangle_fn)(uintptr_t)dlsym(h, "__cxa_demangle");
	}
	int st = -1;
	char *d = fn ? fn(sym, NULL, NULL, &st) : NULL;
	if (!d || st != 0) {
		free(d);
		return sym;
	}
	snprintf(buf, n, "%s", d);
	free(d);
	return buf;
}

/* Display columns of a UTF-8 string (one per code point). */
static int text_width(const char *s)
{
	int w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

/* Control characters would break the layout: show them as '?'. */
static void sanitize(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

/* Copy s into dst, cut to `width` columns with a trailing "…" if longer,
 * control characters replaced. */
static void fit(char *dst, size_t n, const char *s, int width)
{
	size_t o = 0;
	int w = 0;

	if (n == 0)
		return;
	if (text_width(s) <= width) {
		snprintf(dst, n, "%s", s);
		sanitize(dst);
		return;
	}
	/* keep width - 1 columns, then the ellipsis */
	while (*s && o + 4 < n) {
		if (((unsigned char)*s & 0xc0) != 0x80) {
			if (w == width - 1)
				break;
			w++;
		}
		dst[o++] = *s++;
	}
	while (o > 0 && ((unsigned char)dst[o - 1] & 0xc0) == 0xc0)
		o--;            /* never end on a dangling lead byte */
	memcpy(dst + o, "\xe2\x80\xa6", 3);
	dst[o + 3] = '\0';
	sanitize(dst);
}

/* Print s padded to `width` columns (right-aligned if right). */
static void col(const char *s, int width, int right)
{
	int pad = width - text_width(s);

	if (right)
		while (pad-- > 0)
			putchar(' ');
	fputs(s, stdout);
	if (!right)
		while (pad-- > 0)
			putchar(' ');
}

/* 1234567 -> "1,234,567" */
static void fmt_count(char *b, size_t n, uint64_t v)
{
	char tmp[32];
	int len = snprintf(tmp, sizeof(tmp), "%" PRIu64, v), i, o = 0;

	for (i = 0; i < len && (size_t)o + 2 < n; i++) {
		if (i > 0 && (len - i) % 3 == 0)
			b[o++] = ',';
		b[o++] = tmp[i];
	}
	b[o] = '\0';
}

/* Humanised time, three significant digits: "950 ns", "12.3 µs", "1.20 s". */
static void fmt_ns(char *b, size_t n, long double ns)
{
	static const char *const units[] = { "µs", "ms", "s" };
	int u = -1;

	if (ns < 0)
		ns = 0;
	if (ns < 999.5L) {
		snprintf(b, n, "%.0Lf ns", ns);
		return;
	}
	while (u < 2 && ns >= 999.5L) {
		ns /= 1000;
		u++;
	}
	if (ns < 9.995L)
		snprintf(b, n, "%.2Lf %s", ns, units[u]);
	else if (ns < 99.95L)
		snprintf(b, n, "%.1Lf %s", ns, units[u]);
	else
		snprintf(b, n, "%.0Lf %s", ns, units[u]);
}

/* part as a percentage of whole, "-" if whole is 0. */
static void fmt_pct(char *b, size_t n, long double part, long double whole)
{
	if (whole <= 0)
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%.1Lf%%", part < 0 ? 0 : part * 100 / whole);
}

static int64_t clamp0(int64_t v)
{
	return v < 0 ? 0 : v;
}

/* The image that started it all: the first whose parent is not profiled. */
static const struct sc_image *root_image(const struct sc_profile *p)
{
	size_t i, j;

	for (i = 0; i < p->nimages; i++) {
		for (j = 0; j < p->nimages; j++)
			if (p->images[j].pid == p->images[i].ppid)
				break;
		if (j == p->nimages)
			return &p->images[i];
	}
	return p->nimages ? &p->images[0] : NULL;
}

/* argv joined by spaces into b. */
static void fmt_command(char *b, size_t n, const struct sc_image *im)
{
	size_t i, o = 0;

	b[0] = '\0';
	if (!im || im->argc == 0) {
		snprintf(b, n, "(unknown command)");
		return;
	}
	for (i = 0; i < im->argc && o + 1 < n; i++) {
		int w = snprintf(b + o, n - o, "%s%s", i ? " " : "", im->argv[i]);

		if (w < 0)
			break;
		o += (size_t)w;
	}
}

static const char *timing_desc(uint32_t mode)
{
	switch (mode) {
	case SC_TIMING_ADAPTIVE: return "timing adaptive (times estimated from sampled calls)";
	case SC_TIMING_ALL: return "timing all (every call timed)";
	case SC_TIMING_NONE: return "timing none (call counts only)";
	case SC_TIMING_MIXED: return "timing mixed (per process)";
	default: return "timing unknown";
	}
}

/* ---- text -------------------------------------------------------------- */

/* How an image ended, in a few words. */
static void status_label(char *b, size_t n, const struct sc_image *im)
{
	if (im->has_exit && im->exit.signal)
		snprintf(b, n, "signal %u", im->exit.signal);
	else if (im->has_exit)
		snprintf(b, n, "exit %d", im->exit.exit_status);
	else if (im->has_end && im->end.how == SC_END_EXEC)
		snprintf(b, n, "exec'd");
	else if (im->has_end && im->end.how == SC_END_SIGNAL && im->end.status > 128)
		snprintf(b, n, "signal %d", im->end.status - 128);
	else if (im->has_end && im->end.how == SC_END_SIGNAL)
		snprintf(b, n, "killed");
	else if (im->has_end && im->end.status >= 0)
		snprintf(b, n, "exit %d", im->end.status);
	else if (im->has_end)
		snprintf(b, n, "exited");
	else
		snprintf(b, n, "incomplete");
}

static void text_header(const struct sc_profile *p)
{
	const struct sc_image *root = root_image(p);
	char cmd[4096], cmdfit[512], wall[32], tail[200];
	size_t i;

	fmt_command(cmd, sizeof(cmd), root);
	if (p->wall_ns > 0)
		fmt_ns(wall, sizeof(wall), (long double)p->wall_ns);
	else
		snprintf(wall, sizeof(wall), "unknown");
	if (p->nimages == 1) {
		char st[32];

		status_label(st, sizeof(st), &p->images[0]);
		snprintf(tail, sizeof(tail), " (1 process, %s, wall %s)", st, wall);
	} else {
		snprintf(tail, sizeof(tail), " (%zu processes, wall %s)", p->nimages, wall);
	}
	fit(cmdfit, sizeof(cmdfit), cmd,
	    LINE_MAX_COLS - (int)strlen("scaler report: ") - text_width(tail));
	printf("scaler report: %s%s\n", cmdfit, tail);
	printf("%s", timing_desc(p->timing_mode));
	/* the interceptor's own share of each timed call was measured at
	 * start-up and taken off every call's time: say how much */
	if (p->timing_mode != SC_TIMING_NONE && p->nimages && p->images[0].tsc_hz > 0 &&
	    p->images[0].hdr.overhead_ticks) {
		char b[32];
		fmt_ns(b, sizeof(b), (long double)p->images[0].hdr.overhead_ticks * 1e9L /
					     p->images[0].tsc_hz);
		printf("; %s/call own cost subtracted", b);
	}
	printf("\n");

	if (p->nimages == 1) {
		if (p->images[0].incomplete)
			printf("(incomplete: process did not finish normally)\n");
	} else {
		printf("\nPROCESSES\n");
		for (i = 0; i < p->nimages; i++) {
			const struct sc_image *im = &p->images[i];
			char id[64], st[32], w[32], c[512];

			snprintf(id, sizeof(id), "%u", im->pid);
			if (im->gen)
				snprintf(id, sizeof(id), "%u (exec %u)", im->pid, im->gen);
			status_label(st, sizeof(st), im);
			if (im->wall_ns > 0)
				fmt_ns(w, sizeof(w), (long double)im->wall_ns);
			else
				snprintf(w, sizeof(w), "-");
			fmt_command(cmd, sizeof(cmd), im);
			fit(c, sizeof(c), cmd, LINE_MAX_COLS - 2 - 18 - 12 - 10 - 2);
			printf("  ");
			col(id, 18, 0);
			col(st, 12, 0);
			col(w, 10, 1);
			printf("  %s\n", c);
		}
		for (i = 0; i < p->nimages; i++)
			if (p->images[i].incomplete)
				printf("(incomplete: process %u did not finish normally)\n",
				       p->images[i].pid);
	}
}

#define NAME_COLS 40

static void text_components(const struct sc_profile *p, int timed)
{
	const struct sc_agg *a = &p->agg;
	long double all = (long double)a->threads_ns;
	char b1[64], b2[64], b3[64], b4[64], name[256];
	size_t i, e;

	fmt_ns(b1, sizeof(b1), all);
	printf("\nCOMPONENT VIEW: where the threads' time goes (all threads: %s)\n", b1);
	printf("  ");
	col("component", NAME_COLS, 0);
	if (timed) {
		col("total", 11, 1);
		col("%", 7, 1);
		col("self", 11, 1);
		col("%", 7, 1);
	} else {
		col("threads", 11, 1);
		col("%", 7, 1);
		col("calls out", 14, 1);
		col("calls in", 14, 1);
	}
	putchar('\n');
	if (a->ncomp == 0)
		printf("  (no threads or calls recorded)\n");
	for (i = 0; i < a->ncomp; i++) {
		const struct sc_component *c = &a->comp[i];

		fit(name, sizeof(name), c->name, NAME_COLS - 1);
		printf("  ");
		col(name, NAME_COLS, 0);
		if (timed) {
			fmt_ns(b1, sizeof(b1), (long double)c->total_ns);
			fmt_pct(b2, sizeof(b2), (long double)c->total_ns, all);
			fmt_ns(b3, sizeof(b3), (long double)clamp0(c->self_ns));
			fmt_pct(b4, sizeof(b4), (long double)clamp0(c->self_ns), all);
			col(b1, 11, 1);
			col(b2, 7, 1);
			col(b3, 11, 1);
			col(b4, 7, 1);
		} else {
			fmt_ns(b1, sizeof(b1), (long double)c->threads_ns);
			fmt_pct(b2, sizeof(b2), (long double)c->threads_ns, all);
			fmt_count(b3, sizeof(b3), c->out_calls);
			fmt_count(b4, sizeof(b4), c->in_calls);
			col(b1, 11, 1);
			col(b2, 7, 1);
			col(b3, 14, 1);
			col(b4, 14, 1);
		}
		putchar('\n');
		for (e = 0; e < c->nout; e++) {
			char arrow[300];

			fit(name, sizeof(name), c->out[e].callee, NAME_COLS - 7);
			snprintf(arrow, sizeof(arrow), "    \xe2\x86\x92 %s", name);
			printf("  ");
			col(arrow, NAME_COLS, 0);
			if (timed) {
				fmt_ns(b1, sizeof(b1), (long double)c->out[e].ns);
				fmt_pct(b2, sizeof(b2), (long double)c->out[e].ns, all);
				col(b1, 11, 1);
				col(b2, 7, 1);
			} else {
				fmt_count(b3, sizeof(b3), c->out[e].calls);
				col("", 18, 1);
				col(b3, 14, 1);
			}
			putchar('\n');
		}
		/* the paper's Wait slice: time its threads spent blocked in
		 * waiting APIs (already inside the arrows above), not working */
		if (timed && c->wait_ns > 0) {
			printf("  ");
			col("    (of which Wait: blocked)", NAME_COLS, 0);
			fmt_ns(b1, sizeof(b1), (long double)c->wait_ns);
			fmt_pct(b2, sizeof(b2), (long double)c->wait_ns, all);
			col(b1, 11, 1);
			col(b2, 7, 1);
			putchar('\n');
		}
	}
}

static int cmp_in(const void *x, const void *y)
{
	const struct sc_component *a = *(const struct sc_component *const *)x;
	const struct sc_component *b = *(const struct sc_component *const *)y;

	if (a->in_ns != b->in_ns)
		return a->in_ns > b->in_ns ? -1 : 1;
	if (a->in_calls != b->in_calls)
		return a->in_calls > b->in_calls ? -1 : 1;
	return strcmp(a->name, b->name);
}

#define API_COLS 30

static void text_apis(const struct sc_profile *p, int timed)
{
	const struct sc_agg *a = &p->agg;
	const struct sc_component **by_in;
	char b1[64], b2[64], b3[64], b4[64], name[256];
	size_t i, k, n = 0;

	by_in = calloc(a->ncomp ? a->ncomp : 1, sizeof(*by_in));
	if (!by_in) {
		fputs("scaler: out of memory\n", stderr);
		exit(1);
	}
	for (i = 0; i < a->ncomp; i++) {
		/* listed if anything calls into it, even from itself */
		for (k = 0; k < a->ncalls; k++)
			if (!strcmp(a->calls[k].callee, a->comp[i].name))
				break;
		if (k < a->ncalls)
			by_in[n++] = &a->comp[i];
	}
	if (n > 1)
		qsort(by_in, n, sizeof(*by_in), cmp_in);

	printf("\nAPI VIEW: calls into each component\n");
	if (n == 0)
		printf("  (no calls recorded)\n");
	for (i = 0; i < n; i++) {
		const struct sc_component *c = by_in[i];
		size_t shown = 0, more = 0;
		uint64_t more_calls = 0;
		int64_t more_ns = 0;

		fmt_count(b2, sizeof(b2), c->in_calls);
		fit(name, sizeof(name), c->name, 50);
		if (timed) {
			fmt_ns(b1, sizeof(b1), (long double)c->in_ns);
			printf("\n  %s: %s in %s calls from other components\n", name, b1, b2);
		} else {
			printf("\n  %s: %s calls from other components\n", name, b2);
		}
		printf("    ");
		col("api", API_COLS, 0);
		col("calls", 14, 1);
		if (timed) {
			col("total", 11, 1);
			col("%in", 7, 1);
			col("avg/call", 10, 1);
		} else {
			col("%in", 7, 1);
		}
		printf("  from\n");
		for (k = 0; k < a->ncalls; k++) {
			const struct sc_call *call = &a->calls[k];
			int internal = !strcmp(call->caller, call->callee);
			int used;

			if (strcmp(call->callee, c->name))
				continue;
			if (shown == API_ROWS) {
				more++;
				more_calls += call->count;
				more_ns += call->total_ns;
				continue;
			}
			shown++;
			char dem[512];
			fit(name, sizeof(name), pretty(call->api, dem, sizeof(dem)), API_COLS - 1);
			printf("    ");
			col(name, API_COLS, 0);
			fmt_count(b1, sizeof(b1), call->count);
			col(b1, 14, 1);
			used = 4 + API_COLS + 14;
			if (timed) {
				fmt_ns(b2, sizeof(b2), (long double)call->total_ns);
				if (internal)
					snprintf(b3, sizeof(b3), "-");
				else
					fmt_pct(b3, sizeof(b3), (long double)call->total_ns,
						(long double)c->in_ns);
				fmt_ns(b4, sizeof(b4),
				       (long double)call->total_ns / (long double)call->count);
				col(b2, 11, 1);
				col(b3, 7, 1);
				col(b4, 10, 1);
				used += 11 + 7 + 10;
			} else {
				if (internal)
					snprintf(b3, sizeof(b3), "-");
				else
					fmt_pct(b3, sizeof(b3), (long double)call->count,
						(long double)c->in_calls);
				col(b3, 7, 1);
				used += 7;
			}
			fit(name, sizeof(name), call->caller, LINE_MAX_COLS - used - 2 - 9);
			printf("  %s%s\n", name, internal ? " (itself)" : "");
		}
		if (more) {
			fmt_count(b1, sizeof(b1), more);
			fmt_count(b2, sizeof(b2), more_calls);
			if (timed) {
				fmt_ns(b3, sizeof(b3), (long double)more_ns);
				printf("    \xe2\x80\xa6 %s more (%s calls, %s)\n", b1, b2, b3);
			} else {
				printf("    \xe2\x80\xa6 %s more (%s calls)\n", b1, b2);
			}
		}
	}
	free(by_in);
}

static void report_text(const struct sc_profile *p)
{
	int timed = p->timing_mode != SC_TIMING_NONE;

	text_header(p);
	text_components(p, timed);
	text_apis(p, timed);
}

/* ---- json -------------------------------------------------------------- */

static void json_agg(struct sc_json *j, const struct sc_agg *a)
{
	size_t i;

	sc_json_key(j, "components");
	sc_json_begin_array(j);
	for (i = 0; i < a->ncomp; i++) {
		const struct sc_component *c = &a->comp[i];

		sc_json_begin_object(j);
		sc_json_key(j, "name");
		sc_json_string(j, c->name);
		sc_json_key(j, "path");
		sc_json_string(j, c->path);
		sc_json_key(j, "total_ns");
		sc_json_int(j, c->total_ns);
		sc_json_key(j, "self_ns");
		sc_json_int(j, clamp0(c->self_ns));
		sc_json_key(j, "wait_ns");
		sc_json_int(j, c->wait_ns);
		sc_json_key(j, "attr_total_ns");
		sc_json_int(j, c->attr_total_ns);
		sc_json_key(j, "attr_self_ns");
		sc_json_int(j, clamp0(c->attr_self_ns));
		sc_json_end_object(j);
	}
	sc_json_end_array(j);
	sc_json_key(j, "critical_ns");
	sc_json_int(j, a->attr_ns);
	sc_json_key(j, "calls");
	sc_json_begin_array(j);
	for (i = 0; i < a->ncalls; i++) {
		const struct sc_call *c = &a->calls[i];

		sc_json_begin_object(j);
		sc_json_key(j, "caller");
		sc_json_string(j, c->caller);
		sc_json_key(j, "callee");
		sc_json_string(j, c->callee);
		sc_json_key(j, "api");
		sc_json_string(j, c->api);
		sc_json_key(j, "count");
		sc_json_uint(j, c->count);
		sc_json_key(j, "total_ns");
		sc_json_int(j, c->total_ns);
		sc_json_key(j, "self_ns");
		sc_json_int(j, c->self_ns);
		sc_json_key(j, "wait");
		sc_json_bool(j, c->wait);
		sc_json_key(j, "wait_ns");
		sc_json_int(j, c->wait_ns);
		sc_json_key(j, "attr_ns");
		sc_json_int(j, c->attr_ns);
		sc_json_key(j, "p50_ns");
		sc_json_int(j, c->p50_ns);
		sc_json_key(j, "p99_ns");
		sc_json_int(j, c->p99_ns);
		sc_json_key(j, "max_ns");
		sc_json_int(j, c->max_ns);
		/* [lo_ns, hi_ns, count] per non-empty bucket; hi null: open */
		sc_json_key(j, "hist");
		sc_json_begin_array(j);
		for (int b = 0; b < SC_HIST_BUCKETS; b++) {
			if (!c->hist[b])
				continue;
			sc_json_begin_array(j);
			sc_json_uint(j, sc_hist_lo_ns(b));
			if (b + 1 < SC_HIST_BUCKETS)
				sc_json_uint(j, sc_hist_lo_ns(b + 1));
			else
				sc_json_null(j);
			sc_json_uint(j, c->hist[b]);
			sc_json_end_array(j);
		}
		sc_json_end_array(j);
		sc_json_end_object(j);
	}
	sc_json_end_array(j);
}

static const char *thread_routine(const struct sc_thread *t)
{
	return t->seq == 0 ? "main" : t->routine[0] ? t->routine : "?";
}

static void json_thread(struct sc_json *j, const struct sc_image *im, const struct sc_thread *t)
{
	sc_json_begin_object(j);
	sc_json_key(j, "pid");
	sc_json_uint(j, im->pid);
	sc_json_key(j, "gen");
	sc_json_uint(j, im->gen);
	sc_json_key(j, "seq");
	sc_json_uint(j, t->seq);
	sc_json_key(j, "tid");
	sc_json_uint(j, t->tid);
	sc_json_key(j, "name");
	sc_json_string(j, t->name);
	sc_json_key(j, "start_routine");
	sc_json_string(j, thread_routine(t));
	sc_json_key(j, "wall_ns");
	sc_json_int(j, t->wall_ns);
	sc_json_key(j, "wait_ns");
	sc_json_int(j, t->wait_ns);
	sc_json_key(j, "effective_ns");
	sc_json_int(j, t->wall_ns - t->wait_ns);
	sc_json_key(j, "attr_ns");
	sc_json_int(j, t->attr_ns);
	sc_json_end_object(j);
}

/*
 * Thread groups: threads with the same start routine (across processes at
 * the top level). A group is flagged imbalanced when another group's
 * effective (not waiting) time per thread is at least twice its own while
 * it waits — the pattern of ferret and dedup in the Scaler paper (§4.2.3):
 * threads of the fast stage sit waiting for the slow one.
 */
struct tgroup {
	const char *routine;
	uint64_t threads;
	int64_t wall_ns, wait_ns;
};

static void json_groups(struct sc_json *j, const struct sc_profile *p, const struct sc_image *only)
{
	struct tgroup g[256];
	size_t ng = 0, i, k;
	for (i = 0; i < p->nimages; i++) {
		const struct sc_image *im = &p->images[i];
		if (only && im != only)
			continue;
		for (k = 0; k < im->nthreads; k++) {
			const struct sc_thread *t = &im->threads[k];
			size_t x;
			if (!t->has_file)
				continue;
			for (x = 0; x < ng; x++)
				if (!strcmp(g[x].routine, thread_routine(t)))
					break;
			if (x == ng) {
				if (ng == 256)
					continue;
				g[ng++] = (struct tgroup){thread_routine(t), 0, 0, 0};
			}
			g[x].threads++;
			g[x].wall_ns += t->wall_ns;
			g[x].wait_ns += t->wait_ns;
		}
	}
	sc_json_key(j, "thread_groups");
	sc_json_begin_array(j);
	for (i = 0; i < ng; i++) {
		long double eff = (long double)(g[i].wall_ns - g[i].wait_ns) / (long double)g[i].threads;
		int imb = 0;
		/* the main thread coordinates (joins): never a stage of its own */
		for (k = 0; k < ng && g[i].wait_ns > 0 && strcmp(g[i].routine, "main"); k++) {
			long double other = (long double)(g[k].wall_ns - g[k].wait_ns) /
					    (long double)g[k].threads;
			if (k != i && other >= 2 * eff)
				imb = 1;
		}
		sc_json_begin_object(j);
		sc_json_key(j, "start_routine");
		sc_json_string(j, g[i].routine);
		sc_json_key(j, "threads");
		sc_json_uint(j, g[i].threads);
		sc_json_key(j, "wall_ns");
		sc_json_int(j, g[i].wall_ns);
		sc_json_key(j, "wait_ns");
		sc_json_int(j, g[i].wait_ns);
		sc_json_key(j, "effective_ns");
		sc_json_int(j, g[i].wall_ns - g[i].wait_ns);
		sc_json_key(j, "imbalance");
		sc_json_bool(j, imb);
		sc_json_end_object(j);
	}
	sc_json_end_array(j);
}

static void report_json(const struct sc_profile *p)
{
	struct sc_json j;
	size_t i, k;

	sc_json_init(&j, stdout);
	sc_json_begin_object(&j);
	sc_json_key(&j, "format");
	sc_json_string(&j, "scaler-report");
	sc_json_key(&j, "version");
	sc_json_int(&j, 1);
	sc_json_key(&j, "timing");
	sc_json_string(&j, sc_timing_name(p->timing_mode));
	json_agg(&j, &p->agg);
	sc_json_key(&j, "threads");
	sc_json_begin_array(&j);
	for (i = 0; i < p->nimages; i++)
		for (k = 0; k < p->images[i].nthreads; k++)
			if (p->images[i].threads[k].has_file)
				json_thread(&j, &p->images[i], &p->images[i].threads[k]);
	sc_json_end_array(&j);
	json_groups(&j, p, NULL);
	sc_json_key(&j, "processes");
	sc_json_begin_array(&j);
	for (i = 0; i < p->nimages; i++) {
		const struct sc_image *im = &p->images[i];

		sc_json_begin_object(&j);
		sc_json_key(&j, "pid");
		sc_json_uint(&j, im->pid);
		sc_json_key(&j, "ppid");
		sc_json_uint(&j, im->ppid);
		sc_json_key(&j, "gen");
		sc_json_uint(&j, im->gen);
		sc_json_key(&j, "command");
		sc_json_begin_array(&j);
		for (k = 0; k < im->argc; k++)
			sc_json_string(&j, im->argv[k]);
		sc_json_end_array(&j);
		sc_json_key(&j, "exit_status");
		sc_json_int(&j, im->exit_status);
		sc_json_key(&j, "wall_ns");
		sc_json_int(&j, im->wall_ns);
		json_agg(&j, &im->agg);
		/* per thread: effective = wall - Wait (the paper's §3.5 view) */
		sc_json_key(&j, "threads");
		sc_json_begin_array(&j);
		for (k = 0; k < im->nthreads; k++)
			if (im->threads[k].has_file)
				json_thread(&j, im, &im->threads[k]);
		sc_json_end_array(&j);
		json_groups(&j, p, im);
		sc_json_end_object(&j);
	}
	sc_json_end_array(&j);
	sc_json_end_object(&j);
	putchar('\n');
}

/* ---- command ----------------------------------------------------------- */

int cmd_report(int argc, char **argv)
{
	const char *input = "scaler.data", *format = "text";
	struct sc_profile prof;
	char err[1024];
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "-i") || !strcmp(a, "--input") ||
			   !strcmp(a, "--format")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "scaler: report: option '%s' needs an argument\n", a);
				return 2;
			}
			if (!strcmp(a, "--format"))
				format = argv[++i];
			else
				input = argv[++i];
		} else if (!strncmp(a, "--input=", 8)) {
			input = a + 8;
		} else if (!strncmp(a, "--format=", 9)) {
			format = a + 9;
		} else if (!strncmp(a, "-i", 2)) {
			input = a + 2;
		} else if (a[0] == '-') {
			fprintf(stderr, "scaler: report: unknown option '%s' (try: scaler report --help)\n", a);
			return 2;
		} else {
			fprintf(stderr, "scaler: report: unexpected argument '%s' (use -i DIR)\n", a);
			return 2;
		}
	}
	if (strcmp(format, "text") && strcmp(format, "json")) {
		fprintf(stderr, "scaler: report: unknown format '%s' (text or json)\n", format);
		return 2;
	}
	if (sc_profile_load(input, &prof, err, sizeof(err)) < 0) {
		fprintf(stderr, "scaler: %s\n", err);
		sc_profile_free(&prof);
		return 1;
	}
	if (!strcmp(format, "json"))
		report_json(&prof);
	else
		report_text(&prof);
	sc_profile_free(&prof);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "scaler: write error: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
