/*
 * test_exports.c - unit test of the export writers (report_folded.c,
 * report_chrome.c, report_pprof.c) on a profile built in memory: folded
 * lines exactly, the trace's cap on call slices and its nesting, and the
 * pprof file being gzip of a profile.proto whose first fields are the
 * sample types. The tools themselves read the exports in
 * tests/e2e/checks/report_exports.py.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "report.h"
#include "check.h"
#include "report_fixture.h"

#define MS 1000000LL
#define NLONG 12000

static struct sc_component comps[2] = {
	{ .name = "app", .nthreads = 1, .threads_ns = 10 * MS },
	{ .name = "lib;x.so" },
};
static struct sc_call calls[1] = {
	{ .caller = "app", .callee = "lib;x.so", .api = "f", .count = 7,
	  .total_ns = 4 * MS, .edge_ns = 4 * MS, .self_ns = 4 * MS },
};
static struct sc_object objects[2] = {
	{ .id = 0, .name = "app" }, { .id = 1, .name = "lib;x.so" },
};
static struct sc_entry entries[1] = { { .idx = 0, .caller = 0, .callee = 1, .api = "f", .count = 7 } };
static struct sc_thread threads[1] = {
	{ .seq = 0, .tid = 9, .name = "app", .has_file = 1, .routine = "",
	  .start_tsc = 1000, .wall_ns = 300 * MS },
};
static struct sc_longest longest[NLONG];
static const char *argv0[] = { "/bin/app" };

static void build(struct sc_profile *p, struct sc_image *im, struct sc_model *m,
		  struct sc_agg *ia)
{
	int i;

	memset(im, 0, sizeof(*im));
	im->pid = 42;
	im->argc = 1;
	im->argv = argv0;
	im->tsc_hz = 1e9;       /* a tick is a ns */
	im->hdr.start_tsc = 1000;
	im->nobjects = 2;
	im->objects = objects;
	im->nentries = 1;
	im->entries = entries;
	im->nthreads = 1;
	im->threads = threads;
	/* disjoint calls of 1..NLONG ns, all within the thread's life */
	for (i = 0; i < NLONG; i++)
		longest[i] = (struct sc_longest){ 0, 0, 2000 + (uint64_t)i * 20000, (uint64_t)i + 1 };
	im->nlongest = NLONG;
	im->longest = longest;
	memset(ia, 0, sizeof(*ia));
	ia->ncomp = 2;
	ia->comp = comps;
	ia->ncalls = 1;
	ia->calls = calls;
	ia->threads_ns = 10 * MS;
	fixture_model(p, im, ia, m, SC_TIMING_ALL, 10 * MS);
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s += strlen(what);
	}
	return n;
}

int main(void)
{
	struct sc_profile p;
	struct sc_image im;
	struct sc_model m;
	struct sc_agg ia;
	struct report r;
	unsigned char raw[4096];
	z_stream z;
	size_t len;
	char *s;

	build(&p, &im, &m, &ia);
	memset(&r, 0, sizeof(r));
	r.p = &p;
	r.model = &m;
	r.agg = &m.agg;
	r.timed = 1;

	/* folded: ';' in a name would split a frame */
	s = render(&r, report_folded, NULL);
	CHECK(!strcmp(s, "app[42];app 6000000\napp[42];app;lib?x.so:f 4000000\n"),
	      "folded by time: %s", s);
	free(s);
	r.weight = WEIGHT_COUNT;
	s = render(&r, report_folded, NULL);
	CHECK(!strcmp(s, "app[42];app;lib?x.so:f 7\n"), "folded by count: %s", s);
	free(s);

	/* chrome: the 10000 longest calls of 12000, the thread's slice */
	r.weight = WEIGHT_TIME;
	s = render(&r, report_chrome, NULL);
	CHECK_EQ(count(s, "\"cat\":\"call\""), 10000, "chrome: call slices capped");
	if (getenv("SHOW"))
		fputs(s, stdout);
	CHECK(strstr(s, "\"call_slices_dropped\":2000") != NULL, "chrome: dropped counted");
	CHECK(strstr(s, "\"dur\":12.000") && !strstr(s, "\"dur\":0.001,"),
	      "chrome: the longest kept, the shortest dropped");
	CHECK(strstr(s, "\"name\":\"app (main)\",\"pid\":42,\"tid\":9,\"cat\":\"thread\",\"ts\":0.000,"
			"\"dur\":300000.000") != NULL, "chrome: thread lifetime");
	CHECK(strstr(s, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":42,\"tid\":42,"
			"\"args\":{\"name\":\"/bin/app\"}}") != NULL, "chrome: process name");
	free(s);

	/* pprof: gzip; the message starts with sample_type (field 1, length
	 * delimited) {type: 1 "calls", unit: 2 "count"} */
	s = render(&r, report_pprof, &len);
	CHECK(len > 18 && (unsigned char)s[0] == 0x1f && (unsigned char)s[1] == 0x8b, "pprof: gzip");
	memset(&z, 0, sizeof(z));
	inflateInit2(&z, 15 + 16);
	z.next_in = (unsigned char *)s;
	z.avail_in = (uInt)len;
	z.next_out = raw;
	z.avail_out = sizeof(raw);
	CHECK(inflate(&z, Z_FINISH) == Z_STREAM_END, "pprof: whole gzip stream");
	CHECK(z.total_out > 6 && !memcmp(raw, "\x0a\x04\x08\x01\x10\x02", 6),
	      "pprof: sample_type calls/count first");
	CHECK(memmem(raw, z.total_out, "\x32\x0alib;x.so:f", 12) != NULL,
	      "pprof: the frame's name in the string table");
	inflateEnd(&z);
	free(s);
	return check_summary();
}
