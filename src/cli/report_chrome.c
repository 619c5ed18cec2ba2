/*
 * report_chrome.c - `scaler report --format chrome`: Chrome's trace event
 * JSON (the "JSON Object Format" of the Trace Event Format), which
 * Perfetto's UI (ui.perfetto.dev), chrome://tracing and speedscope load.
 *
 *   - process_name / thread_name metadata ("ph":"M") for each process
 *     image and thread (exec'd images of one pid share its tracks);
 *   - each thread's lifetime as a complete slice ("ph":"X", cat "thread");
 *   - the longest calls as slices (cat "call", or "wait" for a Wait API):
 *     the runtime keeps, per thread and API, where its longest timed call
 *     began (sc_rec.max_tsc, format version 5; older profiles have none).
 *     At most MAX_CALL_SLICES of them, the longest, whatever the run's
 *     length: the file stays small (~200 bytes a slice), and
 *     otherData.call_slices_dropped says how many were left out;
 *   - slices of a thread nest strictly (nest() below says how).
 *
 * Times are µs from the earliest start seen (ts, dur with ns as three
 * decimals), each image converted with its own TSC rate; an image without
 * one (tsc_hz 0) has metadata only.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "json.h"
#include "report.h"
#include "series.h"

#define MAX_CALL_SLICES 10000

/* A complete event: a thread's lifetime (l == NULL) or a longest call. */
struct slice {
	const struct sc_image *im;
	const struct sc_thread *t;
	const struct sc_longest *l;
	int64_t ts_ns, dur_ns;
};

/* ticks as ns, held within int64_t (a damaged profile's are anything) */
static int64_t ticks_ns(const struct sc_image *im, long double ticks)
{
	long double ns = ticks * 1e9L / im->tsc_hz;

	if (!(ns == ns))
		return 0;
	if (ns >= 9.2e18L)
		return INT64_MAX;
	if (ns <= -9.2e18L)
		return INT64_MIN;
	return (int64_t)ns;
}

static const char *object_name(const struct sc_image *im, uint32_t id)
{
	size_t i;

	for (i = 0; i < im->nobjects; i++)
		if (im->objects[i].id == id)
			return im->objects[i].name;
	return "?";
}

static const struct sc_thread *thread_of(const struct sc_image *im, uint32_t seq)
{
	size_t i;

	for (i = 0; i < im->nthreads; i++)
		if (im->threads[i].seq == seq)
			return &im->threads[i];
	return NULL;
}

static void event_head(struct sc_json *j, const char *ph, const char *name, uint32_t pid,
		       uint32_t tid)
{
	sc_json_begin_object(j);
	sc_json_key(j, "ph");
	sc_json_string(j, ph);
	sc_json_key(j, "name");
	sc_json_string(j, name);
	sc_json_key(j, "pid");
	sc_json_uint(j, pid);
	sc_json_key(j, "tid");
	sc_json_uint(j, tid);
}

static void metadata(struct sc_json *j, const char *what, uint32_t pid, uint32_t tid,
		     const char *name)
{
	event_head(j, "M", what, pid, tid);
	sc_json_key(j, "args");
	sc_json_begin_object(j);
	sc_json_key(j, "name");
	sc_json_string(j, name);
	sc_json_end_object(j);
	sc_json_end_object(j);
}

static void thread_label(char *buf, size_t n, const struct sc_thread *t)
{
	snprintf(buf, n, "%s (%s)", t->name[0] ? t->name : "?", report_thread_routine(t));
}

/* The image's process name and its threads' names. */
static void image_names(struct sc_json *j, const struct sc_image *im)
{
	char buf[512];
	size_t i;

	report_fmt_command(buf, sizeof(buf), im);
	metadata(j, "process_name", im->pid, im->pid, buf);
	for (i = 0; i < im->nthreads; i++)
		if (im->threads[i].has_file) {
			thread_label(buf, sizeof(buf), &im->threads[i]);
			metadata(j, "thread_name", im->pid, im->threads[i].tid, buf);
		}
}

static int longer(const void *x, const void *y)
{
	const struct slice *a = x, *b = y;

	return a->dur_ns > b->dur_ns ? -1 : a->dur_ns < b->dur_ns;
}

/* by track (pid, tid), then start, the enclosing (longer) slice first */
static int by_track(const void *x, const void *y)
{
	const struct slice *a = x, *b = y;
	uint32_t ta = a->t ? a->t->tid : 0, tb = b->t ? b->t->tid : 0;

	if (a->im->pid != b->im->pid)
		return a->im->pid < b->im->pid ? -1 : 1;
	if (ta != tb)
		return ta < tb ? -1 : 1;
	if (a->ts_ns != b->ts_ns)
		return a->ts_ns < b->ts_ns ? -1 : 1;
	return longer(x, y);
}

/*
 * The slices of the report's images: every thread's lifetime, and the
 * MAX_CALL_SLICES longest calls; *dropped counts the calls left out.
 * Returns the array (free it), sorted by track and start.
 */
static struct slice *collect(const struct report *r, uint64_t origin, size_t *n, size_t *dropped)
{
	const struct sc_profile *p = r->p;
	struct slice *s;
	size_t cap = 0, calls = 0, i, k;

	for (i = 0; i < p->nimages; i++)
		if (report_has_image(r, &p->images[i]))
			cap += p->images[i].nlongest + p->images[i].nthreads;
	s = report_xcalloc(cap, sizeof(*s));
	for (i = 0; i < p->nimages; i++) {
		const struct sc_image *im = &p->images[i];

		if (!report_has_image(r, im) || im->tsc_hz <= 0)
			continue;
		for (k = 0; k < im->nlongest; k++, calls++) {
			s[calls].im = im;
			s[calls].l = &im->longest[k];
			s[calls].t = thread_of(im, im->longest[k].seq);
			s[calls].ts_ns = ticks_ns(im, (long double)im->longest[k].start_tsc -
						      (long double)origin);
			s[calls].dur_ns = ticks_ns(im, (long double)im->longest[k].ticks);
		}
	}
	qsort(s, calls, sizeof(*s), longer);
	*dropped = calls > MAX_CALL_SLICES ? calls - MAX_CALL_SLICES : 0;
	*n = calls - *dropped;
	for (i = 0; i < p->nimages; i++) {
		const struct sc_image *im = &p->images[i];

		if (!report_has_image(r, im) || im->tsc_hz <= 0)
			continue;
		for (k = 0; k < im->nthreads; k++) {
			const struct sc_thread *t = &im->threads[k];

			if (!t->has_file || !t->start_tsc)
				continue;
			/* over a dropped call's slot: every field set */
			s[(*n)++] = (struct slice){
				.im = im, .t = t, .l = NULL, .dur_ns = t->wall_ns,
				.ts_ns = ticks_ns(im, (long double)t->start_tsc - (long double)origin),
			};
		}
	}
	qsort(s, *n, sizeof(*s), by_track);
	return s;
}

/*
 * Slices of one track must nest: a viewer turns them into begin/end pairs
 * and cannot tell the order of equal times (a tail call ends with its
 * caller) or mend an overlap (a call booked up to the process's end
 * outlives its thread's recorded end). So a slice that starts with its
 * enclosing one starts 1 ns later, and one that would end with or after
 * it ends 1 ns before; a slice left with no length is dropped.
 */
static void nest(struct slice *s, size_t n)
{
	struct slice *open[STACK_MAX_PATH * 4];
	size_t i, depth = 0;

	for (i = 0; i < n; i++) {
		struct slice *c = &s[i];

		if (i && (c->im->pid != s[i - 1].im->pid ||
			  (c->t ? c->t->tid : 0) != (s[i - 1].t ? s[i - 1].t->tid : 0)))
			depth = 0;
		/* saturated: the ends of a damaged profile's slices may lie
		 * past INT64_MAX ns */
		while (depth && sc_add_sat(open[depth - 1]->ts_ns, open[depth - 1]->dur_ns) <=
				c->ts_ns)
			depth--;
		if (depth) {
			const struct slice *o = open[depth - 1];
			int64_t end = sc_add_sat(c->ts_ns, c->dur_ns);
			int64_t oend = sc_add_sat(o->ts_ns, o->dur_ns);

			if (c->ts_ns <= o->ts_ns)
				c->ts_ns = sc_add_sat(o->ts_ns, 1);
			if (end >= oend)
				end = sc_sub_sat(oend, 1);
			c->dur_ns = sc_sub_sat(end, c->ts_ns);
		}
		if (c->dur_ns <= 0) {
			c->dur_ns = -1;         /* dropped */
			continue;
		}
		if (depth < sizeof(open) / sizeof(open[0]))
			open[depth++] = c;
	}
}

static void slice_event(struct sc_json *j, const struct slice *c)
{
	const struct sc_image *im = c->im;
	uint32_t tid = c->t ? c->t->tid : 0;
	char name[512], dem[400];

	if (c->l) {
		const struct sc_entry *e = &im->entries[c->l->entry];

		snprintf(name, sizeof(name), "%s:%s", object_name(im, e->callee),
			 sc_demangle(e->api, dem, sizeof(dem)));
		event_head(j, "X", name, im->pid, tid);
		sc_json_key(j, "cat");
		sc_json_string(j, e->flags & SC_ENT_WAIT ? "wait" : "call");
	} else {
		thread_label(name, sizeof(name), c->t);
		event_head(j, "X", name, im->pid, tid);
		sc_json_key(j, "cat");
		sc_json_string(j, "thread");
	}
	sc_json_key(j, "ts");
	sc_json_thousandths(j, c->ts_ns);
	sc_json_key(j, "dur");
	sc_json_thousandths(j, c->dur_ns);
	sc_json_key(j, "args");
	sc_json_begin_object(j);
	if (c->l) {
		const struct sc_entry *e = &im->entries[c->l->entry];

		sc_json_key(j, "caller");
		sc_json_string(j, object_name(im, e->caller));
		sc_json_key(j, "calls");
		sc_json_uint(j, e->count);
	} else {
		sc_json_key(j, "wait_ns");
		sc_json_int(j, c->t->wait_ns);
		sc_json_key(j, "attr_ns");
		sc_json_int(j, c->t->attr_ns);
	}
	sc_json_end_object(j);
	sc_json_end_object(j);
}

void report_chrome(const struct report *r)
{
	const struct sc_profile *p = r->p;
	uint64_t origin = UINT64_MAX;
	struct sc_json j;
	struct slice *s;
	size_t i, k, n, dropped;

	/* the earliest start of any image or thread: TSC is one clock for
	 * the whole machine */
	for (i = 0; i < p->nimages; i++) {
		const struct sc_image *im = &p->images[i];

		if (!report_has_image(r, im) || im->tsc_hz <= 0)
			continue;
		if (im->hdr.start_tsc && im->hdr.start_tsc < origin)
			origin = im->hdr.start_tsc;
		for (k = 0; k < im->nthreads; k++)
			if (im->threads[k].start_tsc && im->threads[k].start_tsc < origin)
				origin = im->threads[k].start_tsc;
	}
	sc_json_init(&j, r->out);
	sc_json_begin_object(&j);
	sc_json_key(&j, "displayTimeUnit");
	sc_json_string(&j, "ns");
	sc_json_key(&j, "traceEvents");
	sc_json_begin_array(&j);
	for (i = 0; i < p->nimages; i++)
		if (report_has_image(r, &p->images[i]))
			image_names(&j, &p->images[i]);
	s = collect(r, origin, &n, &dropped);
	nest(s, n);
	for (i = 0; i < n; i++)
		if (s[i].dur_ns > 0)
			slice_event(&j, &s[i]);
	free(s);
	/* counter tracks of the time series (record --interval) */
	if (r->series)
		series_chrome(&j, r->series, report_root_image(p), origin);
	sc_json_end_array(&j);
	sc_json_key(&j, "otherData");
	sc_json_begin_object(&j);
	sc_json_key(&j, "exporter");
	sc_json_string(&j, "scaler");
	sc_json_key(&j, "call_slices_max");
	sc_json_uint(&j, MAX_CALL_SLICES);
	sc_json_key(&j, "call_slices_dropped");
	sc_json_uint(&j, dropped);
	sc_json_end_object(&j);
	sc_json_end_object(&j);
	fputc('\n', r->out);
}
