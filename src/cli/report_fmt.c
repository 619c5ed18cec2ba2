/*
 * report_fmt.c - numbers, names and labels for people, shared by the text
 * and HTML views of `scaler report` (report.h): humanised times and counts,
 * column fitting, how a process ended.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* Display columns of a UTF-8 string (one per code point). */
int report_text_width(const char *s)
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

void report_fit(char *dst, size_t n, const char *s, int width)
{
	size_t o = 0;
	int w = 0;

	if (n == 0)
		return;
	if (report_text_width(s) <= width) {
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

/* s cut to width columns as "head…tail", the tail tail columns long. */
static void fit_ends(char *dst, size_t n, const char *s, int width, int tail)
{
	int len = report_text_width(s), skip = len - tail, w = 0;
	const char *t = s;

	for (; *t && w < skip + 1; t++)         /* to the tail's first code point */
		if (((unsigned char)*t & 0xc0) != 0x80 && ++w == skip + 1)
			break;
	report_fit(dst, n, s, width - tail);    /* head and its ellipsis */
	if (strlen(dst) + strlen(t) < n) {
		strcat(dst, t);
		sanitize(dst);
	}
}

static int clash(const char *out, size_t outsz, const char *const *names, size_t n, size_t i)
{
	for (size_t j = 0; j < n; j++)
		if (j != i && !strcmp(out + i * outsz, out + j * outsz) && strcmp(names[i], names[j]))
			return 1;
	return 0;
}

void report_fit_unique(char *out, size_t outsz, const char *const *names, size_t n, int width)
{
	char *bad = report_xcalloc(n ? n : 1, 1);
	size_t i;
	int tail, any = 0;

	for (i = 0; i < n; i++)
		report_fit(out + i * outsz, outsz, names[i], width);
	for (i = 0; i < n; i++)
		any |= bad[i] = (char)clash(out, outsz, names, n, i);
	/* the clashing ones keep more and more of their ends */
	for (tail = 4; any && tail < width - 1; tail++) {
		for (i = 0; i < n; i++)
			if (bad[i])
				fit_ends(out + i * outsz, outsz, names[i], width, tail);
		any = 0;
		for (i = 0; i < n; i++)
			any |= bad[i] = bad[i] && clash(out, outsz, names, n, i);
	}
	for (i = 0; i < n && any; i++) {
		if (!bad[i])
			continue;
		char tag[24];
		int tl = snprintf(tag, sizeof(tag), "~%zu", i + 1);
		report_fit(out + i * outsz, outsz, names[i], width - tl);
		if (strlen(out + i * outsz) + (size_t)tl < outsz)
			strcat(out + i * outsz, tag);
	}
	free(bad);
}

/* 1234567 -> "1,234,567" */
void report_fmt_count(char *b, size_t n, uint64_t v)
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
void report_fmt_ns(char *b, size_t n, long double ns)
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
void report_fmt_pct(char *b, size_t n, long double part, long double whole)
{
	if (whole <= 0)
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%.1Lf%%", part < 0 ? 0 : part * 100 / whole);
}

int64_t report_clamp0(int64_t v)
{
	return v < 0 ? 0 : v;
}

/* The image that started it all: the first whose parent is not profiled. */
const struct sc_image *report_root_image(const struct sc_profile *p)
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
void report_fmt_command(char *b, size_t n, const struct sc_image *im)
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

const char *report_timing_desc(uint32_t mode)
{
	switch (mode) {
	case SC_TIMING_ADAPTIVE: return "timing adaptive (times estimated from sampled calls)";
	case SC_TIMING_ALL: return "timing all (every call timed)";
	case SC_TIMING_NONE: return "timing none (call counts only)";
	case SC_TIMING_MIXED: return "timing mixed (per process)";
	default: return "timing unknown";
	}
}

const char *report_wait_name(int source)
{
	switch (source) {
	case SC_WAIT_MEASURED: return "measured";
	case SC_WAIT_MIXED: return "mixed";
	default: return "names";
	}
}

const char *report_wait_desc(int source)
{
	switch (source) {
	case SC_WAIT_MEASURED:
		return "Wait measured: the time each timed call was off-CPU and blocked (perf "
		       "context switches); preempted time is shown apart";
	case SC_WAIT_MIXED:
		return "Wait measured where perf events were allowed, guessed from API names "
		       "elsewhere";
	default:
		return "Wait guessed from API names (blocking APIs, long read-like calls): no perf "
		       "events";
	}
}

/* How an image ended, in a few words. */
void report_status_label(char *b, size_t n, const struct sc_image *im)
{
	if (im->has_exit && im->exit.signal)
		snprintf(b, n, "signal %u", im->exit.signal);
	else if (im->has_exit)
		snprintf(b, n, "exit %d", im->exit.exit_status);
	else if (im->has_end && im->end.how == SC_END_EXEC)
		snprintf(b, n, "exec'd");
	else if (im->has_end && im->end.how == SC_END_DETACH)
		snprintf(b, n, "detached");
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

/*
 * The paper's reading of an imbalanced group (ferret and dedup, §4.2.3): the
 * stage whose threads need a fraction of another stage's effective time per
 * thread spends the rest waiting for it, so threads should move from the
 * fast stage to the slow one; then what the reading is based on.
 */
void report_imbalance_text(char *b, size_t n, const struct report *r,
			   const struct report_group *g)
{
	const struct report_group *s = &r->groups[g->slower];
	long double fast = report_group_eff(g), slow = report_group_eff(s);
	char f[32], sl[32], sp[32], k[32], cf[32], cs[32];

	report_fmt_ns(f, sizeof(f), fast);
	report_fmt_ns(sl, sizeof(sl), slow);
	report_fmt_ns(sp, sizeof(sp), (long double)g->start_spread_ns);
	report_fmt_count(k, sizeof(k), g->rendezvous_calls);
	report_fmt_count(cf, sizeof(cf), g->threads ? g->calls / g->threads : 0);
	report_fmt_count(cs, sizeof(cs), s->threads ? s->calls / s->threads : 0);
	snprintf(b, n, "imbalance: threads of %s finish their work in half the time of %s's "
		 "or less (%s vs %s effective per thread) and then wait: rebalance the stages "
		 "(fewer threads for %s, more for %s). Based on: the %" PRIu64 " threads of both "
		 "started together (within %s), do the same kind of work (%s vs %s calls per "
		 "thread) and wait for each other (%s calls of %s)",
		 g->routine, s->routine, f, sl, g->routine, s->routine,
		 g->threads + s->threads, sp, cf, cs, k, g->rendezvous);
}

int64_t report_comp_work(const struct sc_component *c)
{
	int64_t self = report_clamp0(c->self_ns);

	return c->self_wait_ns < self ? self - report_clamp0(c->self_wait_ns) : 0;
}
