/*
 * test_profile.c - unit test of the profile reader (src/common/profile.c),
 * the model built on it (src/cli/model.c) and the JSON writer: writes
 * synthetic profile directories with the format.h structs into a temp dir
 * and checks what the reader and the model derive.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format.h"
#include "json.h"
#include "model.h"
#include "profile.h"
#include "report.h"
#include "check.h"

static char tmproot[256];

/* ---- loading: the reader, then the model ------------------------------- */

static struct sc_model model;   /* of the profile loaded last */

static int load(const char *dir, struct sc_profile *p, char *err, size_t errlen)
{
	int rc = sc_profile_load(dir, p, err, errlen);

	if (rc == 0)
		sc_model_build(&model, p);
	return rc;
}

static void unload(struct sc_profile *p)
{
	sc_model_free(&model);
	sc_profile_free(p);
}

static const struct sc_agg *agg_of(const struct sc_image *im)
{
	return sc_model_image(&model, im);
}

/* ---- writing synthetic profiles ---------------------------------------- */

struct buf {
	unsigned char *b;
	size_t n;
};

static void put(struct buf *b, const void *p, size_t n)
{
	b->b = realloc(b->b, b->n + n + 1);
	if (!b->b) {
		perror("realloc");
		exit(2);
	}
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void meta_header(struct buf *b, uint32_t pid, uint32_t gen, uint32_t mode,
			uint64_t start_tsc, uint64_t start_mono, uint64_t hz, uint64_t ovh)
{
	struct sc_meta_header h;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, SC_META_MAGIC, 8);
	h.version = SC_FORMAT_VERSION;
	h.header_size = sizeof(h);
	h.pid = pid;
	h.ppid = 1;
	h.gen = gen;
	h.timing_mode = mode;
	h.start_tsc = start_tsc;
	h.start_mono_ns = start_mono;
	h.tsc_hz = hz;
	h.overhead_ticks = ovh;
	put(b, &h, sizeof(h));
}

/* A record: fixed part, then `str` with its NUL (if str), padded to 8. */
static void meta_rec(struct buf *b, uint32_t type, const void *fixed, size_t flen,
		     const char *str)
{
	struct sc_meta_rec r;
	static const char zeros[8];
	size_t slen = str ? strlen(str) + 1 : 0;

	r.type = type;
	r.len = (uint32_t)(flen + slen);
	put(b, &r, sizeof(r));
	put(b, fixed, flen);
	if (str)
		put(b, str, slen);
	put(b, zeros, (8 - r.len % 8) % 8);
}

static void m_cmdline(struct buf *b, const char *a, const char *c)
{
	char tmp[256];
	size_t n = strlen(a) + 1;

	memcpy(tmp, a, n);
	if (c) {
		memcpy(tmp + n, c, strlen(c) + 1);
		n += strlen(c) + 1;
	}
	meta_rec(b, SC_M_CMDLINE, tmp, n, NULL);
}

static void m_object(struct buf *b, uint32_t id, const char *path)
{
	struct sc_m_object o = { id, id == 0 ? SC_OBJ_MAIN : 0, 0x1000u * id };

	meta_rec(b, SC_M_OBJECT, &o, sizeof(o), path);
}

/* An import numbered apart from its entry index (idx + 100), and its
 * first call binding it to idx: the reader must join the two. */
static void m_entry(struct buf *b, uint32_t idx, uint32_t caller, uint32_t callee,
		    const char *name)
{
	struct sc_m_entry e = { idx + 100, caller, callee, SC_ENT_PLT };
	struct sc_m_bind bd = { idx + 100, idx, SC_ENT_PLT, 0 };

	meta_rec(b, SC_M_ENTRY, &e, sizeof(e), name);
	meta_rec(b, SC_M_BIND, &bd, sizeof(bd), NULL);
}

static void m_thread(struct buf *b, uint32_t seq, uint32_t tid, uint32_t robj)
{
	struct sc_m_thread t;

	memset(&t, 0, sizeof(t));
	t.seq = seq;
	t.tid = tid;
	t.start_routine = seq ? 0x401000 : 0;
	t.routine_obj = robj;
	meta_rec(b, SC_M_THREAD, &t, sizeof(t), "worker");
}

static void m_end(struct buf *b, uint64_t end_tsc, uint64_t end_mono, int32_t status,
		  uint32_t how)
{
	struct sc_m_end e = { end_tsc, end_mono, status, how, 0 };

	meta_rec(b, SC_M_END, &e, sizeof(e), NULL);
}

static void m_exit(struct buf *b, int32_t status, uint64_t wall)
{
	struct sc_m_exit e = { status, 0, wall };

	meta_rec(b, SC_M_EXIT, &e, sizeof(e), NULL);
}

static void write_file(const char *dir, const char *name, const void *p, size_t n)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
		perror(path);
		exit(2);
	}
}

static void write_meta(const char *dir, uint32_t pid, uint32_t gen, struct buf *b)
{
	char name[64];

	snprintf(name, sizeof(name), "p%u-%u.meta", pid, gen);
	write_file(dir, name, b->b, b->n);
	free(b->b);
	b->b = NULL;
	b->n = 0;
}

/* what the next write_thr puts in the header's ovh_* fields */
static struct {
	uint64_t sum;
	uint32_t n, min, max;
} thr_ovh;
/* what the next write_thr puts in its header as paused time (ctl.md) */
static uint64_t thr_paused_ticks, thr_paused_p;
static uint32_t thr_version;    /* of the .thr files written; 0: current */
/* what the next write_thr puts in its header of the kernel's measurement */
static uint8_t thr_perf_kind, thr_perf_flags;
static uint64_t thr_off_untimed;
static uint64_t thr_cpu_start, thr_cpu_end;    /* the thread's CPU clock */

/* A .thr file; `extra` garbage bytes are appended after the records. */

static void write_thr(const char *dir, uint32_t pid, uint32_t gen, uint32_t seq,
		      uint64_t start, uint64_t end, const struct sc_rec *recs, size_t n,
		      size_t extra)
{
	char name[64];
	size_t size = SC_THR_HEADER_SIZE + n * sizeof(*recs) + extra;
	unsigned char *p = calloc(1, size);
	struct sc_thr_header h;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, SC_THR_MAGIC, 8);
	h.version = thr_version ? thr_version : SC_FORMAT_VERSION;
	h.seq = seq;
	h.tid = 1000 + seq;
	h.rec_size = sizeof(struct sc_rec);
	h.start_tsc = start;
	h.end_tsc = end;
	snprintf(h.name, sizeof(h.name), "t%u", seq);
	h.ovh_sum = thr_ovh.sum;
	h.ovh_n = thr_ovh.n;
	h.ovh_min = thr_ovh.min;
	h.ovh_max = thr_ovh.max;
	h.paused_ticks = thr_paused_ticks;
	h.paused_p = thr_paused_p;
	h.perf_kind = thr_perf_kind;
	h.perf_flags = thr_perf_flags;
	h.off_untimed = thr_off_untimed;
	h.cpu_start_ns = thr_cpu_start;
	h.cpu_end_ns = thr_cpu_end;
	memcpy(p, &h, sizeof(h));
	if (n)
		memcpy(p + SC_THR_HEADER_SIZE, recs, n * sizeof(*recs));
	memset(p + SC_THR_HEADER_SIZE + n * sizeof(*recs), 0x5a, extra);
	snprintf(name, sizeof(name), "p%u-%u-t%u.thr", pid, gen, seq);
	write_file(dir, name, p, size);
	free(p);
}

static struct sc_rec rec(uint64_t count, uint64_t timed, uint64_t ticks, uint64_t wticks,
			 uint64_t wcount, uint64_t self)
{
	struct sc_rec r;

	memset(&r, 0, sizeof(r));
	r.count = count;
	r.timed = timed;
	r.ticks = ticks;
	r.wticks = wticks;
	r.wcount = wcount;
	r.self_ticks = self;
	r.period = 1;
	return r;
}

static const char *mkdir_t(const char *name)
{
	static char path[8][512];
	static int k;
	char *p = path[k++ % 8];

	snprintf(p, 512, "%s/%s", tmproot, name);
	if (mkdir(p, 0700) < 0 && errno != EEXIST) {
		perror(p);
		exit(2);
	}
	return p;
}

/* ---- lookups ----------------------------------------------------------- */

static const struct sc_call *find_call(const struct sc_agg *a, const char *caller,
				       const char *callee, const char *api)
{
	size_t i;

	for (i = 0; i < a->ncalls; i++)
		if (!strcmp(a->calls[i].caller, caller) && !strcmp(a->calls[i].callee, callee) &&
		    !strcmp(a->calls[i].api, api))
			return &a->calls[i];
	return NULL;
}

static int64_t sum_self(const struct sc_agg *a)
{
	int64_t s = 0;
	size_t i;

	for (i = 0; i < a->ncomp; i++)
		s += a->comp[i].self_ns;
	return s;
}

static void check_call(const struct sc_agg *a, const char *caller, const char *callee,
		       const char *api, uint64_t count, int64_t total, int64_t self)
{
	const struct sc_call *c = find_call(a, caller, callee, api);
	char what[200];

	snprintf(what, sizeof(what), "call %s -> %s %s exists", caller, callee, api);
	CHECK(c != NULL, "%s", what);
	if (!c)
		return;
	snprintf(what, sizeof(what), "%s %s count", caller, api);
	CHECK_EQ(c->count, count, what);
	snprintf(what, sizeof(what), "%s %s total_ns", caller, api);
	CHECK_EQ(c->total_ns, total, what);
	snprintf(what, sizeof(what), "%s %s self_ns", caller, api);
	CHECK_EQ(c->self_ns, self, what);
}

static void check_comp(const struct sc_agg *a, const char *name, int64_t total,
		       int64_t self)
{
	const struct sc_component *c = sc_agg_component(a, name);
	char what[200];

	CHECK(c != NULL, "component %s exists", name);
	if (!c)
		return;
	snprintf(what, sizeof(what), "component %s total_ns", name);
	CHECK_EQ(c->total_ns, total, what);
	snprintf(what, sizeof(what), "component %s self_ns", name);
	CHECK_EQ(c->self_ns, self, what);
}

/* ---- profiles ---------------------------------------------------------- */

#define S0 1000ull              /* start TSC of the basic image */
#define MONO0 5000000000ull

/* The basic image: one thread, app -> libc, timed at 1 GHz over 1 s. */
static void basic_meta(struct buf *b)
{
	meta_header(b, 100, 0, SC_TIMING_ADAPTIVE, S0, MONO0, 2000000000ull, 0);
	m_cmdline(b, "./app", "x");
	m_object(b, 0, "/tmp/build/app");
	m_object(b, 1, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	m_entry(b, 0, 0, 1, "strlen@GLIBC_2.2.5");
	m_entry(b, 1, 0, 1, "__memcpy_avx_unaligned_erms");
	m_thread(b, 0, 100, UINT32_MAX);
	m_end(b, S0 + 1000000000ull, MONO0 + 1000000000ull, 0, SC_END_EXIT);
}

static void basic_thr(const char *dir)
{
	struct sc_rec r[2];

	r[0] = rec(10, 10, 1000, 1000, 10, 400);
	/* its longest call: 300 ticks from S0 + 50 (format 5 on; the bytes
	 * were reserved before, and are not read in an older profile) */
	r[0].max_ticks = 300;
	r[0].max_tsc = S0 + 50;
	/* adaptive, period 8: 10 timed calls of 100 ticks, each standing for 8 */
	r[1] = rec(1000, 10, 1000, 10 * 100 * 8, 80, 500);
	write_thr(dir, 100, 0, 0, S0, S0 + 1000000, r, 2, 0);
}

static void check_basic(const struct sc_profile *p, const char *label)
{
	const struct sc_image *im;

	printf("-- %s\n", label);
	CHECK_EQ(p->nimages, 1, "images");
	if (p->nimages != 1)
		return;
	im = &p->images[0];
	CHECK_EQ(im->pid, 100, "pid");
	CHECK(im->tsc_hz > 999999999.0L && im->tsc_hz < 1000000001.0L,
	      "tsc_hz from END calibration is 1e9 (header said 2e9)");
	CHECK_EQ(im->argc, 2, "argc");
	CHECK(im->argc == 2 && !strcmp(im->argv[0], "./app") && !strcmp(im->argv[1], "x"),
	      "command is ./app x");
	CHECK_EQ(im->wall_ns, 1000000000, "wall_ns from END");
	CHECK_EQ(im->exit_status, 0, "exit_status from END(how=exit)");
	CHECK(!im->incomplete, "complete");
	CHECK_EQ(im->nthreads, 1, "threads");
	CHECK_EQ(im->threads[0].wall_ns, 1000000, "thread wall_ns");
	CHECK_EQ(agg_of(im)->ncalls, 2, "call keys");
	/* count=10, all timed, 1000 ticks at 1 GHz, 40% self */
	check_call(agg_of(im), "app", "libc.so.6", "strlen", 10, 1000, 400);
	/* est = 8000 + (1000 - 80) * (8000 / 80) = 100000 ticks, self 50% */
	check_call(agg_of(im), "app", "libc.so.6", "memcpy", 1000, 100000, 50000);
	CHECK(agg_of(im)->ncalls == 2 && !strcmp(agg_of(im)->calls[0].api, "memcpy"),
	      "calls sorted by total_ns desc");
	check_comp(agg_of(im), "app", 1000000, 1000000 - 101000);
	check_comp(agg_of(im), "libc.so.6", 101000, 101000);
	CHECK(agg_of(im)->ncomp == 2 && !strcmp(agg_of(im)->comp[0].name, "app"),
	      "components sorted by total_ns desc");
	CHECK(agg_of(im)->ncomp == 2 && !strcmp(agg_of(im)->comp[1].path,
					    "/usr/lib/x86_64-linux-gnu/libc.so.6"),
	      "component path");
	CHECK(agg_of(im)->ncomp && agg_of(im)->comp[0].nout == 1 &&
	      agg_of(im)->comp[0].out[0].ns == 101000, "app out_by_callee[libc.so.6]");
	CHECK_EQ(sum_self(agg_of(im)), agg_of(im)->threads_ns, "sum of self == threads time");
	check_call(&model.agg, "app", "libc.so.6", "memcpy", 1000, 100000, 50000);
	/* the calls measured, image and profile: 10 of memcpy's 1000 */
	CHECK(agg_of(im)->ncalls == 2 && agg_of(im)->calls[0].timed == 10 &&
	      agg_of(im)->calls[1].timed == 10, "timed calls per call key");
	CHECK(model.agg.ncalls == 2 && model.agg.calls[0].timed == 10, "timed calls in the profile");
	CHECK_EQ(model.agg.threads_ns, 1000000, "profile threads time");
	CHECK_EQ(p->timing_mode, SC_TIMING_ADAPTIVE, "profile timing mode");
}

static void test_basic(void)
{
	const char *dir = mkdir_t("basic");
	struct buf b = { 0 };
	struct sc_profile p;
	char err[512];
	int rc;

	basic_meta(&b);
	write_meta(dir, 100, 0, &b);
	basic_thr(dir);
	/* an image that died before writing its header, and its thread */
	write_file(dir, "p101-0.meta", "", 0);
	write_thr(dir, 101, 0, 0, 1, 2, NULL, 0, 0);
	rc = load(dir, &p, err, sizeof(err));
	CHECK(rc == 0, "load basic profile (%s)", rc ? err : "ok");
	if (rc == 0)
		check_basic(&p, "basic");
	unload(&p);
}

/*
 * A thread's calls fit in its time (profile.c, thread_fit): in a thread
 * of 10000 ticks, an exact record of 1000 and a sampled one whose
 * estimate alone is 20x the thread (wticks * count / wcount = 200000),
 * the sampled one is scaled down to the 9000 left beside the exact one,
 * and the program's self time is 0, not negative. A thread whose calls
 * fit keeps its estimates (the basic profile: checked there).
 */
/* A profile in directory `name` of one thread of `ticks` with records r
 * (basic_meta's entries), loaded into p: 0, or -1 (reported) */
static int load_one(const char *name, const struct sc_rec *r, size_t n, uint64_t ticks,
		    struct sc_profile *p)
{
	const char *dir = mkdir_t(name);
	struct buf b = { 0 };
	char err[512];
	int rc;

	basic_meta(&b);
	write_meta(dir, 100, 0, &b);
	write_thr(dir, 100, 0, 0, S0, S0 + ticks, r, n, 0);
	rc = load(dir, p, err, sizeof(err));
	CHECK(rc == 0, "load %s profile (%s)", name, rc ? err : "ok");
	return rc;
}

static void test_fit(void)
{
	struct sc_profile p;
	struct sc_rec r[2];

	r[0] = rec(10, 10, 1000, 1000, 10, 1000);
	r[1] = rec(1000, 10, 2000, 2000 * 8, 80, 2000);
	if (load_one("fit", r, 2, 10000, &p) == 0) {
		const struct sc_agg *a = agg_of(&p.images[0]);

		printf("-- fit\n");
		check_call(a, "app", "libc.so.6", "strlen", 10, 1000, 1000);
		check_call(a, "app", "libc.so.6", "memcpy", 1000, 9000, 9000);
		check_comp(a, "app", 10000, 0);
	}
	unload(&p);
}

/*
 * A measured thread's time blocked with no timed call in flight
 * (off_untimed) is what its calls let through untimed were blocked: the
 * records' sampled estimates of that (blocked time scaled to the count,
 * less what their timed calls were seen blocked) are scaled together to
 * it. strlen's timed calls were blocked 60000 ticks (rblocked) and it
 * estimates 600000 in all, so 540000 untimed; memcpy never blocked. The
 * thread was blocked 810000 ticks outside timed calls: strlen's untimed
 * share becomes 810000 (x 1.5), its total 1000000 + 270000, and memcpy
 * keeps its estimate. Without the header's flag (an earlier runtime) the
 * estimates stay.
 */
static void test_off_fit(void)
{
	int flags;

	for (flags = 0; flags <= 1; flags++) {
		struct sc_profile p;
		struct sc_rec r[2];
		int rc;

		r[0] = rec(1000, 100, 100000, 1000000, 1000, 100000);
		r[0].wblocked = 600000;
		r[0].rblocked = 60000;
		r[1] = rec(1000, 100, 1000, 10000, 1000, 1000);
		thr_perf_kind = SC_PERF_SWITCHES;
		thr_perf_flags = flags ? SC_PERF_F_UNTIMED : 0;
		thr_off_untimed = 810000;
		rc = load_one(flags ? "offfit" : "offfit0", r, 2, 10000000, &p);
		thr_perf_kind = thr_perf_flags = 0;
		thr_off_untimed = 0;
		if (rc == 0) {
			const struct sc_agg *a = agg_of(&p.images[0]);
			const struct sc_call *c = find_call(a, "app", "libc.so.6", "strlen");

			printf("-- off_fit, flag %d\n", flags);
			check_call(a, "app", "libc.so.6", "strlen", 1000, flags ? 1270000 : 1000000,
				   flags ? 1270000 : 1000000);
			check_call(a, "app", "libc.so.6", "memcpy", 1000, 10000, 10000);
			CHECK(c && c->blocked_ns == (flags ? 870000 : 600000),
			      "strlen blocked %lld ns", c ? (long long)c->blocked_ns : -1LL);
		}
		unload(&p);
	}
}

/*
 * Imports and binds (format v3): counters are numbered in the order of
 * first calls. An import never called has no entry; a bind names its
 * import by number, in any order; a bind of an import the file does not
 * describe (a torn start) is ignored; the flags of the bind are the ones
 * in force (peek.c may add NOTIME at the first call).
 */
static void test_binds(void)
{
	const char *dir = mkdir_t("binds");
	struct buf b = { 0 };
	struct sc_profile p;
	struct sc_rec r[3];
	char err[512];
	int rc;

	meta_header(&b, 100, 0, SC_TIMING_ADAPTIVE, S0, MONO0, 1000000000ull, 0);
	m_object(&b, 0, "/tmp/build/app");
	m_object(&b, 1, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	{
		struct sc_m_entry e0 = { 7, 0, 1, SC_ENT_PLT };    /* called second */
		struct sc_m_entry e1 = { 8, 0, 1, SC_ENT_PLT };    /* never called */
		struct sc_m_entry e2 = { 9, 0, 1, SC_ENT_GOT };    /* called first */
		struct sc_m_bind b0 = { 9, 0, SC_ENT_GOT | SC_ENT_NOTIME, 0 };
		struct sc_m_bind b1 = { 7, 1, SC_ENT_PLT, 0 };
		struct sc_m_bind b2 = { 42, 2, SC_ENT_PLT, 0 };    /* unknown import */

		meta_rec(&b, SC_M_ENTRY, &e0, sizeof(e0), "strlen");
		meta_rec(&b, SC_M_ENTRY, &e1, sizeof(e1), "puts");
		meta_rec(&b, SC_M_ENTRY, &e2, sizeof(e2), "getpid");
		meta_rec(&b, SC_M_BIND, &b0, sizeof(b0), NULL);
		meta_rec(&b, SC_M_BIND, &b1, sizeof(b1), NULL);
		meta_rec(&b, SC_M_BIND, &b2, sizeof(b2), NULL);
	}
	m_thread(&b, 0, 100, UINT32_MAX);
	m_end(&b, S0 + 1000000000ull, MONO0 + 1000000000ull, 0, SC_END_EXIT);
	write_meta(dir, 100, 0, &b);
	r[0] = rec(3, 0, 0, 0, 0, 0);
	r[1] = rec(5, 5, 500, 500, 5, 500);
	r[2] = rec(11, 11, 1100, 1100, 11, 1100);
	write_thr(dir, 100, 0, 0, S0, S0 + 1000000, r, 3, 0);
	rc = load(dir, &p, err, sizeof(err));
	CHECK(rc == 0, "load binds profile (%s)", rc ? err : "ok");
	if (rc == 0 && p.nimages == 1) {
		const struct sc_image *im = &p.images[0];
		const struct sc_call *c = find_call(agg_of(im), "app", "libc.so.6", "getpid");

		CHECK_EQ(im->nentries, 2, "entries: the two bound imports");
		check_call(agg_of(im), "app", "libc.so.6", "strlen", 5, 500, 500);
		CHECK(c && c->count == 3, "getpid: counter slot 0, count 3");
		CHECK(find_call(agg_of(im), "app", "libc.so.6", "puts") == NULL,
		      "puts: never called, no entry");
		CHECK(im->nentries == 2 && im->entries[0].idx == 0 &&
		      (im->entries[0].flags & SC_ENT_NOTIME),
		      "slot 0 has the bind's flags (NOTIME added)");
		CHECK_EQ(agg_of(im)->ncalls, 2, "record 2 (an unknown import's) is not reported");
	}
	unload(&p);
}

/* The basic meta followed by a record the process died writing. */
static void test_torn(void)
{
	const char *dir = mkdir_t("torn");
	const char *dir2 = mkdir_t("torn2");
	struct buf b = { 0 };
	struct sc_profile p;
	struct sc_meta_rec r = { SC_M_ENTRY, 40 };
	char err[512];
	int rc;

	basic_meta(&b);
	put(&b, &r, sizeof(r));
	put(&b, "0123456789", 10);
	write_meta(dir, 100, 0, &b);
	basic_thr(dir);
	rc = load(dir, &p, err, sizeof(err));
	CHECK(rc == 0, "torn tail (record payload cut) tolerated (%s)", rc ? err : "ok");
	if (rc == 0) {
		CHECK(p.images[0].torn_tail, "torn tail noticed");
		check_basic(&p, "torn payload");
	}
	unload(&p);

	basic_meta(&b);
	put(&b, &r, 4);                 /* half a record header */
	write_meta(dir2, 100, 0, &b);
	basic_thr(dir2);
	rc = load(dir2, &p, err, sizeof(err));
	CHECK(rc == 0, "torn tail (record header cut) tolerated (%s)", rc ? err : "ok");
	if (rc == 0)
		check_basic(&p, "torn header");
	unload(&p);
}

/*
 * Fork children's .meta files refer to their parents' (SC_M_PARENT): a
 * child inherits the parent's objects and entries up to the reference's
 * end, not its threads or end; a grandchild through its parent; a child
 * whose parent is missing, or whose references go round, loads without
 * them and names the file; a reference past the parent's end takes what
 * is there, one that cuts a record leaves it out.
 */
static const struct sc_image *image_of(const struct sc_profile *p, uint32_t pid)
{
	for (size_t i = 0; i < p->nimages; i++)
		if (p->images[i].pid == pid)
			return &p->images[i];
	return NULL;
}

static void child_meta(const char *dir, uint32_t pid, uint32_t ppid, uint32_t pgen, uint64_t end)
{
	struct buf b = { 0 };
	struct sc_m_parent ref = { ppid, pgen, end };

	meta_header(&b, pid, 0, SC_TIMING_ADAPTIVE, S0, MONO0, 2000000000ull, 0);
	meta_rec(&b, SC_M_PARENT, &ref, sizeof(ref), NULL);
	m_thread(&b, 0, pid, UINT32_MAX);
	m_end(&b, S0 + 1000000000ull, MONO0 + 1000000000ull, 0, SC_END_EXIT);
	write_meta(dir, pid, 0, &b);
}

static void child_thr(const char *dir, uint32_t pid)
{
	struct sc_rec r[2];

	r[0] = rec(7, 7, 700, 700, 7, 700);
	r[1] = rec(3, 3, 300, 300, 3, 300);
	write_thr(dir, pid, 0, 0, S0, S0 + 1000000, r, 2, 0);
}

static uint64_t calls_of(const struct sc_profile *p, uint32_t pid, const char *api)
{
	const struct sc_image *im = image_of(p, pid);
	const struct sc_call *c = im ? find_call(agg_of(im), "app", "libc.so.6", api) : NULL;

	return c ? c->count : 0;
}

static int skipped(const struct sc_profile *p, const char *name)
{
	int n = 0;

	for (size_t i = 0; i < p->nskipped_files; i++)
		n += !strcmp(p->skipped_files[i].file, name);
	return n;
}

static void test_fork_parent(void)
{
	const char *dir = mkdir_t("forkparent");
	struct buf b = { 0 };
	struct sc_profile p;
	char err[512];
	size_t cut;
	int rc;

	basic_meta(&b);
	/* 3 bytes into the second entry's record: the first entry is whole */
	{
		struct buf c = { 0 };

		meta_header(&c, 100, 0, SC_TIMING_ADAPTIVE, S0, MONO0, 2000000000ull, 0);
		m_cmdline(&c, "./app", "x");
		m_object(&c, 0, "/tmp/build/app");
		m_object(&c, 1, "/usr/lib/x86_64-linux-gnu/libc.so.6");
		m_entry(&c, 0, 0, 1, "strlen@GLIBC_2.2.5");
		cut = c.n + 3;
		free(c.b);
	}
	write_meta(dir, 100, 0, &b);
	basic_thr(dir);
	child_meta(dir, 200, 100, 0, 1u << 20);         /* past the end: all */
	child_thr(dir, 200);
	child_meta(dir, 300, 200, 0, 1u << 20);         /* through 200 */
	child_thr(dir, 300);
	child_meta(dir, 400, 999, 0, 1u << 20);         /* missing */
	child_thr(dir, 400);
	child_meta(dir, 500, 501, 0, 1u << 20);         /* a cycle */
	child_meta(dir, 501, 500, 0, 1u << 20);
	child_meta(dir, 600, 100, 0, cut);
	child_thr(dir, 600);
	rc = load(dir, &p, err, sizeof(err));
	CHECK(rc == 0, "load fork children (%s)", rc ? err : "ok");
	if (rc == 0) {
		const struct sc_image *c = image_of(&p, 200), *g = image_of(&p, 300);

		CHECK_EQ(p.nimages, 7, "images");
		CHECK(c && c->argc == 2 && !strcmp(c->argv[0], "./app"), "child's command inherited");
		CHECK(c && c->nthreads == 1 && c->threads[0].tid == 200, "child's own thread only");
		CHECK_EQ(calls_of(&p, 200, "strlen"), 7, "child's strlen calls");
		CHECK_EQ(calls_of(&p, 200, "memcpy"), 3, "child's memcpy calls");
		CHECK(g && g->nthreads == 1 && g->threads[0].tid == 300, "grandchild's own thread");
		CHECK_EQ(calls_of(&p, 300, "strlen"), 7, "grandchild's strlen calls");
		CHECK_EQ(calls_of(&p, 400, "strlen"), 0, "no parent: no entries");
		CHECK(image_of(&p, 400) != NULL, "no parent: the child still loads");
		CHECK_EQ(skipped(&p, "p999-0.meta"), 1, "missing parent named once");
		CHECK(image_of(&p, 500) && image_of(&p, 501), "a cycle loads");
		CHECK(skipped(&p, "p500-0.meta") <= 1 && skipped(&p, "p501-0.meta") <= 1 &&
		      skipped(&p, "p500-0.meta") + skipped(&p, "p501-0.meta") >= 1, "a cycle named");
		CHECK_EQ(calls_of(&p, 600, "strlen"), 7, "cut: the whole record kept");
		CHECK_EQ(calls_of(&p, 600, "memcpy"), 0, "cut: the cut record left out");
		CHECK_EQ(calls_of(&p, 100, "strlen"), 10, "parent's own calls");
	}
	unload(&p);
}

/* n command lines of 8000 bytes: a big .meta (the last one read wins) */
static void m_pad(struct buf *b, size_t n)
{
	static char pad[8000];

	memset(pad, 'x', sizeof(pad));
	while (n--)
		meta_rec(b, SC_M_CMDLINE, pad, sizeof(pad), NULL);
}

/* p<pid>-0.meta: its reference (none if ppid is 0), `pad` command lines
 * of padding, then basic_meta's records but its header; returns its size */
static size_t padded_meta(const char *dir, uint32_t pid, uint32_t ppid, uint64_t end, size_t pad)
{
	struct buf b = { 0 }, basic = { 0 };
	struct sc_m_parent ref = { ppid, 0, end };
	size_t n;

	meta_header(&b, pid, 0, SC_TIMING_ADAPTIVE, S0, MONO0, 2000000000ull, 0);
	if (ppid)
		meta_rec(&b, SC_M_PARENT, &ref, sizeof(ref), NULL);
	m_pad(&b, pad);
	basic_meta(&basic);
	put(&b, basic.b + sizeof(struct sc_meta_header), basic.n - sizeof(struct sc_meta_header));
	free(basic.b);
	n = b.n;
	write_meta(dir, pid, 0, &b);
	return n;
}

/*
 * A loop of references costs nothing: a 16 MB file that is its own
 * parent is read once, as its image (no parent's bytes), and two that
 * are each other's read the other once. Before, each of 64 levels read
 * the whole file again and kept it (a 16 MB file: 19 s and 3 GB).
 */
static void test_fork_parent_cycle(void)
{
	const char *dir = mkdir_t("forkcycle");
	struct sc_profile p;
	char err[512];
	size_t b_size;
	int rc;

	padded_meta(dir, 700, 700, 1ull << 40, 2048);
	child_thr(dir, 700);
	rc = load(dir, &p, err, sizeof(err));
	CHECK(rc == 0, "load a file its own parent (%s)", rc ? err : "ok");
	if (rc == 0) {
		CHECK_EQ(calls_of(&p, 700, "strlen"), 7, "its own calls");
		CHECK_EQ(skipped(&p, "p700-0.meta"), 1, "the cycle named");
		CHECK(p.nskipped_files == 1 && strstr(p.skipped_files[0].reason, "cycle"),
		      "the reason says a cycle (%zu: %s %s)", p.nskipped_files,
		      p.nskipped_files ? p.skipped_files[0].file : "",
		      p.nskipped_files ? p.skipped_files[0].reason : "");
		CHECK_EQ(p.parent_bytes_read, 0, "no parent's bytes read");
	}
	unload(&p);

	dir = mkdir_t("forkcycle2");
	padded_meta(dir, 710, 711, 1ull << 40, 2048);
	b_size = padded_meta(dir, 711, 710, 1ull << 40, 2048);
	child_thr(dir, 710);
	child_thr(dir, 711);
	rc = load(dir, &p, err, sizeof(err));
	CHECK(rc == 0, "load two files each other's parent (%s)", rc ? err : "ok");
	if (rc == 0) {
		CHECK_EQ(calls_of(&p, 710, "strlen"), 7, "the first's calls");
		CHECK_EQ(calls_of(&p, 711, "strlen"), 7, "the second's calls");
		CHECK_EQ(p.nskipped_files, 1, "the cycle named once");
		CHECK_EQ(p.parent_bytes_read, b_size, "the second read once as a parent");
	}
	unload(&p);
}

/*
 * Twenty children of one 1 MB parent read its file once; a child that
 * refers to the first records of a parent that went on reads only them
 * (PARENT_HEAD, 4 KB, at least).
 */
static void test_fork_parent_shared(void)
{
	const char *dir = mkdir_t("forkshared");
	struct buf b = { 0 };
	struct sc_profile p;
	char err[512];
	size_t psize, end;
	int rc, all = 1;

	psize = padded_meta(dir, 800, 0, 0, 128);
	for (uint32_t k = 801; k <= 820; k++) {
		child_meta(dir, k, 800, 0, psize);
		child_thr(dir, k);
	}
	/* a parent whose entries come first, then 1 MB more */
	meta_header(&b, 900, 0, SC_TIMING_ADAPTIVE, S0, MONO0, 2000000000ull, 0);
	m_cmdline(&b, "./app", "x");
	m_object(&b, 0, "/tmp/build/app");
	m_object(&b, 1, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	m_entry(&b, 0, 0, 1, "strlen@GLIBC_2.2.5");
	end = b.n;
	m_pad(&b, 128);
	write_meta(dir, 900, 0, &b);
	child_meta(dir, 901, 900, 0, end);
	child_thr(dir, 901);
	rc = load(dir, &p, err, sizeof(err));
	CHECK(rc == 0, "load siblings (%s)", rc ? err : "ok");
	if (rc == 0) {
		for (uint32_t k = 801; k <= 820; k++)
			all &= calls_of(&p, k, "strlen") == 7 && calls_of(&p, k, "memcpy") == 3;
		CHECK(all, "every sibling's calls");
		CHECK_EQ(calls_of(&p, 901, "strlen"), 7, "the early child's calls");
		CHECK_EQ(p.nskipped_files, 0, "nothing skipped");
		CHECK_EQ(p.parent_bytes_read, psize + (end > 4096 ? end : 4096),
			 "the parents' bytes read once, as far as referred to");
	}
	unload(&p);
}

/* A chain of 200 fork children: each has its inherited entries (a chain
 * 64 deep was cut), each file is read once as a parent. */
static void test_fork_chain_deep(void)
{
	const char *dir = mkdir_t("forkdeep");
	struct buf b = { 0 };
	struct sc_profile p;
	char err[512], path[600];
	uint64_t sizes = 0;
	int rc, all = 1;

	basic_meta(&b);
	write_meta(dir, 1000, 0, &b);
	for (uint32_t k = 1001; k <= 1200; k++) {
		child_meta(dir, k, k - 1, 0, 1u << 20);
		child_thr(dir, k);
	}
	for (uint32_t k = 1000; k < 1200; k++) {
		struct stat st;

		snprintf(path, sizeof(path), "%s/p%u-0.meta", dir, k);
		sizes += stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
	}
	rc = load(dir, &p, err, sizeof(err));
	CHECK(rc == 0, "load a deep chain (%s)", rc ? err : "ok");
	if (rc == 0) {
		for (uint32_t k = 1001; k <= 1200; k++)
			all &= calls_of(&p, k, "strlen") == 7;
		CHECK(all, "every level's inherited entry");
		CHECK_EQ(calls_of(&p, 1200, "strlen"), 7, "the deepest level's calls");
		CHECK_EQ(p.nskipped_files, 0, "nothing skipped");
		CHECK_EQ(p.parent_bytes_read, sizes, "each parent read once");
	}
	unload(&p);
}

static void expect_error(const char *dir, const char *want, const char *what)
{
	struct sc_profile p;
	char err[512];
	int rc = load(dir, &p, err, sizeof(err));

	CHECK(rc == -1 && strstr(err, want) != NULL, "%s: error \"%s\" contains \"%s\"", what,
	      err, want);
	CHECK(!strchr(err, '\n'), "%s: one line", what);
	unload(&p);
}

/* dir loads, with `file` skipped for a reason holding `want`; returns
 * the number of images loaded (-1 if it did not load). */
static int expect_skip(const char *dir, const char *file, const char *want, const char *what)
{
	struct sc_profile p;
	char err[512];
	int rc = load(dir, &p, err, sizeof(err)), n = -1;
	size_t i;
	const char *why = NULL;

	CHECK(rc == 0, "%s: loads (%s)", what, rc ? err : "ok");
	if (rc == 0) {
		n = (int)p.nimages;
		for (i = 0; i < p.nskipped_files; i++)
			if (!strcmp(p.skipped_files[i].file, file))
				why = p.skipped_files[i].reason;
		CHECK(why && strstr(why, want) && !strchr(why, '\n'),
		      "%s: %s skipped, \"%s\" contains \"%s\"", what, file, why ? why : "(not skipped)",
		      want);
	}
	unload(&p);
	return n;
}

static void test_errors(void)
{
	const char *dir;
	struct buf b = { 0 };
	char path[600];

	dir = mkdir_t("magic");
	basic_meta(&b);
	memcpy(b.b, "NOTSCALR", 8);
	write_meta(dir, 5, 0, &b);
	expect_error(dir, "p5-0.meta: bad magic", "bad magic");

	dir = mkdir_t("version");
	basic_meta(&b);
	((struct sc_meta_header *)(void *)b.b)->version = SC_FORMAT_VERSION + 1;
	write_meta(dir, 5, 0, &b);
	{
		char want[100];

		snprintf(want, sizeof(want),
			 "p5-0.meta: format version %u, this scaler reads versions %u to %u",
			 SC_FORMAT_VERSION + 1, SC_FORMAT_MIN_VERSION, SC_FORMAT_VERSION);
		expect_error(dir, want, "bad version");
	}

	dir = mkdir_t("short");
	basic_meta(&b);
	b.n = 20;
	write_meta(dir, 5, 0, &b);
	expect_error(dir, "p5-0.meta: truncated header", "short header");

	dir = mkdir_t("truncrec");
	basic_meta(&b);
	{
		uint32_t x = 1;

		meta_rec(&b, SC_M_ENTRY, &x, sizeof(x), NULL);   /* 4 < 16 bytes */
	}
	m_exit(&b, 0, 1);
	write_meta(dir, 5, 0, &b);
	expect_error(dir, "p5-0.meta: truncated ENTRY record", "truncated record");

	dir = mkdir_t("thrmagic");
	basic_meta(&b);
	write_meta(dir, 5, 0, &b);
	write_thr(dir, 5, 0, 0, 1, 2, NULL, 0, 0);
	snprintf(path, sizeof(path), "%s/p5-0-t0.thr", dir);
	{
		FILE *f = fopen(path, "r+b");

		if (f) {
			fwrite("XXXXXXXX", 1, 8, f);
			fclose(f);
		}
	}
	CHECK_EQ(expect_skip(dir, "p5-0-t0.thr", "bad magic", "thr bad magic"), 1,
		 "thr bad magic: its process is still read");

	dir = mkdir_t("empty");
	write_file(dir, "README", "x", 1);
	expect_error(dir, "not a scaler profile (no p*.meta files)", "empty dir");

	snprintf(path, sizeof(path), "%s/nosuchdir", tmproot);
	expect_error(path, "nosuchdir: No such file or directory", "missing dir");
}

/*
 * Overrides, several threads and components, objects sharing a basename,
 * the interceptor's cost (taken off by the runtime: the reader subtracts
 * nothing, only sums the threads' figures), the short-END hz fallback,
 * EXIT over END.
 */
/* A profile of the given version (meta and .thr), basic_meta's content
 * with a start-up cost of 2 ticks per call and per-thread figures in the
 * thread header, in a new directory. */
static const char *versioned(const char *name, uint32_t meta_version, uint32_t thr_v)
{
	const char *dir = mkdir_t(name);
	struct buf b = { 0 };

	basic_meta(&b);
	((struct sc_meta_header *)(void *)b.b)->version = meta_version;
	((struct sc_meta_header *)(void *)b.b)->overhead_ticks = 2;
	write_meta(dir, 100, 0, &b);
	free(b.b);
	thr_ovh.sum = 30, thr_ovh.n = 3, thr_ovh.min = 8, thr_ovh.max = 12;
	thr_version = thr_v;
	basic_thr(dir);
	thr_version = 0;
	memset(&thr_ovh, 0, sizeof(thr_ovh));
	return dir;
}

/* strlen's histogram in a profile whose .thr file is of version v, its
 * first record's bytes from SC_REC_HIST_V6_OFF on being `tail` */
static int hist_of(const char *name, uint32_t v, const unsigned char *tail, size_t ntail,
		   long double *out)
{
	const char *dir = mkdir_t(name);
	struct buf b = { 0 };
	struct sc_profile p;
	struct sc_rec r[2];
	char err[512];
	int rc, found = 0;

	basic_meta(&b);
	((struct sc_meta_header *)(void *)b.b)->version = v;
	write_meta(dir, 100, 0, &b);
	free(b.b);
	r[0] = rec(10, 10, 1000, 1000, 10, 400);
	r[1] = rec(1000, 10, 1000, 10 * 100 * 8, 80, 500);
	if (v < 7)
		r[0].dup_ticks = 5;     /* a version 6 runtime's span */
	memcpy((unsigned char *)&r[0] + SC_REC_HIST_V6_OFF, tail, ntail);
	thr_version = v;
	thr_perf_kind = SC_PERF_SWITCHES;       /* wself_preempt is read */
	write_thr(dir, 100, 0, 0, S0, S0 + 1000000, r, 2, 0);
	thr_version = 0;
	thr_perf_kind = 0;
	rc = load(dir, &p, err, sizeof(err));
	CHECK(rc == 0, "%s loads (%s)", name, rc ? err : "ok");
	if (rc == 0 && p.nimages == 1) {
		const struct sc_image *im = &p.images[0];

		for (size_t i = 0; i < im->nentries; i++)
			if (!strcmp(im->entries[i].api, "strlen")) {
				memcpy(out, im->entries[i].hist, SC_REC_HIST * sizeof(*out));
				/* not the span, nor the old buckets 30 and 31
				 * as wself_preempt (offset 248) */
				found = im->entries[i].dup_ticks == 0 &&
					im->entries[i].self_preempt_ticks == 0;
			}
		unload(&p);
	}
	return found;
}

/*
 * The latency histogram's buckets: up to version 6, 32 of [2^(b+3),
 * 2^(b+4)) ticks; since 7, 29 of [2^(b+6), 2^(b+7)). An old profile's
 * bucket b is read into max(b - 3, 0), each call where a version 7
 * runtime would have put it (the top bucket is 2^34 ticks and over in
 * both), saturating; a current profile's histogram is read as it is.
 */
static void test_hist_versions(void)
{
	uint32_t old[SC_REC_HIST_V6], cur[SC_REC_HIST];
	long double h[SC_REC_HIST];
	int b, ok;

	printf("-- histogram versions\n");
	CHECK_EQ(SC_REC_HIST_V6_OFF, offsetof(struct sc_rec, hist), "histogram stays at 128");
	for (b = 0; b < SC_REC_HIST_V6; b++)
		old[b] = 100u * (uint32_t)b + 1;
	old[1] = UINT32_MAX - 2;        /* buckets 0..3 sum past UINT32_MAX */
	memset(h, 0, sizeof(h));
	ok = hist_of("hist6", 6, (const unsigned char *)old, sizeof(old), h);
	CHECK(ok, "v6: strlen found, its old span not read as dup_ticks, its last buckets not as wself_preempt");
	CHECK(h[0] == (long double)UINT32_MAX, "v6: buckets 0..3 into 0, saturated (%Lg)", h[0]);
	for (ok = 1, b = 1; b < SC_REC_HIST; b++)
		ok &= h[b] == (long double)old[b + SC_REC_HIST_SHIFT_V6];
	CHECK(ok, "v6: bucket b + 3 into b, the last (31) into the last (28)");

	/* the same bytes in a current profile are its own buckets */
	for (b = 0; b < SC_REC_HIST; b++)
		cur[b] = 7u * (uint32_t)b + 3;
	memset(h, 0, sizeof(h));
	ok = hist_of("hist7", SC_FORMAT_VERSION, (const unsigned char *)cur, sizeof(cur), h);
	CHECK(ok, "current: strlen found");
	for (ok = 1, b = 0; b < SC_REC_HIST; b++)
		ok &= h[b] == (long double)cur[b];
	CHECK(ok, "current: histogram read as written");
}

/*
 * Older formats: version 3 lacks the threads' ovh_* figures (those bytes
 * were reserved) and its runtime left its start-up cost on each timed
 * call, so the reader takes the header's figure off every call and shows
 * the cost as unknown. Versions it cannot read (2, before SC_M_BIND; one
 * newer than its own) are refused naming the file and the versions.
 */
static void test_versions(void)
{
	struct sc_profile p;
	char err[512], want[200];
	const char *dir;
	int rc;

	printf("-- versions\n");
	CHECK_EQ(SC_FORMAT_MIN_VERSION, 3, "oldest version read");
	dir = versioned("v3", 3, 3);
	rc = load(dir, &p, err, sizeof(err));
	CHECK(rc == 0, "version 3 profile loads (%s)", rc ? err : "ok");
	if (rc == 0 && p.nimages == 1) {
		const struct sc_image *im = &p.images[0];

		CHECK(im->ovh_unknown, "v3: timing cost unknown");
		CHECK_EQ(im->ovh_n, 0, "v3: the thread header's ovh_* bytes are not read");
		/* strlen: 1000 - 10 * 2 ticks at 1 GHz, 40 % self */
		check_call(agg_of(im), "app", "libc.so.6", "strlen", 10, 980, 392);
		/* memcpy: 100000 - 1000 * 2 ticks, 50 % self */
		check_call(agg_of(im), "app", "libc.so.6", "memcpy", 1000, 98000, 49000);
		CHECK_EQ(sum_self(agg_of(im)), agg_of(im)->threads_ns, "v3: sum of self == threads");
		CHECK_EQ(im->nlongest, 0, "v3: no longest calls");
	}
	unload(&p);

	/* the same in the current version: the figures are read, nothing
	 * is taken off */
	dir = versioned("v4", SC_FORMAT_VERSION, SC_FORMAT_VERSION);
	rc = load(dir, &p, err, sizeof(err));
	CHECK(rc == 0, "current version loads (%s)", rc ? err : "ok");
	if (rc == 0 && p.nimages == 1) {
		const struct sc_image *im = &p.images[0];

		CHECK(!im->ovh_unknown, "current: timing cost known");
		CHECK_EQ(im->ovh_n, 3, "current: measurements read");
		check_call(agg_of(im), "app", "libc.so.6", "memcpy", 1000, 100000, 50000);
		CHECK(im->nlongest == 1 && im->longest[0].seq == 0 &&
		      im->longest[0].start_tsc == S0 + 50 && im->longest[0].ticks == 300 &&
		      !strcmp(im->entries[im->longest[0].entry].api, "strlen"),
		      "current: strlen's longest call, where it began");
	}
	unload(&p);

	dir = versioned("v2", 2, 2);
	snprintf(want, sizeof(want), "/v2/p100-0.meta: format version 2, this scaler reads "
		 "versions %u to %u", SC_FORMAT_MIN_VERSION, SC_FORMAT_VERSION);
	expect_error(dir, want, "version 2 refused");

	dir = versioned("vnext", SC_FORMAT_VERSION + 1, SC_FORMAT_VERSION + 1);
	snprintf(want, sizeof(want), "/vnext/p100-0.meta: format version %u, this scaler reads "
		 "versions %u to %u", SC_FORMAT_VERSION + 1, SC_FORMAT_MIN_VERSION,
		 SC_FORMAT_VERSION);
	expect_error(dir, want, "newer version refused");

	/* a newer counter file beside a current .meta: the .thr is named */
	dir = versioned("thrnext", SC_FORMAT_VERSION, SC_FORMAT_VERSION + 1);
	snprintf(want, sizeof(want), "format version %u, this scaler reads versions %u to %u",
		 SC_FORMAT_VERSION + 1, SC_FORMAT_MIN_VERSION, SC_FORMAT_VERSION);
	expect_skip(dir, "p100-0-t0.thr", want, "newer counter file skipped");
}

/* Count of the calls of api in the first image's aggregate (0 if none). */
static uint64_t api_count(const struct sc_profile *p, const char *api)
{
	const struct sc_agg *a = agg_of(&p->images[0]);
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < a->ncalls; i++)
		if (!strcmp(a->calls[i].api, api))
			n += a->calls[i].count;
	return n;
}

static void path_of(char *path, size_t n, const char *dir, const char *name)
{
	snprintf(path, n, "%s/%s", dir, name);
}

/*
 * What the reader does not trust or cannot use is skipped and named, the
 * rest read (issue 20, item 7): a bad .meta takes its .thr files with it;
 * a .thr without a .meta, a link, a directory, another user's file, a
 * .meta too large to be one are skipped; a thread's file under a second
 * name (a leading zero) is not read twice; a bind far into a sparse .thr
 * costs one read.
 */
static void test_untrusted(void)
{
	const char *dir = mkdir_t("untrusted");
	struct buf b = { 0 };
	struct sc_profile p;
	struct sc_rec r;
	char path[600], err[512];
	const uint32_t far = 1u << 20;
	int fd, rc;

	printf("-- untrusted\n");
	basic_meta(&b);
	m_entry(&b, far, 0, 1, "far_api");
	write_meta(dir, 100, 0, &b);
	basic_thr(dir);
	/* the same thread's file again under a name the runtime never gives */
	path_of(path, sizeof(path), dir, "p100-0-t0.thr");
	{
		char alias[600];

		path_of(alias, sizeof(alias), dir, "p100-0-t00.thr");
		CHECK(link(path, alias) == 0, "made p100-0-t00.thr");
	}
	/* thread 1: a sparse file whose one record is the far bind's */
	write_thr(dir, 100, 0, 1, S0, S0 + 10, NULL, 0, 0);
	path_of(path, sizeof(path), dir, "p100-0-t1.thr");
	r = rec(5, 0, 0, 0, 0, 0);
	fd = open(path, O_RDWR);
	CHECK(fd >= 0 && ftruncate(fd, SC_THR_HEADER_SIZE + ((off_t)far + 1) * (off_t)sizeof(r)) == 0 &&
	      pwrite(fd, &r, sizeof(r), SC_THR_HEADER_SIZE + (off_t)far * (off_t)sizeof(r)) ==
	      (ssize_t)sizeof(r), "sparse .thr made");
	if (fd >= 0)
		close(fd);
	/* a bad .meta and its thread */
	basic_meta(&b);
	memcpy(b.b, "NOTSCALR", 8);
	write_meta(dir, 7, 0, &b);
	write_thr(dir, 7, 0, 0, 1, 2, NULL, 0, 0);
	/* a thread without a .meta */
	write_thr(dir, 9, 0, 3, 1, 2, NULL, 0, 0);
	/* a link, a directory */
	path_of(path, sizeof(path), dir, "p11-0.meta");
	CHECK(symlink("p100-0.meta", path) == 0, "made a link");
	path_of(path, sizeof(path), dir, "p12-0.meta");
	CHECK(mkdir(path, 0700) == 0, "made a directory");
	/* a .meta of 2 GiB (sparse) */
	basic_meta(&b);
	write_meta(dir, 13, 0, &b);
	path_of(path, sizeof(path), dir, "p13-0.meta");
	CHECK(truncate(path, (off_t)2 << 30) == 0, "made a 2 GiB .meta");
	/* another user's copy of an image */
	if (geteuid() == 0) {
		basic_meta(&b);
		write_meta(dir, 14, 0, &b);
		path_of(path, sizeof(path), dir, "p14-0.meta");
		CHECK(chown(path, 65534, 65534) == 0, "gave p14-0.meta away");
		/* a thread the .meta declares, its file made after a drop of
		 * root (read), and one it does not declare (skipped) */
		path_of(path, sizeof(path), dir, "p100-0-t0.thr");
		CHECK(chown(path, 65534, 65534) == 0, "gave p100-0-t0.thr away");
		write_thr(dir, 100, 0, 5, S0, S0 + 10, NULL, 0, 0);
		path_of(path, sizeof(path), dir, "p100-0-t5.thr");
		CHECK(chown(path, 65534, 65534) == 0, "gave p100-0-t5.thr away");
	}

	rc = load(dir, &p, err, sizeof(err));
	CHECK(rc == 0, "untrusted: loads (%s)", rc ? err : "ok");
	if (rc == 0) {
		CHECK_EQ(p.nimages, 1, "untrusted: one image read");
		if (p.nimages == 1) {
			CHECK_EQ(p.images[0].pid, 100, "untrusted: the good one");
			CHECK_EQ(api_count(&p, "strlen"), 10, "untrusted: thread 0 read once");
			CHECK_EQ(api_count(&p, "far_api"), 5, "untrusted: the far record read");
		}
		CHECK_EQ(p.nskipped_files, 6 + 2 * (geteuid() == 0), "untrusted: files skipped");
	}
	unload(&p);
	expect_skip(dir, "p7-0.meta", "bad magic", "bad meta");
	expect_skip(dir, "p7-0-t0.thr", "its process's p7-0.meta was skipped", "its thread");
	expect_skip(dir, "p9-0-t3.thr", "no p9-0.meta beside it", "orphan thread");
	expect_skip(dir, "p11-0.meta", "a symbolic link", "link");
	expect_skip(dir, "p12-0.meta", "not a regular file (a directory)", "directory");
	expect_skip(dir, "p13-0.meta", "2147483648 bytes, more than a .meta file can hold",
		    "huge meta");
	if (geteuid() == 0) {
		expect_skip(dir, "p14-0.meta", "owned by uid 65534, not by the directory's owner",
			    "another user's");
		expect_skip(dir, "p100-0-t5.thr", "owned by uid 65534", "another user's thread");
	}
	path_of(path, sizeof(path), dir, "p13-0.meta");
	unlink(path);

	/* nothing usable: an error naming the first file skipped */
	dir = mkdir_t("untrusted-none");
	path_of(path, sizeof(path), dir, "p3-0.meta");
	CHECK(mkfifo(path, 0600) == 0, "made a fifo");
	expect_error(dir, "/p3-0.meta: not a regular file (a fifo)", "only a fifo");
}

/* Objects unloaded and loaded again: the last record of an id decides. */
static void test_unload(void)
{
	const char *dir = mkdir_t("unload");
	struct buf b = { 0 };
	struct sc_profile p;
	struct sc_m_object o = { 1, 0, 0 };
	char err[512];
	int rc;

	printf("-- unload\n");
	meta_header(&b, 100, 0, SC_TIMING_ADAPTIVE, S0, MONO0, 2000000000ull, 0);
	m_object(&b, 0, "/tmp/app");
	m_object(&b, 1, "/tmp/liba.so");
	m_object(&b, 2, "/tmp/libb.so");
	m_object(&b, 3, "/tmp/libc.so");
	meta_rec(&b, SC_M_UNLOAD, &o, sizeof(o), NULL);        /* 1: unloaded */
	o.id = 2;
	meta_rec(&b, SC_M_UNLOAD, &o, sizeof(o), NULL);
	m_object(&b, 2, "/tmp/libb.so");                       /* 2: loaded again */
	write_meta(dir, 100, 0, &b);
	rc = load(dir, &p, err, sizeof(err));
	CHECK(rc == 0 && p.nimages == 1 && p.images[0].nobjects == 4, "unload: loads (%s)",
	      rc ? err : "ok");
	if (rc == 0 && p.nimages == 1 && p.images[0].nobjects == 4) {
		const struct sc_image *im = &p.images[0];

		CHECK(!sc_image_object(im, 0)->unloaded, "unload: 0 loaded");
		CHECK(sc_image_object(im, 1)->unloaded, "unload: 1 unloaded");
		CHECK(!sc_image_object(im, 2)->unloaded, "unload: 2 loaded again");
		CHECK(!sc_image_object(im, 3)->unloaded, "unload: 3 loaded");
	}
	unload(&p);
}

/* One writer's output of the loaded profile (model), malloc'd. */
static __attribute__((noinline)) char *render_all(struct sc_profile *p, void (*writer)(const struct report *), int threads)
{
	struct report r;
	char *buf = NULL;
	size_t n = 0;

	memset(&r, 0, sizeof(r));
	r.p = p;
	r.model = &model;
	r.agg = &model.agg;
	r.timed = 1;
	r.threads = threads;
	r.out = open_memstream(&buf, &n);
	report_select(&r);
	writer(&r);
	fclose(r.out);
	report_release(&r);
	return buf;
}

/* Does text hold a negative number: a '-' before a digit that follows a
 * space, a quote, a colon, a comma or '>' (a table cell)? An unknown exit
 * status (-1) and the HTML's sort key of an unknown value are not times. */
static __attribute__((noinline)) const char *negative_number(const char *text)
{
	const char *s;

	for (s = text; (s = strchr(s, '-')) != NULL; s++)
		if (s > text && strchr(" :,>\"", s[-1]) && s[1] >= '0' && s[1] <= '9' &&
		    !(s - text >= 14 && !strncmp(s - 14, "\"exit_status\":-1", 16)) &&
		    !(s - text >= 8 && !strncmp(s - 8, "data-v=\"-1\">-<", 14)))
			return s;
	return NULL;
}

/*
 * Counters near 2^64 (issue 20, item 10): every sum of them saturates
 * instead of overflowing (the ASan/UBSan build of this test stops at any
 * signed overflow), and no time comes out negative, in the model or in
 * any view.
 */
static void test_huge(void)
{
	const char *dir = mkdir_t("huge");
	const uint64_t M = UINT64_MAX, H = (uint64_t)INT64_MAX + 1;
	struct buf b = { 0 };
	struct sc_profile p;
	struct sc_rec r[4];
	char err[512];
	uint32_t pid, k;
	size_t i;
	int rc, j;

	printf("-- huge counters\n");
	for (k = 0; k < 4; k++) {
		r[k] = rec(M - k, M - k, M, M, k ? 1 : 0, k & 1 ? H : M);
		r[k].max_ticks = M;
		r[k].max_tsc = k & 1 ? M - k : H + k;   /* the longest calls' starts */
		r[k].wpticks = M;
		r[k].wblock = H + k;
		for (j = 0; j < SC_REC_HIST; j++)
			r[k].hist[j] = UINT32_MAX;
	}
	for (pid = 100; pid < 104; pid++) {
		/* a clock of 1 Hz: every tick is a second; 103's runs at 1
		 * GHz, its longest calls start and last some 5e18 ns (their
		 * ends are past INT64_MAX ns) */
		meta_header(&b, pid, 0, SC_TIMING_ADAPTIVE, 0, 0, pid == 103 ? 1000000000u : 1,
			    pid == 102 ? M : 0);
		if (pid == 102)
			((struct sc_meta_header *)(void *)b.b)->version = 3;
		m_cmdline(&b, "./huge", NULL);
		m_object(&b, 0, "/tmp/huge");
		m_object(&b, 1, "/lib/liba.so");
		m_object(&b, 2, "/lib/libb.so");
		m_entry(&b, 0, 0, 1, "a1");
		m_entry(&b, 1, 0, 2, "b1");
		m_entry(&b, 2, 1, 2, "b2");
		{
			struct sc_m_entry e = { 103, 2, 1, SC_ENT_WAIT };
			struct sc_m_bind bd = { 103, 3, SC_ENT_WAIT, 0 };

			meta_rec(&b, SC_M_ENTRY, &e, sizeof(e), "wait_a");
			meta_rec(&b, SC_M_BIND, &bd, sizeof(bd), NULL);
		}
		m_thread(&b, 0, 1, UINT32_MAX);
		m_thread(&b, 1, 2, 1);
		m_thread(&b, 2, 3, 2);
		/* more threads of the executable: more threads' time than
		 * int64_t holds (the nesting tree's process node) */
		for (k = 3; k < 7; k++)
			m_thread(&b, k, k + 1, 0);
		if (pid != 101)
			m_end(&b, M, M, -1, SC_END_SIGNAL);
		if (pid != 100)
			m_exit(&b, 3, M);
		write_meta(dir, pid, 0, &b);
		thr_ovh.sum = M, thr_ovh.n = UINT32_MAX, thr_ovh.min = UINT32_MAX;
		thr_ovh.max = UINT32_MAX;
		thr_version = pid == 102 ? 3 : 0;
		for (k = 0; k < 4 && pid == 103; k++) {
			r[k].max_tsc = 6000000000000000000ull + k;
			r[k].max_ticks = 5000000000000000000ull - k;
		}
		for (k = 0; k < 7; k++)
			write_thr(dir, pid, 0, k, k == 1 ? M : pid == 103, k == 2 ? 0 : M, r, 4, 0);
		thr_version = 0;
	}
	memset(&thr_ovh, 0, sizeof(thr_ovh));

	rc = load(dir, &p, err, sizeof(err));
	CHECK(rc == 0 && p.nimages == 4, "huge: loads (%s)", rc ? err : "ok");
	if (rc == 0) {
		const struct sc_agg *a = &model.agg;
		int neg = 0;

		for (i = 0; i < a->ncalls; i++)
			neg += a->calls[i].total_ns < 0 || a->calls[i].self_ns < 0 ||
			       a->calls[i].attr_ns < 0 || a->calls[i].wait_ns < 0 ||
			       a->calls[i].max_ns < 0 || a->calls[i].p50_ns < 0 ||
			       a->calls[i].p99_ns < 0;
		for (i = 0; i < a->ncomp; i++)
			neg += a->comp[i].total_ns < 0 || a->comp[i].threads_ns < 0 ||
			       a->comp[i].in_ns < 0 || a->comp[i].out_ns < 0 ||
			       a->comp[i].wait_ns < 0 || a->comp[i].attr_total_ns < 0;
		for (i = 0; i < p.nimages; i++)
			neg += p.images[i].wall_ns < 0 || p.images[i].ovh_mean_ns < 0;
		CHECK_EQ(neg, 0, "huge: negative times in the model");
		CHECK(a->threads_ns > 0 && a->calls_count == UINT64_MAX,
		      "huge: sums saturate (threads %lld ns, %llu calls)",
		      (long long)a->threads_ns, (unsigned long long)a->calls_count);
		/* every format of the writers' table, without and with
		 * --threads */
		for (j = 0; report_writer_choice((size_t)j / 2, NULL); j++) {
			const char *name = report_writer_choice((size_t)j / 2, NULL);
			char *out = render_all(&p, report_writer(name)->write, j % 2);
			/* the HTML's style sheet and script have their negative
			 * margins and numbers: only its body's text */
			const char *body = out && strstr(out, "<body") ? strstr(out, "<body") : out;
			char *script = body ? strstr(body, "<script") : NULL;
			const char *at;

			if (script)
				*script = '\0';
			at = body ? negative_number(body) : NULL;

			/* pprof's is gzipped: its bytes are not text */
			if (!strcmp(name, "pprof"))
				at = NULL;
			CHECK(out && !at, "huge: %s%s without negative numbers%s%.100s", name,
			      j % 2 ? " --threads" : "", at ? ": " : "",
			      at ? (at - body > 60 ? at - 60 : body) : "");
			free(out);
		}
	}
	unload(&p);
}

/* An entry of load_all's profile: caller and callee object ids, name */
struct ent {
	uint32_t caller, callee;
	const char *name;
};

/*
 * A profile in directory `name` of one image (pid 9, timing "all", 1 GHz:
 * ticks are ns) of objects objs (the first the executable), entries e and
 * one thread of `ticks` with a record per entry, loaded into p: 0, or -1
 * (reported, p freed).
 */
static int load_all(const char *name, const char *const *objs, size_t nobj, const struct ent *e,
		    const struct sc_rec *r, size_t n, uint64_t ticks, struct sc_profile *p)
{
	const char *dir = mkdir_t(name);
	struct buf b = { 0 };
	const uint64_t S = 70000;
	char err[512];
	int rc;

	meta_header(&b, 9, 0, SC_TIMING_ALL, S, MONO0, 1000000000ull, 0);
	m_cmdline(&b, objs[0], NULL);
	for (size_t i = 0; i < nobj; i++)
		m_object(&b, (uint32_t)i, objs[i]);
	for (size_t i = 0; i < n; i++)
		m_entry(&b, (uint32_t)i, e[i].caller, e[i].callee, e[i].name);
	m_thread(&b, 0, 9, UINT32_MAX);
	m_end(&b, S + ticks, MONO0 + ticks, 0, SC_END_EXIT);
	write_meta(dir, 9, 0, &b);
	write_thr(dir, 9, 0, 0, S, S + ticks, r, n, 0);
	rc = load(dir, p, err, sizeof(err));
	CHECK(rc == 0, "load %s profile (%s)", name, rc ? err : "ok");
	if (rc != 0)
		unload(p);
	return rc;
}

/*
 * A library entered through pointers nothing intercepts (Python's
 * extension modules): _ext.so calls libcrypto for 500 µs but was seen
 * called for 10 ns. The interpreter, libinterp.so, whose one call from the
 * executable measured 800 µs of nested calls while making only 300 µs
 * itself, hosted it: the 499,990 ns come off its self time, the self
 * times still add up to the thread's time, and _ext.so's total holds its
 * calls out.
 */
static void test_unseen(void)
{
	static const char *const objs[] = {"/bin/app", "/lib/libinterp.so", "/lib/_ext.so",
					   "/lib/libcrypto.so", "/lib/libc.so.6"};
	static const struct ent e[] = {{0, 1, "interp_main"}, {1, 4, "malloc"},
				       {2, 3, "EVP_Digest"}, {0, 2, "PyInit__ext"}};
	struct sc_profile p;
	struct sc_rec r[4];
	const struct sc_agg *a;
	const struct sc_component *ext, *interp;

	r[0] = rec(1, 1, 900000, 900000, 1, 100000);
	r[1] = rec(10, 10, 300000, 300000, 10, 300000);
	r[2] = rec(1, 1, 500000, 500000, 1, 500000);
	r[3] = rec(1, 1, 10, 10, 1, 10);
	if (load_all("unseen", objs, 5, e, r, 4, 1000000, &p) != 0)
		return;
	printf("-- unseen\n");
	a = agg_of(&p.images[0]);
	ext = sc_agg_component(a, "_ext.so");
	interp = sc_agg_component(a, "libinterp.so");
	CHECK(ext && interp, "components");
	if (ext && interp) {
		CHECK_EQ(ext->unseen_in_ns, 499990, "_ext.so entered unseen");
		CHECK_EQ(interp->unseen_out_ns, 499990, "... by the interpreter");
		CHECK_EQ(ext->self_ns, 0, "_ext.so's self time: none seen");
		CHECK_EQ(ext->total_ns, 500000, "_ext.so's total holds its calls out");
		CHECK_EQ(interp->self_ns, 100010, "the interpreter's self time less the entry");
	}
	check_comp(a, "app", 1000000, 99990);
	check_comp(a, "libcrypto.so", 500000, 500000);
	CHECK_EQ(sum_self(a), a->threads_ns, "unseen: sum of self == threads time");
	a = &model.agg;
	ext = sc_agg_component(a, "_ext.so");
	CHECK(ext && ext->unseen_in_ns == 499990, "the whole profile keeps the image's entry");
	CHECK_EQ(sum_self(a), a->threads_ns, "unseen, whole profile: sum of self == threads time");
	unload(&p);
}

/* A component's unseen entries in and out (model.h: unseen_in_ns). */
static void check_unseen(const struct sc_agg *a, const char *name, int64_t in, int64_t out)
{
	const struct sc_component *c = sc_agg_component(a, name);

	CHECK(c && c->unseen_in_ns == in && c->unseen_out_ns == out,
	      "%s entered unseen for %lld ns, paying %lld (%lld, %lld)", name, (long long)in,
	      (long long)out, c ? (long long)c->unseen_in_ns : -1LL,
	      c ? (long long)c->unseen_out_ns : -1LL);
}

/*
 * The interpreter both a host and the component running the thread
 * (python3 -c with hashlib and json under load: its callbacks' calls
 * measured a little more nested time than it called out). _ext.so calls
 * out 700 µs, seen entered for 10 ns; python's calls in hold 49,990 ns
 * beyond its calls out, libcrypto's 10,000. The hosts give that much, and
 * python, first by depth, the rest: never ld.so, the deepest, whose self
 * time (100 ns) cannot hold the 590,100 ns the last candidate was given,
 * and whose self time below zero, shown as 0, made the self times add up
 * to 159 % of the thread's time.
 */
static void test_unseen_host(void)
{
	static const char *const objs[] = {"/bin/python", "/lib/_ext.so", "/lib/libcrypto.so",
					   "/lib/libc.so.6", "/lib/ld.so"};
	static const struct ent e[] = {{0, 1, "PyInit__ext"}, {1, 2, "EVP_Digest"},
				       {1, 0, "PyArg_Parse"}, {0, 3, "memcpy"},
				       {3, 4, "__tunable_get_val"}};
	struct sc_profile p;
	struct sc_rec r[5];
	const struct sc_agg *a;
	const struct sc_component *c;
	int neg = 0;

	r[0] = rec(1, 1, 10, 10, 1, 10);
	r[1] = rec(1, 1, 600000, 600000, 1, 590000);
	r[2] = rec(1, 1, 100000, 100000, 1, 0);
	r[3] = rec(1, 1, 50000, 50000, 1, 50000);
	r[4] = rec(1, 1, 100, 100, 1, 100);
	if (load_all("unseenhost", objs, 5, e, r, 5, 1000000, &p) != 0)
		return;
	printf("-- unseen, the interpreter a host\n");
	a = agg_of(&p.images[0]);
	check_unseen(a, "_ext.so", 699990, 0);
	check_unseen(a, "python", 0, 689990);          /* all but libcrypto's */
	check_unseen(a, "libcrypto.so", 0, 10000);     /* what it hosted */
	check_unseen(a, "ld.so", 0, 0);
	check_comp(a, "python", 1000000, 360000);
	check_comp(a, "libcrypto.so", 600000, 590000);
	check_comp(a, "libc.so.6", 50000, 49900);
	check_comp(a, "ld.so", 100, 100);
	/* libcrypto's 10000 ns in it are inside its call into libcrypto */
	check_comp(a, "_ext.so", 690000, 0);
	for (size_t i = 0; i < a->ncomp; i++)
		neg += a->comp[i].self_ns < 0;
	CHECK_EQ(neg, 0, "unseen host: no self time below zero");
	CHECK_EQ(sum_self(a), a->threads_ns, "unseen host: sum of self == threads time");
	a = &model.agg;
	c = sc_agg_component(a, "ld.so");
	CHECK(c && c->self_ns == 100, "unseen host, whole profile: ld.so's self time kept");
	CHECK_EQ(sum_self(a), a->threads_ns, "unseen host, whole profile: sum of self == threads time");
	unload(&p);
}

/*
 * pyenv's python3: the executable only calls Py_BytesMain, libpython
 * loads _json (PyInit__json, seen) and calls it through pointers; _json
 * calls back into libpython for 50 us. Under load the executable has
 * self time of its own (100 us here: start-up, preemptions), and it was
 * taken first, by depth, as the code in flight: _json then looked
 * entered from the executable, its calls back were no re-entry of
 * libpython (find_nested), and libpython's total counted them twice
 * (python3-hashlib-sums, libpython_once). libpython, _json's caller of
 * record, pays: its total is the executable's call into it.
 */
static void test_unseen_caller(void)
{
	static const char *const objs[] = {"/bin/python3.11", "/lib/libpython.so",
					   "/lib/_json.so", "/lib/libc.so.6"};
	static const struct ent e[] = {{0, 1, "Py_BytesMain"}, {1, 2, "PyInit__json"},
				       {2, 1, "_PyAccu_Accumulate"}, {1, 3, "memcpy"}};
	struct sc_profile p;
	struct sc_rec r[4];
	const struct sc_agg *a;

	r[0] = rec(1, 1, 900000, 900000, 1, 800000);
	r[1] = rec(1, 1, 10, 10, 1, 10);
	r[2] = rec(1, 1, 50000, 50000, 1, 50000);
	r[3] = rec(1, 1, 100000, 100000, 1, 100000);
	if (load_all("unseencaller", objs, 4, e, r, 4, 1000000, &p) != 0)
		return;
	printf("-- unseen, paid by the caller of record\n");
	a = agg_of(&p.images[0]);
	check_unseen(a, "_json.so", 49990, 0);
	check_unseen(a, "libpython.so", 0, 49990);
	check_unseen(a, "python3.11", 0, 0);
	check_comp(a, "libpython.so", 900000, 800000);
	check_comp(a, "python3.11", 1000000, 100000);
	CHECK_EQ(sum_self(a), a->threads_ns, "unseen caller: sum of self == threads time");
	unload(&p);
}

/*
 * The APIs' nested times scaled to what their component calls out
 * (model.c, calibrate_nesting), where one API's share exceeds its total:
 * lib calls libc for 1500 ns, in calls sampled as 900 ns nested in api_a
 * (total 1000) and 100 ns in api_b (total 1000). Scaled by 1.5, api_a
 * holds 1000 and the 350 ns it cannot hold go to api_b, seen calling out
 * too: the APIs' self times (0 and 500) add up to the component's
 * (2000 in less 1500 out), and nothing of the calls out is lost.
 */
static void test_nest_excess(void)
{
	static const char *const objs[] = {"/bin/app", "/lib/lib.so", "/lib/libc.so.6"};
	static const struct ent e[] = {{0, 1, "api_a"}, {0, 1, "api_b"}, {1, 2, "write"}};
	struct sc_profile p;
	struct sc_rec r[3];
	const struct sc_agg *a;

	r[0] = rec(1, 1, 1000, 1000, 1, 100);
	r[1] = rec(1, 1, 1000, 1000, 1, 900);
	r[2] = rec(1, 1, 1500, 1500, 1, 1500);
	if (load_all("nestx", objs, 3, e, r, 3, 3000, &p) != 0)
		return;
	printf("-- nest excess\n");
	a = agg_of(&p.images[0]);
	check_call(a, "app", "lib.so", "api_a", 1, 1000, 0);
	check_call(a, "app", "lib.so", "api_b", 1, 1000, 500);
	check_comp(a, "lib.so", 2000, 500);
	check_comp(a, "app", 3000, 1000);
	CHECK_EQ(sum_self(a), a->threads_ns, "nest excess: sum of self == threads time");
	unload(&p);
}

static void test_threads(void)
{
	const char *dir = mkdir_t("threads");
	struct buf b = { 0 };
	struct sc_profile p;
	struct sc_rec r[4];
	const uint64_t S = 50000;
	const struct sc_image *im;
	char err[512];
	int rc;

	meta_header(&b, 7, 0, SC_TIMING_ALL, S, MONO0, 1000000000ull, 2);
	m_cmdline(&b, "/bin/prog", NULL);
	m_object(&b, 0, "/bin/prog");
	m_object(&b, 1, "/lib/libfoo.so");
	m_object(&b, 2, "/lib/libc.so.6");
	m_object(&b, 3, "/other/libc.so.6");
	m_object(&b, 1, "/lib/libbar.so");               /* overrides libfoo */
	m_entry(&b, 0, 0, 1, "wrong");
	m_entry(&b, 1, 1, 3, "puts@GLIBC_2.2.5");
	m_entry(&b, 2, 0, 1, "bar_fn");
	m_entry(&b, 3, 1, 1, "bar_internal");
	m_entry(&b, 0, 0, 2, "puts");                    /* overrides "wrong" */
	m_entry(&b, 9, 0, 2, "never_called");
	m_thread(&b, 0, 7, UINT32_MAX);
	m_thread(&b, 1, 8, 1);
	m_thread(&b, 2, 9, 99);                          /* unknown object */
	/* END after only 5 ms: too short, the header's hz is kept */
	m_end(&b, S + 5000000, MONO0 + 5000000, -1, SC_END_SIGNAL);
	m_exit(&b, 3, 7000000);
	write_meta(dir, 7, 0, &b);

	/* the header's overhead (2 ticks) was taken off already: kept as is */
	r[0] = rec(100, 100, 10000, 10000, 100, 10000);
	r[1] = rec(0, 0, 0, 0, 0, 0);
	r[2] = rec(5, 5, 50, 50, 5, 50);
	r[3] = rec(7, 7, 70, 70, 7, 70);
	thr_ovh.sum = 30, thr_ovh.n = 3, thr_ovh.min = 8, thr_ovh.max = 12;
	write_thr(dir, 7, 0, 0, S, 0, r, 4, 0);          /* still running */
	r[0] = rec(1, 1, 1, 1, 1, 1);
	r[1] = rec(10, 10, 1000, 1000, 10, 600);         /* self 600 */
	thr_ovh.sum = 7, thr_ovh.n = 1, thr_ovh.min = 7, thr_ovh.max = 7;
	write_thr(dir, 7, 0, 1, S + 1000000, S + 3000000, r, 2, 10);
	memset(&thr_ovh, 0, sizeof(thr_ovh));           /* none measured */
	write_thr(dir, 7, 0, 2, S + 2000000, S + 2500000, NULL, 0, 0);

	rc = load(dir, &p, err, sizeof(err));
	CHECK(rc == 0, "load threads profile (%s)", rc ? err : "ok");
	if (rc != 0) {
		unload(&p);
		return;
	}
	printf("-- threads\n");
	im = &p.images[0];
	CHECK(!im->hz_from_end && im->tsc_hz == 1000000000.0L, "END < 10 ms: header tsc_hz");
	CHECK_EQ(im->wall_ns, 7000000, "wall_ns from EXIT");
	CHECK_EQ(im->exit_status, 3, "exit_status from EXIT");
	CHECK_EQ(im->nthreads, 3, "threads");
	CHECK_EQ(im->threads[0].wall_ns, 5000000, "running thread ends at END");
	CHECK_EQ(im->threads[1].wall_ns, 2000000, "thread 1 wall");
	CHECK_EQ(im->threads[1].nrecs, 2, "partial trailing record ignored");
	CHECK_EQ(im->threads[1].obj, 1, "thread 1 belongs to its routine's object");
	CHECK_EQ(im->threads[2].obj, 0, "unknown routine object -> executable");
	CHECK(find_call(agg_of(im), "prog", "libbar.so", "wrong") == NULL, "overridden entry gone");
	CHECK(find_call(agg_of(im), "prog", "libc.so.6", "never_called") == NULL,
	      "uncalled entry has no call row");
	check_call(agg_of(im), "prog", "libc.so.6", "puts", 101, 10001, 10001);
	check_call(agg_of(im), "libbar.so", "libc.so.6", "puts", 10, 1000, 600);
	check_call(agg_of(im), "prog", "libbar.so", "bar_fn", 5, 50, 50);
	check_call(agg_of(im), "libbar.so", "libbar.so", "bar_internal", 7, 70, 70);
	CHECK_EQ(im->ovh_sum, 37, "cost figures summed over threads");
	CHECK_EQ(im->ovh_n, 4, "cost measurements counted over threads");
	CHECK_EQ(im->ovh_min, 7, "least cost figure of any thread");
	CHECK_EQ(im->ovh_max, 12, "largest cost figure of any thread");
	CHECK_EQ(agg_of(im)->ncomp, 3, "objects sharing a basename are one component");
	check_comp(agg_of(im), "prog", 5500000, 5500000 - 10051);
	check_comp(agg_of(im), "libbar.so", 2000050, 2000050 - 1000);
	check_comp(agg_of(im), "libc.so.6", 11001, 11001);
	CHECK(sc_agg_component(agg_of(im), "libc.so.6") &&
	      !strcmp(sc_agg_component(agg_of(im), "libc.so.6")->path, "/lib/libc.so.6"),
	      "component path from the first object");
	CHECK_EQ(agg_of(im)->threads_ns, 7500000, "threads time");
	CHECK_EQ(sum_self(agg_of(im)), agg_of(im)->threads_ns, "sum of self == threads time");
	unload(&p);
}

/* Paused time (scaler ctl pause, record --paused) is no thread's: the
 * reader takes the header's paused_ticks off its wall time and paused_p
 * off its attributed time; SC_M_CONTROL records are read past. */
static void test_paused(void)
{
	const char *dir = mkdir_t("paused");
	struct buf b = { 0 };
	struct sc_profile p;
	struct sc_rec r[1];
	struct sc_m_control c = { .what = SC_CTL_LISTEN, .sig = 63 };
	const uint64_t S = 50000;
	const struct sc_image *im;
	char err[512];
	int rc;

	meta_header(&b, 8, 0, SC_TIMING_ALL, S, MONO0, 1000000000ull, 2);
	m_cmdline(&b, "/bin/prog", NULL);
	m_object(&b, 0, "/bin/prog");
	m_object(&b, 1, "/lib/libc.so.6");
	meta_rec(&b, SC_M_CONTROL, &c, sizeof(c), NULL);
	m_entry(&b, 0, 0, 1, "puts");
	c.what = SC_CTL_PAUSE, c.seq = 5, c.tsc = S + 1000000;
	meta_rec(&b, SC_M_CONTROL, &c, sizeof(c), NULL);
	m_thread(&b, 0, 8, UINT32_MAX);
	m_end(&b, S + 20000000, MONO0 + 20000000, 0, SC_END_EXIT);
	write_meta(dir, 8, 0, &b);
	r[0] = rec(10, 10, 1000, 1000, 10, 1000);
	thr_paused_ticks = 4000000;
	thr_paused_p = 4000000;
	write_thr(dir, 8, 0, 0, S, S + 10000000, r, 1, 0);
	thr_paused_ticks = thr_paused_p = 0;

	rc = load(dir, &p, err, sizeof(err));
	CHECK(rc == 0, "load paused profile (%s)", rc ? err : "ok");
	if (rc != 0) {
		unload(&p);
		return;
	}
	printf("-- paused\n");
	im = &p.images[0];
	CHECK_EQ(im->threads[0].wall_ns, 6000000, "paused time off the thread's wall time");
	CHECK_EQ(im->threads[0].paused_ticks, 4000000, "paused ticks read");
	check_call(agg_of(im), "prog", "libc.so.6", "puts", 10, 1000, 1000);
	check_comp(agg_of(im), "prog", 6000000, 6000000 - 1000);
	unload(&p);
}

/* A crafted thread CPU clock: its span over INT64_MAX ns reads as that
 * much (saturated), never as a negative time. */
static void test_cpu_span(void)
{
	const char *dir = mkdir_t("cpuspan");
	struct buf b = { 0 };
	struct sc_profile p;
	struct sc_rec r[1];
	const uint64_t S = 50000;
	char err[512];
	int rc;

	meta_header(&b, 9, 0, SC_TIMING_ALL, S, MONO0, 1000000000ull, 2);
	m_cmdline(&b, "/bin/prog", NULL);
	m_object(&b, 0, "/bin/prog");
	m_object(&b, 1, "/lib/libc.so.6");
	m_entry(&b, 0, 0, 1, "puts");
	m_thread(&b, 0, 9, UINT32_MAX);
	m_end(&b, S + 20000000, MONO0 + 20000000, 0, SC_END_EXIT);
	write_meta(dir, 9, 0, &b);
	r[0] = rec(10, 10, 1000, 1000, 10, 1000);
	thr_cpu_start = 1;
	thr_cpu_end = UINT64_MAX - 1000;
	write_thr(dir, 9, 0, 0, S, S + 10000000, r, 1, 0);
	thr_cpu_start = thr_cpu_end = 0;

	rc = load(dir, &p, err, sizeof(err));
	CHECK(rc == 0, "load cpu-span profile (%s)", rc ? err : "ok");
	if (rc != 0) {
		unload(&p);
		return;
	}
	printf("-- a thread CPU clock over INT64_MAX\n");
	CHECK(p.images[0].threads[0].cpu_ns == INT64_MAX, "CPU time %lld, want INT64_MAX",
	      (long long)p.images[0].threads[0].cpu_ns);
	unload(&p);
}

/* timing none: counts only; no END/EXIT: incomplete, thread end fallback */
static void test_none_incomplete(void)
{
	const char *dir = mkdir_t("none");
	struct buf b = { 0 };
	struct sc_profile p;
	struct sc_rec r[1];
	const struct sc_image *im;
	char err[512];
	int rc;

	meta_header(&b, 9, 0, SC_TIMING_NONE, 100, MONO0, 1000000000ull, 0);
	m_object(&b, 0, "/bin/x");
	m_object(&b, 1, "/lib/libc.so.6");
	m_entry(&b, 0, 0, 1, "__strchr_sse2");
	write_meta(dir, 9, 0, &b);
	r[0] = rec(42, 3, 300, 300, 3, 300);
	write_thr(dir, 9, 0, 0, 100, 0, r, 1, 0);
	write_thr(dir, 9, 0, 1, 200, 300, NULL, 0, 0);
	rc = load(dir, &p, err, sizeof(err));
	CHECK(rc == 0, "load none profile (%s)", rc ? err : "ok");
	if (rc != 0) {
		unload(&p);
		return;
	}
	printf("-- none/incomplete\n");
	im = &p.images[0];
	CHECK(im->incomplete, "no END, no EXIT: incomplete");
	CHECK_EQ(im->exit_status, -1, "exit_status unknown");
	CHECK_EQ(im->wall_ns, 0, "wall_ns unknown");
	CHECK_EQ(im->threads[0].wall_ns, 200, "running thread ends at the largest tsc seen");
	CHECK_EQ(im->nthreads, 2, "thread known only from its .thr file");
	check_call(agg_of(im), "x", "libc.so.6", "strchr", 42, 0, 0);
	CHECK_EQ(p.timing_mode, SC_TIMING_NONE, "timing none");
	unload(&p);
}

/* Killed: no END, but the parent's EXIT bounds the running thread. */
static void test_killed(void)
{
	const char *dir = mkdir_t("killed");
	struct buf b = { 0 };
	struct sc_profile p;
	char err[512];
	int rc;

	meta_header(&b, 11, 0, SC_TIMING_ADAPTIVE, 0, MONO0, 1000000000ull, 0);
	m_object(&b, 0, "/bin/k");
	m_exit(&b, 137, 3000000);
	write_meta(dir, 11, 0, &b);
	write_thr(dir, 11, 0, 0, 1000000, 0, NULL, 0, 0);
	rc = load(dir, &p, err, sizeof(err));
	CHECK(rc == 0, "load killed profile (%s)", rc ? err : "ok");
	if (rc == 0) {
		printf("-- killed\n");
		CHECK_EQ(p.images[0].exit_status, 137, "exit_status from EXIT");
		CHECK(!p.images[0].incomplete, "EXIT makes it complete");
		CHECK_EQ(p.images[0].threads[0].wall_ns, 2000000,
			 "running thread ends at runtime start + EXIT wall");
		check_comp(&model.agg, "k", 2000000, 2000000);
	}
	unload(&p);
}

/* Several images: order by pid then gen, top-level sums by name. */
static void test_images(void)
{
	const char *dir = mkdir_t("images");
	struct buf b = { 0 };
	struct sc_profile p;
	struct sc_rec r[1];
	char err[512];
	int rc;
	uint32_t pids[3] = { 20, 3, 20 }, gens[3] = { 1, 0, 0 };
	int i;

	for (i = 0; i < 3; i++) {
		meta_header(&b, pids[i], gens[i], SC_TIMING_ALL, 0, MONO0, 1000000000ull, 0);
		m_object(&b, 0, gens[i] ? "/bin/b" : "/bin/a");
		m_object(&b, 1, "/lib/libc.so.6");
		m_entry(&b, 0, 0, 1, "write");
		m_exit(&b, 0, 1000);
		write_meta(dir, pids[i], gens[i], &b);
		r[0] = rec(2, 2, 200, 200, 2, 200);
		write_thr(dir, pids[i], gens[i], 0, 0, 1000, r, 1, 0);
	}
	rc = load(dir, &p, err, sizeof(err));
	CHECK(rc == 0, "load images profile (%s)", rc ? err : "ok");
	if (rc != 0) {
		unload(&p);
		return;
	}
	printf("-- images\n");
	CHECK_EQ(p.nimages, 3, "images");
	CHECK(p.nimages == 3 && p.images[0].pid == 3 && p.images[1].pid == 20 &&
	      p.images[1].gen == 0 && p.images[2].gen == 1, "images ordered by pid, gen");
	check_call(&model.agg, "a", "libc.so.6", "write", 4, 400, 400);
	check_call(&model.agg, "b", "libc.so.6", "write", 2, 200, 200);
	check_comp(&model.agg, "libc.so.6", 600, 600);
	check_comp(&model.agg, "a", 2000, 1600);
	CHECK_EQ(sum_self(&model.agg), model.agg.threads_ns, "profile: sum of self == threads time");
	unload(&p);
}

/* ---- JSON -------------------------------------------------------------- */

static void json_expect(const char *in, const char *want)
{
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);

	sc_json_write_string(f, in);
	fclose(f);
	CHECK(strcmp(out, want) == 0, "json string %s", want);
	if (strcmp(out, want))
		printf("     got %s\n", out);
	free(out);
}

static void test_json(void)
{
	struct sc_json j;
	char *out = NULL;
	size_t n = 0;
	FILE *f;

	printf("-- json\n");
	json_expect("plain", "\"plain\"");
	json_expect("q\"b\\s/", "\"q\\\"b\\\\s/\"");
	json_expect("\n\t\r\b\f\x01\x1f", "\"\\n\\t\\r\\b\\f\\u0001\\u001f\"");
	json_expect("\xc2\xb5s \xe2\x86\x92", "\"\xc2\xb5s \xe2\x86\x92\"");   /* µs → */
	json_expect("a\xff" "b", "\"a\\u00ffb\"");
	json_expect("\xc0\xaf", "\"\\u00c0\\u00af\"");                       /* overlong */
	json_expect("\xed\xa0\x80", "\"\\u00ed\\u00a0\\u0080\"");             /* surrogate */
	json_expect("\xe2\x86", "\"\\u00e2\\u0086\"");                        /* cut */

	f = open_memstream(&out, &n);
	sc_json_init(&j, f);
	sc_json_begin_object(&j);
	sc_json_key(&j, "a");
	sc_json_int(&j, -5);
	sc_json_key(&j, "b");
	sc_json_begin_array(&j);
	sc_json_uint(&j, 18446744073709551615ull);
	sc_json_string(&j, "x");
	sc_json_begin_object(&j);
	sc_json_end_object(&j);
	sc_json_begin_array(&j);
	sc_json_end_array(&j);
	sc_json_null(&j);
	sc_json_bool(&j, 1);
	sc_json_end_array(&j);
	sc_json_key(&j, "c");
	sc_json_bool(&j, 0);
	sc_json_end_object(&j);
	fclose(f);
	CHECK(strcmp(out, "{\"a\":-5,\"b\":[18446744073709551615,\"x\",{},[],null,true],"
		      "\"c\":false}") == 0, "json structure: %s", out);
	free(out);
}

int main(void)
{
	const char *t = getenv("TMPDIR");
	char cmd[600];

	snprintf(tmproot, sizeof(tmproot), "%s/scaler-test-profile.XXXXXX", t ? t : "/tmp");
	if (!mkdtemp(tmproot)) {
		perror("mkdtemp");
		return 2;
	}
	test_basic();
	test_fit();
	test_off_fit();
	test_binds();
	test_torn();
	test_fork_parent();
	test_fork_parent_cycle();
	test_fork_parent_shared();
	test_fork_chain_deep();
	test_errors();
	test_versions();
	test_hist_versions();
	test_untrusted();
	test_unload();
	test_huge();
	test_threads();
	test_paused();
	test_cpu_span();
	test_unseen();
	test_unseen_host();
	test_unseen_caller();
	test_nest_excess();
	test_none_incomplete();
	test_killed();
	test_images();
	test_json();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmproot);
	if (system(cmd) != 0)
		printf("note: could not remove %s\n", tmproot);
	return check_summary();
}
