/*
 * test_report.c - unit test of the report writers (src/cli/report_*.c) on
 * a profile built in memory, with the numbers a recording may not have
 * yet (attributed times, percentiles, histograms, Wait of read-like calls)
 * and names full of markup and CSV metacharacters: checks what the text,
 * JSON, CSV and HTML views make of them, the selection (--sort,
 * --min-percent, --component) and the thread-group imbalance flag.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "profile.h"
#include "report.h"
#include "check.h"
#include "report_fixture.h"

#define MS 1000000LL

static struct sc_edge edges_main[2] = {
	{ .callee = "libc.so.6", .ns = 60 * MS, .calls = 1000, .attr_ns = 30 * MS,
	  .wait_ns = 45 * MS },
	{ .callee = "lib<x>&\"y\",z.so", .ns = 20 * MS, .calls = 10, .attr_ns = 10 * MS },
};
static struct sc_component comps[3] = {
	{ .name = "app", .path = "/bin/app", .nthreads = 3, .threads_ns = 300 * MS,
	  .out_ns = 80 * MS, .total_ns = 300 * MS, .self_ns = 220 * MS, .wait_ns = 40 * MS,
	  .attr_total_ns = 150 * MS, .attr_self_ns = 110 * MS, .nout = 2, .out = edges_main },
	{ .name = "libc.so.6", .path = "/lib/libc.so.6", .in_ns = 60 * MS, .total_ns = 60 * MS,
	  .self_ns = 60 * MS, .self_wait_ns = 45 * MS, .attr_total_ns = 30 * MS,
	  .attr_self_ns = 30 * MS, .in_calls = 1000 },
	{ .name = "lib<x>&\"y\",z.so", .path = "/lib/x.so", .in_ns = 20 * MS, .total_ns = 20 * MS,
	  .self_ns = 20 * MS, .attr_total_ns = 10 * MS, .attr_self_ns = 10 * MS, .in_calls = 10 },
};
static struct sc_call calls[3] = {
	{ .caller = "app", .callee = "libc.so.6", .api = "read", .count = 600,
	  .timed = 75, .total_ns = 20 * MS, .edge_ns = 20 * MS, .self_ns = 20 * MS,
	  .wait_ns = 5 * MS, .attr_ns = 10 * MS,
	  .max_ns = 900000, .p50_ns = 1500, .p99_ns = 250000 },
	{ .caller = "app", .callee = "libc.so.6", .api = "pthread_barrier_wait", .count = 400,
	  .total_ns = 40 * MS, .edge_ns = 40 * MS, .self_ns = 40 * MS, .wait = 1, .wait_ns = 40 * MS,
	  .attr_ns = 20 * MS, .max_ns = 2 * MS, .p50_ns = 90000, .p99_ns = 1900000 },
	{ .caller = "app", .callee = "lib<x>&\"y\",z.so", .api = "f<int>&\"q\"", .count = 10,
	  .total_ns = 20 * MS, .edge_ns = 20 * MS, .self_ns = 19 * MS, .attr_ns = 10 * MS,
	  .max_ns = 3 * MS },
};
static struct sc_thread threads[3] = {
	{ .seq = 0, .tid = 100, .name = "app", .has_file = 1, .routine = "",
	  .wall_ns = 100 * MS, .wait_ns = 90 * MS, .attr_ns = 5 * MS },
	{ .seq = 1, .tid = 101, .name = "app", .has_file = 1, .routine = "stage_fast",
	  .wall_ns = 100 * MS, .wait_ns = 80 * MS, .attr_ns = 10 * MS, .calls = 1000,
	  .barrier_calls = 1 },
	{ .seq = 2, .tid = 102, .name = "app", .has_file = 1, .routine = "stage_slow",
	  .wall_ns = 100 * MS, .wait_ns = 0, .attr_ns = 50 * MS, .calls = 5000,
	  .barrier_calls = 1 },
};
static const char *argv0[] = { "app", "--in", "a<b>" };

static void build(struct sc_profile *p, struct sc_image *im, struct sc_model *m,
		  struct sc_agg *ia)
{
	int i;

	/* read: 1 µs calls, a few slow ones; the last bucket open-ended */
	calls[0].hist[10] = 500;
	calls[0].hist[17] = 99;
	calls[0].hist[SC_HIST_BUCKETS - 1] = 1;
	for (i = 16; i < 21; i++)
		calls[1].hist[i] = 80;
	memset(im, 0, sizeof(*im));
	im->pid = 42;
	im->ppid = 1;
	im->argc = 3;
	im->argv = argv0;
	im->has_exit = 1;
	im->wall_ns = 110 * MS;
	im->nthreads = 3;
	im->threads = threads;
	memset(ia, 0, sizeof(*ia));
	ia->ncomp = 3;
	ia->comp = comps;
	ia->ncalls = 3;
	ia->calls = calls;
	ia->threads_ns = 300 * MS;
	ia->attr_ns = 150 * MS;   /* the attributed self times add up to it */
	ia->calls_count = 1010;
	fixture_model(p, im, ia, m, SC_TIMING_ALL, im->wall_ns);
}

static void init(struct report *r, const struct sc_model *m)
{
	memset(r, 0, sizeof(*r));
	r->p = m->p;
	r->model = m;
	r->agg = &m->agg;
	r->timed = 1;
	r->sort = SORT_TOTAL;
}

/* report_fit_unique: names cut to one width never come out the same. */
static void test_fit_unique(void)
{
	const char *names[] = { "pthread_mutexattr_setprotocol", "pthread_mutexattr_setprioceiling",
				"pthread_mutexattr_init", "printf", "aaaaaaaaaaXaaaaaaaaaa",
				"aaaaaaaaaaYaaaaaaaaaa" };
	char out[6][64];
	size_t n = sizeof(names) / sizeof(names[0]);

	report_fit_unique(&out[0][0], sizeof(out[0]), names, n, 12);
	for (size_t i = 0; i < n; i++) {
		CHECK(report_text_width(out[i]) <= 12, "fit_unique: within the width");
		for (size_t j = 0; j < i; j++)
			CHECK(strcmp(out[i], out[j]) != 0, "fit_unique: two names, two texts");
	}
	CHECK_EQ(strcmp(out[3], "printf"), 0, "fit_unique: a short name whole");
	CHECK(strstr(out[0], "ocol") && strstr(out[1], "ling"), "fit_unique: clashing names keep their ends");
}

/* report_kernel_chain: below the system call, the kernel's functions
 * largest first, without the plumbing: the way in and out of a system
 * call, softirq entry (a compiler's .part copy too) and the scheduler's
 * switch (where a preempted task resumes: finish_task_switch.isra.0). */
static void test_kernel_chain(void)
{
	struct sc_call_kfunc kf[] = {
		{ "entry_SYSCALL_64_after_hwframe", 100 }, { "do_syscall_64", 100 },
		{ "do_writev", 90 }, { "tcp_sendmsg", 60 }, { "exit_to_user_mode_loop", 40 },
		{ "schedule", 40 }, { "__schedule", 39 }, { "finish_task_switch.isra.0", 38 },
		{ "tcp_write_xmit", 30 }, { "do_softirq.part.0", 20 }, { "net_rx_action", 20 },
		{ "preempt_schedule_irq", 5 }, { "_cond_resched", 4 }, { "schedule_timeout", 3 },
	};
	struct sc_call c = { .api = "writev", .measured = 2, .kfuncs = kf,
			     .nkfuncs = sizeof(kf) / sizeof(kf[0]) };
	const char *want[] = { "do_writev", "tcp_sendmsg", "tcp_write_xmit", "net_rx_action" };
	size_t idx[16], n = report_kernel_chain(&c, idx, 16);

	CHECK_EQ(n, sizeof(want) / sizeof(want[0]), "kernel chain: its length");
	for (size_t i = 0; i < n && i < sizeof(want) / sizeof(want[0]); i++)
		CHECK(!strcmp(kf[idx[i]].name, want[i]), "kernel chain: no entry, softirq entry "
		      "or scheduler step");
}

int main(void)
{
	struct sc_profile p;
	struct sc_image im;
	struct sc_model m;
	struct sc_agg ia;
	struct report r;
	char *s;

	build(&p, &im, &m, &ia);
	test_kernel_chain();

	/* thread groups: the fast stage waits while the slow one's effective
	 * time per thread is 5x its own; main never counts as a stage */
	init(&r, &m);
	report_select(&r);
	CHECK_EQ(r.ngroups, 3, "groups");
	CHECK(!strcmp(r.groups[1].routine, "stage_fast") && r.groups[1].imbalance &&
	      r.groups[1].slower == 2, "stage_fast flagged, slower is stage_slow");
	CHECK(!r.groups[0].imbalance && !r.groups[2].imbalance, "main and stage_slow not flagged");
	CHECK(r.groups[1].rendezvous && !strcmp(r.groups[1].rendezvous, "pthread_barrier_wait") &&
	      r.groups[1].rendezvous_calls == 2, "imbalance: based on the barrier both met at");
	report_release(&r);
	/* no stage: a thread that made a call or two (a sleeper) */
	threads[1].calls = 2;
	report_select(&r);
	CHECK(!r.groups[1].imbalance, "imbalance: not for a thread that does no such work");
	report_release(&r);
	/* nor two such: a sleeper beside a thread waiting for a few jobs */
	threads[1].calls = 2;
	threads[2].calls = 40;
	report_select(&r);
	CHECK(!r.groups[1].imbalance, "imbalance: not between two threads that do no work");
	report_release(&r);
	threads[2].calls = 5000;
	threads[1].calls = 1000;
	/* nor for threads that do not wait for each other */
	threads[2].barrier_calls = 0;
	report_select(&r);
	CHECK(!r.groups[1].imbalance, "imbalance: not without a barrier or join");
	threads[2].barrier_calls = 1;
	CHECK(r.ncalls == 3 && r.calls[0]->api == calls[1].api, "default order: total");
	report_release(&r);

	r.sort = SORT_P99;
	report_select(&r);
	CHECK(r.calls[0] == &calls[1] && r.calls[1] == &calls[0], "--sort p99");
	report_release(&r);
	r.sort = SORT_NAME;
	report_select(&r);
	CHECK(r.calls[0] == &calls[2] && r.calls[2] == &calls[0], "--sort name");
	report_release(&r);
	r.sort = SORT_TOTAL;
	r.min_percent = 10;     /* of all threads' time, 30 ms of 300 */
	report_select(&r);
	CHECK(r.ncalls == 3, "--min-percent 10 keeps every API: each is over 10 %% of "
	      "its component's calls, the base of its %%in");
	CHECK(r.ncomp == 2, "--min-percent 10 keeps app and libc (20 ms of 300 goes)");
	report_release(&r);
	/* an API row is measured against its component's in-time, as its
	 * %in shows it: read is 20 ms of libc's 60 (33 %), barrier_wait
	 * 40 ms (67 %), f 20 ms of its library's 20 (100 %); of all
	 * threads' 300 ms none is 50 % */
	r.min_percent = 50;
	report_select(&r);
	CHECK(r.ncalls == 2 && r.calls[0] == &calls[1] && r.calls[1] == &calls[2],
	      "--min-percent 50 keeps the APIs shown at 67 %% and 100 %% in, not read's 33 %%");
	report_release(&r);

	/* text: attributed, percentiles, max; the imbalance sentence */
	init(&r, &m);
	r.threads = 1;
	s = render(&r, report_text, NULL);
	CHECK(strstr(s, "attributed, each call / running threads: 150 ms") != NULL,
	      "text: critical time in the component view heading");
	CHECK(strstr(s, "150 ms 100.0%   110 ms  73.3%") != NULL, "text: app's attributed total and share");
	/* libc's self time, 60 ms, is 15 ms of work and 45 ms blocked in it */
	CHECK(strstr(s, "60.0 ms  20.0%  15.0 ms   5.0%  45.0 ms  15.0%") != NULL,
	      "text: libc's work apart from the Wait inside it");
	CHECK(strstr(s, "raw: self = work + Wait") != NULL, "text: work and Wait labelled");
	CHECK(strstr(s, "60.0 ms  20.0%                  45.0 ms  15.0%  30.0 ms") != NULL,
	      "text: the edge's Wait in the Wait column");
	CHECK(strstr(s, "1.50 µs") && strstr(s, "250 µs") && strstr(s, "900 µs"),
	      "text: read's p50, p99, max");
	CHECK(strstr(s, "threads of stage_fast finish their work in half the time of stage_slow's")
	      != NULL, "text: imbalance explained");
	CHECK(strstr(s, "\033[") == NULL, "text: no colour unless asked");
	if (getenv("SHOW"))
		fputs(s, stdout);
	free(s);

	/* JSON: the new keys, hist buckets with an open last one */
	init(&r, &m);
	s = render(&r, report_json, NULL);
	CHECK(strstr(s, "\"critical_ns\":150000000") != NULL, "json: critical_ns");
	CHECK(strstr(s, "\"hist\":[[1024,2048,500],[131072,262144,99],[549755813888,null,1]]")
	      != NULL, "json: hist of read");
	CHECK(strstr(s, "\"wait_ns\":5000000,\"attr_ns\":10000000,\"p50_ns\":1500,"
			"\"p99_ns\":250000,\"max_ns\":900000") != NULL, "json: read's numbers");
	CHECK(strstr(s, "\"count\":600,\"timed\":75,\"total_ns\":20000000") != NULL,
	      "json: read's calls measured");
	CHECK(strstr(s, "\"attr_total_ns\":150000000,\"attr_self_ns\":110000000") != NULL,
	      "json: component attributed times");
	CHECK(strstr(s, "\"api\":\"f<int>&\\\"q\\\"\"") != NULL, "json: name escaped");
	CHECK(strstr(s, "\"start_routine\":\"stage_fast\",\"threads\":1,\"wall_ns\":100000000,"
			"\"wait_ns\":80000000,\"effective_ns\":20000000,\"imbalance\":true") != NULL,
	      "json: group flagged");
	free(s);

	/* CSV: RFC 4180 quoting */
	init(&r, &m);
	s = render(&r, report_csv, NULL);
	CHECK(strstr(s, "app,\"lib<x>&\"\"y\"\",z.so\",\"f<int>&\"\"q\"\"\",import,10,0,20000000,19000000,"
			"20000000,false,0,10000000,0,0,3000000,\"f<int>&\"\"q\"\"\",\r\n") != NULL, "csv: quoted row");
	CHECK(strstr(s, "caller,callee,api,kind,count,timed,total_ns,") == s, "csv: header");
	CHECK(strstr(s, ",max_ns,symbol,function\r\n") != NULL, "csv: header ends with symbol, function");
	CHECK(strstr(s, ",total_ns,self_ns,edge_ns,wait,") != NULL, "csv: edge_ns after self_ns");
	CHECK(strstr(s, ",read,import,600,75,20000000,") != NULL, "csv: read's calls measured");
	free(s);

	/* HTML: escaped names, sparklines for the calls with histograms */
	init(&r, &m);
	s = render(&r, report_html, NULL);
	CHECK(strstr(s, "lib&lt;x&gt;&amp;&quot;y&quot;,z.so") != NULL, "html: component escaped");
	CHECK(strstr(s, "lib<x>") == NULL && strstr(s, "f<int>") == NULL, "html: no raw markup");
	CHECK(strstr(s, "a&lt;b&gt;") != NULL, "html: command escaped");
	{
		int spark = 0;
		const char *q = s;

		while ((q = strstr(q, "class=\"spark\"")) != NULL) {
			spark++;
			q++;
		}
		CHECK_EQ(spark, 2, "html: sparklines (calls with a histogram)");
	}
	CHECK(strstr(s, "rebalance the stages") != NULL, "html: imbalance explained");
	{
		/* the flame graph: one frame per node of the nesting tree */
		struct stack_tree t;
		const char *q = strstr(s, "data-nodes=\""), *fr = s;
		size_t frames = 0;

		report_stacks(&r, &t);
		while ((fr = strstr(fr, "<div class=\"fr\"")) != NULL) {
			frames++;
			fr++;
		}
		CHECK(t.n > 2 && q && strtoul(q + 12, NULL, 10) == t.n, "html: flame graph's node count");
		CHECK_EQ(frames, t.n, "html: one frame per tree node");
		CHECK(strstr(s, "title=\"lib&lt;x&gt;&amp;&quot;y&quot;,z.so:f&lt;int&gt;&amp;&quot;q&quot;")
		      != NULL, "html: a frame's title escaped");
		report_stacks_free(&t);
	}
	if (getenv("REPORT_HTML")) {    /* to look at it in a browser */
		FILE *f = fopen(getenv("REPORT_HTML"), "w");

		if (f) {
			fputs(s, f);
			fclose(f);
		}
	}
	free(s);

	/* --component: its API view and the calls it makes */
	init(&r, &m);
	r.component = "libc.so.6";
	s = render(&r, report_text, NULL);
	CHECK(strstr(s, "pthread_barrier_wait") && !strstr(s, "f<int>"), "text --component libc.so.6");
	free(s);

	/* a format 3 profile: what timing a call cost is unknown */
	init(&r, &m);
	s = render(&r, report_json, NULL);
	CHECK(strstr(s, "\"timing_cost\":{\"measurements\":0,") != NULL, "json: timing cost known");
	free(s);
	im.ovh_unknown = 1;
	im.hdr.version = 3;
	init(&r, &m);
	s = render(&r, report_json, NULL);
	CHECK(strstr(s, "\"timing_cost\":null") != NULL, "json: unknown timing cost is null");
	free(s);
	init(&r, &m);
	s = render(&r, report_text, NULL);
	CHECK(strstr(s, "own cost taken off each timed call: unknown (format 3)") != NULL,
	      "text: unknown timing cost");
	free(s);
	test_fit_unique();
	return check_summary();
}
