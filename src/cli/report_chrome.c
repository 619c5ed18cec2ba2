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
 *     otherData.call_slices_dropped says how many were left out.
 *
 * Times are µs from the earliest start seen (ts, dur with ns as three
 * decimals), each image converted with its own TSC rate; an image without
 * one (tsc_hz 0) has metadata only.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "report.h"

#define MAX_CALL_SLICES 10000

struct slice {
	const struct sc_image *im;
	const struct sc_longest *l;
	int64_t dur_ns;
};

static int64_t tsc_ns(const struct sc_image *im, uint64_t tsc, uint64_t origin)
{
	long double d = (long double)tsc - (long double)origin;

	return (int64_t)(d * 1e9L / im->tsc_hz);
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

static void span(struct sc_json *j, int64_t ts_ns, int64_t dur_ns)
{
	sc_json_key(j, "ts");
	sc_json_thousandths(j, ts_ns);
	sc_json_key(j, "dur");
	sc_json_thousandths(j, dur_ns > 0 ? dur_ns : 0);
}

/* The image's process name and its threads: names and lifetimes. */
static void image_events(struct sc_json *j, const struct sc_image *im, uint64_t origin)
{
	char buf[512];
	size_t i;

	report_fmt_command(buf, sizeof(buf), im);
	metadata(j, "process_name", im->pid, im->pid, buf);
	for (i = 0; i < im->nthreads; i++) {
		const struct sc_thread *t = &im->threads[i];

		if (!t->has_file)
			continue;
		snprintf(buf, sizeof(buf), "%s (%s)", t->name[0] ? t->name : "?",
			 report_thread_routine(t));
		metadata(j, "thread_name", im->pid, t->tid, buf);
		if (im->tsc_hz <= 0 || !t->start_tsc)
			continue;
		event_head(j, "X", buf, im->pid, t->tid);
		sc_json_key(j, "cat");
		sc_json_string(j, "thread");
		span(j, tsc_ns(im, t->start_tsc, origin), t->wall_ns);
		sc_json_key(j, "args");
		sc_json_begin_object(j);
		sc_json_key(j, "wait_ns");
		sc_json_int(j, t->wait_ns);
		sc_json_key(j, "attr_ns");
		sc_json_int(j, t->attr_ns);
		sc_json_end_object(j);
		sc_json_end_object(j);
	}
}

static int longer(const void *x, const void *y)
{
	const struct slice *a = x, *b = y;

	return a->dur_ns > b->dur_ns ? -1 : a->dur_ns < b->dur_ns;
}

/* The longest calls of the report's images, at most MAX_CALL_SLICES;
 * returns how many were left out. */
static size_t call_slices(struct sc_json *j, const struct report *r, uint64_t origin)
{
	const struct sc_profile *p = r->p;
	struct slice *s;
	size_t n = 0, i, k;

	for (i = 0; i < p->nimages; i++)
		if (report_has_image(r, &p->images[i]) && p->images[i].tsc_hz > 0)
			n += p->images[i].nlongest;
	s = report_xcalloc(n, sizeof(*s));
	n = 0;
	for (i = 0; i < p->nimages; i++) {
		const struct sc_image *im = &p->images[i];

		if (!report_has_image(r, im) || im->tsc_hz <= 0)
			continue;
		for (k = 0; k < im->nlongest; k++) {
			s[n].im = im;
			s[n].l = &im->longest[k];
			s[n].dur_ns = (int64_t)((long double)im->longest[k].ticks * 1e9L / im->tsc_hz);
			n++;
		}
	}
	qsort(s, n, sizeof(*s), longer);
	for (i = 0; i < n && i < MAX_CALL_SLICES; i++) {
		const struct sc_image *im = s[i].im;
		const struct sc_entry *e = &im->entries[s[i].l->entry];
		const struct sc_thread *t = thread_of(im, s[i].l->seq);
		const char *callee = object_name(im, e->callee);
		char name[512];

		snprintf(name, sizeof(name), "%s:%s", callee, e->api);
		event_head(j, "X", name, im->pid, t ? t->tid : 0);
		sc_json_key(j, "cat");
		sc_json_string(j, e->flags & SC_ENT_WAIT ? "wait" : "call");
		span(j, tsc_ns(im, s[i].l->start_tsc, origin), s[i].dur_ns);
		sc_json_key(j, "args");
		sc_json_begin_object(j);
		sc_json_key(j, "caller");
		sc_json_string(j, object_name(im, e->caller));
		sc_json_key(j, "calls");
		sc_json_uint(j, e->count);
		sc_json_end_object(j);
		sc_json_end_object(j);
	}
	free(s);
	return n > MAX_CALL_SLICES ? n - MAX_CALL_SLICES : 0;
}

void report_chrome(const struct report *r)
{
	const struct sc_profile *p = r->p;
	uint64_t origin = UINT64_MAX;
	struct sc_json j;
	size_t i, k, dropped;

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
			image_events(&j, &p->images[i], origin);
	dropped = call_slices(&j, r, origin);
	/* Counter tracks ("ph":"C", one per series and process) of the
	 * time series go here once the profile records them. */
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
