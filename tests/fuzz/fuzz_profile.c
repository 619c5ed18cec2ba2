/*
 * fuzz_profile.c - the profile reader's fuzzer (`make fuzz`; a short round
 * runs in `make check`). Each case takes a seed profile (a recorded one
 * from the corpus directories named on the command line, or one crafted
 * here), mutates it knowing its structure (format.h: header fields,
 * meta records and their types, lengths and payloads, counter records,
 * file sizes and names), writes it into a directory, and runs what
 * `scaler report` runs on it: sc_profile_load, sc_model_build and every
 * writer of report_writers.c's table (into /dev/null) with options drawn
 * at random. It is built with
 * ASan and UBSan; an alarm catches a case that hangs.
 *
 * Every case draws from its own generator, seeded by (--seed, case
 * number), so `--seed S --case N CORPUS...` replays case N alone, and
 * `--keep` leaves its files in the work directory. A self-driving loop,
 * not libFuzzer: it needs nothing but gcc's sanitizers.
 *
 *   fuzz_profile [--cases N] [--first N] [--seconds S] [--seed S] [--case N]
 *                [--work DIR] [--keep] [--pass NAME] [CORPUS_DIR...]
 *
 * runs cases --first to --first + --cases - 1 (several processes share a
 * run's case numbers that way: make fuzz FUZZ_JOBS=N)
 *
 * Prints one summary line (with --pass NAME, a "PASS NAME: ..." line for
 * tests/run.sh); a crash, sanitizer report or hang names the case and
 * seed and exits non-zero.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "format.h"
#include "model.h"
#include "profile.h"
#include "report.h"

#define ALARM_S 10              /* a case over this (seconds) hangs */
#define STR_(x) #x
#define STR(x) STR_(x)
#define MAX_FILES 64
#define MAX_RECS 4096           /* meta records looked at per file */
#define META_HDR sizeof(struct sc_meta_header)

/* ---- the generator -------------------------------------------------------- */

static uint64_t rng_state;

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t rnd(void) { return splitmix(&rng_state); }
static uint64_t below(uint64_t n) { return n ? rnd() % n : 0; }
static int one_in(uint64_t n) { return below(n) == 0; }

/* A value a field is likely to mishandle. */
static uint64_t interesting(void)
{
	static const uint64_t v[] = {
		0, 1, 2, 3, 7, 8, 16, 127, 128, 255, 256, 4096, 65535, 65536,
		0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff, 0x100000000ull,
		0x7fffffffffffffffull, 0x8000000000000000ull, 0xfffffffffffffffeull,
		0xffffffffffffffffull, 1000000000ull, 0x10000000000ull,
	};

	switch (below(4)) {
	case 0: return rnd();
	case 1: return below(64);
	default: return v[below(sizeof(v) / sizeof(v[0]))];
	}
}

/* ---- profiles in memory --------------------------------------------------- */

enum kind { F_REG, F_FIFO, F_LINK, F_DIR };

struct file {
	char name[64];
	unsigned char *b;
	size_t n;
	uint64_t sparse;        /* size to extend to with a hole, 0: none */
	enum kind kind;
};

struct prof {
	char from[256];
	size_t n;
	struct file f[MAX_FILES];
};

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fputs("fuzz: out of memory\n", stderr);
		exit(2);
	}
	return p;
}

static void set_bytes(struct file *f, const void *b, size_t n)
{
	f->b = xmalloc(n);
	memcpy(f->b, b, n);
	f->n = n;
}

static void prof_copy(struct prof *dst, const struct prof *src)
{
	size_t i;

	*dst = *src;
	for (i = 0; i < src->n; i++)
		set_bytes(&dst->f[i], src->f[i].b, src->f[i].n);
}

static void prof_free(struct prof *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		free(p->f[i].b);
	p->n = 0;
}

static int is_meta(const struct file *f)
{
	size_t l = strlen(f->name);

	return l > 5 && !strcmp(f->name + l - 5, ".meta");
}

/* Insert n bytes at off (b NULL: zeros), or remove -n bytes there. */
static void buf_splice(struct file *f, size_t off, const void *b, long n)
{
	if (off > f->n)
		off = f->n;
	if (n >= 0) {
		unsigned char *nb = xmalloc(f->n + (size_t)n);

		if (off)
			memcpy(nb, f->b, off);
		if (b && n)
			memcpy(nb + off, b, (size_t)n);
		else
			memset(nb + off, 0, (size_t)n);
		if (f->n > off)
			memcpy(nb + off + n, f->b + off, f->n - off);
		free(f->b);
		f->b = nb;
		f->n += (size_t)n;
	} else {
		size_t k = (size_t)-n;

		if (k > f->n - off)
			k = f->n - off;
		memmove(f->b + off, f->b + off + k, f->n - off - k);
		f->n -= k;
	}
}

/* ---- seeds ------------------------------------------------------------------ */

/* A recorded profile directory: its .meta and .thr files, each .thr cut
 * after its last record that is not all zeros (the rest is the runtime's
 * reserve, and a hole to the reader). */
static int load_seed(const char *dir, struct prof *p)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[1024];

	memset(p, 0, sizeof(*p));
	snprintf(p->from, sizeof(p->from), "%s", dir);
	if (!d)
		return -1;
	while ((e = readdir(d)) && p->n < MAX_FILES) {
		struct file *f = &p->f[p->n];
		FILE *in;
		long n;

		if (e->d_name[0] != 'p' || strlen(e->d_name) >= sizeof(f->name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		in = fopen(path, "rb");
		if (!in)
			continue;
		fseek(in, 0, SEEK_END);
		n = ftell(in);
		rewind(in);
		if (n < 0 || n > (64l << 20)) {
			fclose(in);
			continue;
		}
		f->b = xmalloc((size_t)n);
		f->n = fread(f->b, 1, (size_t)n, in);
		fclose(in);
		snprintf(f->name, sizeof(f->name), "%s", e->d_name);
		if (!is_meta(f) && f->n > SC_THR_HEADER_SIZE) {
			size_t rs = sizeof(struct sc_rec), end = f->n;

			while (end >= SC_THR_HEADER_SIZE + rs) {
				size_t k;

				for (k = end - rs; k < end && !f->b[k]; k++)
					;
				if (k < end)
					break;
				end -= rs;
			}
			f->n = end;
		}
		p->n++;
	}
	closedir(d);
	return p->n ? 0 : -1;
}

static void put(struct file *f, const void *b, size_t n)
{
	buf_splice(f, f->n, b, (long)n);
}

static void rec_out(struct file *f, uint32_t type, const void *fixed, size_t flen,
		    const char *str, size_t slen)
{
	struct sc_meta_rec r = { type, (uint32_t)(flen + slen) };
	static const char zeros[8];

	put(f, &r, sizeof(r));
	put(f, fixed, flen);
	put(f, str, slen);
	put(f, zeros, (8 - r.len % 8) % 8);
}

/* A profile crafted here: two images (one exec'd into another), objects
 * with one unloaded, imports bound in an order of their own, Wait and
 * may-block entries, threads with and without .thr files and counters of
 * every kind. */
static void craft_seed(struct prof *p)
{
	uint32_t gen;

	memset(p, 0, sizeof(*p));
	snprintf(p->from, sizeof(p->from), "(crafted)");
	for (gen = 0; gen < 2; gen++) {
		struct file *m = &p->f[p->n++];
		struct sc_meta_header h;
		struct sc_m_object o;
		struct sc_m_entry en;
		struct sc_m_bind bd;
		struct sc_m_thread th;
		struct sc_m_end end = { 3000000000ull, 1000000000ull + 1500000000ull, 0,
					gen ? SC_END_EXIT : SC_END_EXEC, 1000000 };
		struct sc_m_exit ex = { 0, 0, 1600000000ull };
		static const char *const libs[] = { "/bin/app", "/lib/libc.so.6", "/lib/libm.so.6",
						     "/opt/lib<&\"x\">.so" };
		static const char *const apis[] = { "strlen@GLIBC_2.2.5", "pthread_cond_wait",
						     "read", "_ZN3fooC1Ev", "sin", "\xff\xfe bad" };
		uint32_t i, seq;

		memset(&h, 0, sizeof(h));
		memcpy(h.magic, SC_META_MAGIC, 8);
		h.version = SC_FORMAT_VERSION;
		h.header_size = sizeof(h);
		h.pid = 1000;
		h.ppid = 1;
		h.gen = gen;
		h.timing_mode = gen ? SC_TIMING_ALL : SC_TIMING_ADAPTIVE;
		h.start_tsc = 1000000000ull;
		h.start_mono_ns = 1000000000ull;
		h.tsc_hz = 2000000000ull;
		h.overhead_ticks = 20;
		snprintf(m->name, sizeof(m->name), "p1000-%u.meta", gen);
		put(m, &h, sizeof(h));
		rec_out(m, SC_M_CMDLINE, "./app\0--flag\0", 13, NULL, 0);
		for (i = 0; i < 4; i++) {
			o.id = i;
			o.flags = i ? (i == 3 ? SC_OBJ_DLOPEN : 0) : SC_OBJ_MAIN;
			o.base = 0x400000ull * i;
			rec_out(m, SC_M_OBJECT, &o, sizeof(o), libs[i], strlen(libs[i]) + 1);
		}
		o.id = 3;
		rec_out(m, SC_M_UNLOAD, &o, sizeof(o), NULL, 0);
		for (i = 0; i < 6; i++) {
			en.idx = 10 + i;
			en.caller = i % 2 ? 3 : 0;
			en.callee = 1 + i % 2;
			en.flags = SC_ENT_PLT | (i == 1 ? SC_ENT_WAIT : 0) | (i == 2 ? SC_ENT_MAYBLOCK : 0);
			rec_out(m, SC_M_ENTRY, &en, sizeof(en), apis[i], strlen(apis[i]) + 1);
			bd.import = 10 + i;
			bd.idx = 5 - i;
			bd.flags = en.flags;
			bd.reserved = 0;
			rec_out(m, SC_M_BIND, &bd, sizeof(bd), NULL, 0);
		}
		for (seq = 0; seq < 3; seq++) {
			memset(&th, 0, sizeof(th));
			th.seq = seq;
			th.tid = 1000 + seq;
			th.start_routine = seq ? 0x401000 : 0;
			th.routine_obj = seq ? seq % 2 : UINT32_MAX;
			rec_out(m, SC_M_THREAD, &th, sizeof(th), "worker\0\0\0stage_fn", 18);
		}
		rec_out(m, SC_M_END, &end, sizeof(end), NULL, 0);
		if (gen)
			rec_out(m, SC_M_EXIT, &ex, sizeof(ex), NULL, 0);
		for (seq = 0; seq < 2; seq++) {
			struct file *t = &p->f[p->n++];
			struct sc_thr_header th2;
			unsigned char hb[SC_THR_HEADER_SIZE] = { 0 };

			memset(&th2, 0, sizeof(th2));
			memcpy(th2.magic, SC_THR_MAGIC, 8);
			th2.version = SC_FORMAT_VERSION;
			th2.seq = seq;
			th2.tid = 1000 + seq;
			th2.rec_size = sizeof(struct sc_rec);
			th2.start_tsc = 1000000000ull + seq;
			th2.end_tsc = seq ? 2000000000ull : 0;
			snprintf(th2.name, sizeof(th2.name), "app");
			th2.last_tsc = 1900000000ull;
			th2.start_p = 10;
			th2.end_p = seq ? 500000 : 0;
			th2.block_ticks = 20000;
			th2.ovh_sum = 300;
			th2.ovh_n = 20;
			th2.ovh_min = 10;
			th2.ovh_max = 20;
			memcpy(hb, &th2, sizeof(th2));
			snprintf(t->name, sizeof(t->name), "p1000-%u-t%u.thr", gen, seq);
			put(t, hb, sizeof(hb));
			for (i = 0; i < 6; i++) {
				struct sc_rec r;
				int b;

				memset(&r, 0, sizeof(r));
				r.count = 1000 * (i + 1);
				r.timed = 100;
				r.ticks = 5000 * (i + 1);
				r.period = 7;
				r.wticks = r.ticks * 8;
				r.wcount = 800;
				r.self_ticks = i == 3 ? (uint64_t)-500 : r.ticks / 2;
				r.max_ticks = 900;
				r.wpticks = r.wticks / 2;
				r.wblock = i == 2 ? r.wticks / 3 : 0;
				r.span = 5;
				for (b = 0; b < SC_REC_HIST; b += 3)
					r.hist[b] = (uint32_t)(b * 10 + i);
				put(t, &r, sizeof(r));
			}
		}
	}
	/* a fork child of the first image, to the middle of its records
	 * (format.h, SC_M_PARENT), and its thread */
	{
		struct file *m = &p->f[p->n++], *t = &p->f[p->n++];
		struct sc_meta_header h;
		struct sc_m_parent ref = { 1000, 0, p->f[0].n / 2 };
		struct sc_m_thread th;
		struct sc_thr_header th2;
		unsigned char hb[SC_THR_HEADER_SIZE] = { 0 };

		memcpy(&h, p->f[0].b, sizeof(h));
		h.pid = 1001;
		h.ppid = 1000;
		snprintf(m->name, sizeof(m->name), "p1001-0.meta");
		put(m, &h, sizeof(h));
		rec_out(m, SC_M_PARENT, &ref, sizeof(ref), NULL, 0);
		memset(&th, 0, sizeof(th));
		th.tid = 1001;
		th.routine_obj = UINT32_MAX;
		rec_out(m, SC_M_THREAD, &th, sizeof(th), "child", 6);
		memset(&th2, 0, sizeof(th2));
		memcpy(th2.magic, SC_THR_MAGIC, 8);
		th2.version = SC_FORMAT_VERSION;
		th2.tid = 1001;
		th2.rec_size = sizeof(struct sc_rec);
		th2.start_tsc = 1000000000ull;
		th2.end_tsc = 1500000000ull;
		memcpy(hb, &th2, sizeof(th2));
		snprintf(t->name, sizeof(t->name), "p1001-0-t0.thr");
		put(t, hb, sizeof(hb));
		for (int i = 0; i < 3; i++) {
			struct sc_rec r;

			memset(&r, 0, sizeof(r));
			r.count = r.timed = r.wcount = 10;
			r.period = 1;
			r.ticks = r.wticks = r.self_ticks = 1000;
			put(t, &r, sizeof(r));
		}
	}
}

/* ---- mutations -------------------------------------------------------------- */

/* Bytes of the meta record at b: header, payload and padding. */
static size_t rec_span(const unsigned char *b)
{
	struct sc_meta_rec r;

	memcpy(&r, b, sizeof(r));
	return sizeof(r) + (((size_t)r.len + 7) & ~(size_t)7);
}

/* Insert a copy of the meta record at g's offset from into f at `at`. */
static void copy_record(struct file *f, size_t at, const struct file *g, size_t from)
{
	size_t len = rec_span(g->b + from);
	unsigned char *copy = xmalloc(len);

	memcpy(copy, g->b + from, len);
	buf_splice(f, at, copy, (long)len);
	free(copy);
}

/* Offsets of the meta records of f that lie whole in it (up to max). */
static size_t meta_records(const struct file *f, size_t *off, size_t max)
{
	size_t o = META_HDR, n = 0;

	while (n < max && o + sizeof(struct sc_meta_rec) <= f->n) {
		size_t next = o + rec_span(f->b + o);

		if (next > f->n)
			break;
		off[n++] = o;
		o = next;
	}
	return n;
}

/* Store the low `width` bytes of v at off, if they fit. */
static void poke(struct file *f, size_t off, size_t width, uint64_t v)
{
	if (off + width <= f->n)
		memcpy(f->b + off, &v, width);
}

static struct file *pick_file(struct prof *p, int want_meta)
{
	size_t i, n = 0, idx[MAX_FILES];

	for (i = 0; i < p->n; i++)
		if (p->f[i].kind == F_REG && (want_meta < 0 || is_meta(&p->f[i]) == want_meta))
			idx[n++] = i;
	return n ? &p->f[idx[below(n)]] : NULL;
}

/* A new meta record of a random type with a payload made for it. */
static void add_record(struct file *f, size_t at)
{
	unsigned char pl[96];
	struct sc_meta_rec r;
	size_t len, i;
	static const char zeros[8];

	for (i = 0; i < sizeof(pl); i++)
		pl[i] = (unsigned char)(one_in(3) ? rnd() : 0);
	r.type = (uint32_t)(one_in(8) ? interesting() : 1 + below(SC_M_PARENT));
	switch (r.type) {
	case SC_M_PARENT: {     /* another image's file, to some length */
		struct sc_m_parent ref = { (uint32_t)(one_in(4) ? interesting() : 1000 + below(2)),
					   (uint32_t)below(3),
					   one_in(3) ? interesting() : below(4096) };

		memcpy(pl, &ref, sizeof(ref));
		len = sizeof(ref);
		break;
	}
	case SC_M_BIND: {
		struct sc_m_bind b = { (uint32_t)(one_in(2) ? below(32) : interesting()),
				       (uint32_t)(one_in(2) ? below(64) : one_in(2) ? 0xfffffffeu - (uint32_t)below(4)
								: interesting()),
				       (uint32_t)rnd(), 0 };

		memcpy(pl, &b, sizeof(b));
		len = sizeof(b);
		break;
	}
	case SC_M_ENTRY: {
		struct sc_m_entry e = { (uint32_t)(one_in(2) ? below(32) : interesting()),
					(uint32_t)below(6), (uint32_t)below(6), (uint32_t)rnd() };

		memcpy(pl, &e, sizeof(e));
		len = sizeof(e) + below(40);
		break;
	}
	case SC_M_OBJECT: case SC_M_UNLOAD: {
		struct sc_m_object o = { (uint32_t)(one_in(2) ? below(8) : interesting()),
					 (uint32_t)below(4), rnd() };

		memcpy(pl, &o, sizeof(o));
		len = sizeof(o) + below(40);
		break;
	}
	default:
		len = below(sizeof(pl) + 1);
		break;
	}
	r.len = (uint32_t)len;
	if (at > f->n)
		at = f->n;
	buf_splice(f, at, zeros, (long)((8 - len % 8) % 8));
	buf_splice(f, at, pl, (long)len);
	buf_splice(f, at, &r, sizeof(r));
}

static void mutate_meta(struct prof *p, struct file *f)
{
	size_t off[MAX_RECS], n = meta_records(f, off, MAX_RECS), k = n ? below(n) : 0;
	static const size_t hdr_fields[][2] = {
		{ offsetof(struct sc_meta_header, version), 4 },
		{ offsetof(struct sc_meta_header, header_size), 4 },
		{ offsetof(struct sc_meta_header, pid), 4 },
		{ offsetof(struct sc_meta_header, ppid), 4 },
		{ offsetof(struct sc_meta_header, gen), 4 },
		{ offsetof(struct sc_meta_header, timing_mode), 4 },
		{ offsetof(struct sc_meta_header, start_tsc), 8 },
		{ offsetof(struct sc_meta_header, start_mono_ns), 8 },
		{ offsetof(struct sc_meta_header, start_real_ns), 8 },
		{ offsetof(struct sc_meta_header, tsc_hz), 8 },
		{ offsetof(struct sc_meta_header, overhead_ticks), 8 },
	};
	struct sc_meta_rec r;

	switch (below(12)) {
	case 0: {               /* a header field */
		size_t h = below(sizeof(hdr_fields) / sizeof(hdr_fields[0]));

		poke(f, hdr_fields[h][0], hdr_fields[h][1],
		     h == 0 ? (one_in(2) ? SC_FORMAT_MIN_VERSION + below(3) - 1 : interesting())
			    : interesting());
		break;
	}
	case 1:                 /* a record's type */
		if (n)
			poke(f, off[k], 4, one_in(2) ? 1 + below(SC_M_PARENT) : interesting());
		break;
	case 2:                 /* a record's length */
		if (n) {
			memcpy(&r, f->b + off[k], sizeof(r));
			poke(f, off[k] + 4, 4, one_in(2) ? r.len + below(17) - 8 : interesting());
		}
		break;
	case 3: case 4: {       /* a field of a record's payload */
		if (n) {
			size_t w = one_in(2) ? 4 : 8;

			memcpy(&r, f->b + off[k], sizeof(r));
			poke(f, off[k] + sizeof(r) + below(r.len / w + 1) * w, w, interesting());
		}
		break;
	}
	case 5:                 /* duplicate a record, here or at the end */
		if (n)
			copy_record(f, one_in(2) ? f->n : off[below(n)], f, off[k]);
		break;
	case 6:                 /* drop a record */
		if (n)
			buf_splice(f, off[k], NULL, -(long)rec_span(f->b + off[k]));
		break;
	case 7: case 8:         /* a new record */
		add_record(f, one_in(2) || !n ? f->n : off[k]);
		break;
	case 9:                 /* a string without its NUL, or with odd bytes */
		if (n) {
			size_t i;

			memcpy(&r, f->b + off[k], sizeof(r));
			for (i = 0; i < r.len && i < 64; i++)
				if (one_in(3))
					f->b[off[k] + sizeof(r) + i] = (unsigned char)(one_in(2) ? 0xff - below(0x60)
										      : below(0x20) + 1);
		}
		break;
	case 10: {              /* a record from another file of the profile */
		struct file *g = pick_file(p, 1);
		size_t goff[MAX_RECS], gn = g ? meta_records(g, goff, MAX_RECS) : 0;

		if (gn)
			copy_record(f, n ? off[k] : f->n, g, goff[below(gn)]);
		break;
	}
	default:                /* move a record to the end */
		if (n > 1) {
			copy_record(f, f->n, f, off[k]);
			buf_splice(f, off[k], NULL, -(long)rec_span(f->b + off[k]));
		}
		break;
	}
}

static void mutate_thr(struct file *f)
{
	static const size_t hdr_fields[][2] = {
		{ offsetof(struct sc_thr_header, version), 4 },
		{ offsetof(struct sc_thr_header, seq), 4 },
		{ offsetof(struct sc_thr_header, tid), 4 },
		{ offsetof(struct sc_thr_header, rec_size), 4 },
		{ offsetof(struct sc_thr_header, start_tsc), 8 },
		{ offsetof(struct sc_thr_header, end_tsc), 8 },
		{ offsetof(struct sc_thr_header, name), 8 },
		{ offsetof(struct sc_thr_header, last_tsc), 8 },
		{ offsetof(struct sc_thr_header, start_p), 8 },
		{ offsetof(struct sc_thr_header, end_p), 8 },
		{ offsetof(struct sc_thr_header, block_ticks), 8 },
		{ offsetof(struct sc_thr_header, ovh_sum), 8 },
		{ offsetof(struct sc_thr_header, ovh_n), 4 },
		{ offsetof(struct sc_thr_header, ovh_min), 4 },
		{ offsetof(struct sc_thr_header, ovh_max), 4 },
		{ offsetof(struct sc_thr_header, perf_kind), 1 },
		{ offsetof(struct sc_thr_header, perf_lost), 2 },
	};
	static const size_t rec_fields[][2] = {
		{ offsetof(struct sc_rec, count), 8 }, { offsetof(struct sc_rec, timed), 8 },
		{ offsetof(struct sc_rec, ticks), 8 }, { offsetof(struct sc_rec, countdown), 4 },
		{ offsetof(struct sc_rec, period), 4 }, { offsetof(struct sc_rec, wticks), 8 },
		{ offsetof(struct sc_rec, wcount), 8 }, { offsetof(struct sc_rec, self_ticks), 8 },
		{ offsetof(struct sc_rec, max_ticks), 8 }, { offsetof(struct sc_rec, wpticks), 8 },
		{ offsetof(struct sc_rec, wblock), 8 }, { offsetof(struct sc_rec, span), 4 },
		{ offsetof(struct sc_rec, wblocked), 8 }, { offsetof(struct sc_rec, wpreempt), 8 },
		{ offsetof(struct sc_rec, wkernel), 8 },
		{ offsetof(struct sc_rec, hist), 4 }, { offsetof(struct sc_rec, hist) + 60, 4 },
		{ offsetof(struct sc_rec, hist) + 4 * (SC_REC_HIST - 1), 4 },
	};
	size_t rs = sizeof(struct sc_rec);
	size_t nrec = f->n > SC_THR_HEADER_SIZE ? (f->n - SC_THR_HEADER_SIZE) / rs : 0;

	switch (below(6)) {
	case 0: {               /* a header field */
		size_t h = below(sizeof(hdr_fields) / sizeof(hdr_fields[0]));

		poke(f, hdr_fields[h][0], hdr_fields[h][1],
		     h == 0 ? (one_in(2) ? SC_FORMAT_MIN_VERSION + below(3) - 1 : interesting())
		     : h == 3 && one_in(2) ? rs + below(3) * 8 - 8 : interesting());
		break;
	}
	case 1: case 2: case 3: {   /* a counter field, several records */
		size_t k, times = 1 + below(4);

		if (!nrec)
			break;
		for (k = 0; k < times; k++) {
			size_t x = below(sizeof(rec_fields) / sizeof(rec_fields[0]));

			poke(f, SC_THR_HEADER_SIZE + below(nrec) * rs + rec_fields[x][0],
			     rec_fields[x][1], interesting());
		}
		break;
	}
	case 4: {               /* more records: copies, or random bytes */
		size_t k, more = 1 + below(8);

		for (k = 0; k < more; k++) {
			unsigned char r[sizeof(struct sc_rec)];
			size_t i;

			if (nrec && one_in(2))
				memcpy(r, f->b + SC_THR_HEADER_SIZE + below(nrec) * rs, rs);
			else
				for (i = 0; i < rs; i++)
					r[i] = (unsigned char)(one_in(4) ? rnd() : 0);
			put(f, r, rs);
		}
		break;
	}
	default:                /* drop a record (the ones after move up) */
		if (nrec)
			buf_splice(f, SC_THR_HEADER_SIZE + below(nrec) * rs, NULL, -(long)rs);
		break;
	}
}

/* Whole-file mutations: bytes, size, name, kind. */
static void mutate_file(struct prof *p)
{
	struct file *f = pick_file(p, -1);
	uint32_t pid, gen, seq;

	if (!f)
		return;
	switch (below(10)) {
	case 0: case 1: {       /* flip bits */
		size_t k, times = 1 + below(8);

		for (k = 0; k < times && f->n; k++)
			f->b[below(f->n)] ^= (unsigned char)(1u << below(8));
		break;
	}
	case 2:                 /* overwrite a few bytes */
		if (f->n)
			poke(f, below(f->n), 1 + below(8), interesting());
		break;
	case 3: {               /* truncate, often near a boundary */
		size_t at = below(f->n + 1);

		if (one_in(2) && f->n > 16)
			at = (at & ~(size_t)7) + below(3);
		if (at < f->n)
			f->n = at;
		break;
	}
	case 4:                 /* grow with a hole */
		if (is_meta(f))
			f->sparse = one_in(16) ? (3ull << 30) : f->n + below(1 << 20);
		else
			f->sparse = one_in(4) ? (1ull << 40) - below(4) * 128
				  : f->n + below(64) * sizeof(struct sc_rec) + below(256);
		break;
	case 5:                 /* another name: pid, gen or thread number */
		if (sscanf(f->name, "p%u-%u-t%u.thr", &pid, &gen, &seq) == 3)
			snprintf(f->name, sizeof(f->name), "p%u-%u-t%u.thr", pid, gen,
				 one_in(2) ? seq + 1 + (uint32_t)below(3) : (uint32_t)interesting());
		else if (sscanf(f->name, "p%u-%u.meta", &pid, &gen) == 2)
			snprintf(f->name, sizeof(f->name), "p%u-%u.meta", pid,
				 gen + 1 + (uint32_t)below(2));
		break;
	case 6:                 /* a copy under another name */
		if (p->n < MAX_FILES) {
			struct file *g = &p->f[p->n++];

			*g = *f;
			set_bytes(g, f->b, f->n);
			if (sscanf(g->name, "p%u-%u-t%u.thr", &pid, &gen, &seq) == 3)
				snprintf(g->name, sizeof(g->name), "p%u-%u-t%u.thr", pid, gen, seq + 7);
			else if (sscanf(g->name, "p%u-%u.meta", &pid, &gen) == 2)
				snprintf(g->name, sizeof(g->name), "p%u-%u.meta", pid + 1, gen);
		}
		break;
	case 7:                 /* gone */
		if (p->n > 1) {
			free(f->b);
			*f = p->f[--p->n];
		}
		break;
	case 8:                 /* empty, or a header alone */
		f->n = one_in(2) ? 0 : f->n < SC_THR_HEADER_SIZE ? f->n : is_meta(f) ? META_HDR
			: SC_THR_HEADER_SIZE;
		break;
	default:                /* not a regular file */
		if (one_in(8))
			f->kind = (enum kind)(1 + below(3));
		break;
	}
}

static void mutate(struct prof *p)
{
	size_t k, times = 1 + below(4);

	for (k = 0; k < times; k++) {
		struct file *f;

		switch (below(6)) {
		case 0: case 1: case 2:
			if ((f = pick_file(p, 1)))
				mutate_meta(p, f);
			break;
		case 3: case 4:
			if ((f = pick_file(p, 0)))
				mutate_thr(f);
			break;
		default:
			mutate_file(p);
			break;
		}
	}
}

/* ---- one case --------------------------------------------------------------- */

static const char *work;
static uint64_t cur_case, run_seed;
static int in_case;

static void empty_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[1024];

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (unlink(path) < 0)
			rmdir(path);            /* a directory planted by a case */
	}
	closedir(d);
}

static void write_case(const struct prof *p)
{
	size_t i;
	char path[1024];

	empty_dir(work);
	for (i = 0; i < p->n; i++) {
		const struct file *f = &p->f[i];
		int fd;

		snprintf(path, sizeof(path), "%s/%s", work, f->name);
		switch (f->kind) {
		case F_FIFO: mkfifo(path, 0600); continue;
		case F_LINK: if (symlink("/dev/zero", path)) {} continue;
		case F_DIR: mkdir(path, 0700); continue;
		default: break;
		}
		/* not through a fifo, link or directory made under the same
		 * name earlier in this case (a fifo would block) */
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
			  0600);
		if (fd < 0)
			continue;           /* a name given twice: the first stays */
		if (f->n && write(fd, f->b, f->n) != (ssize_t)f->n)
			fprintf(stderr, "fuzz: short write of %s\n", path);
		if (f->sparse > f->n && ftruncate(fd, (off_t)f->sparse) < 0)
			fprintf(stderr, "fuzz: cannot grow %s: %s\n", path, strerror(errno));
		close(fd);
	}
}

struct stats { uint64_t loaded, refused, skipped, calls; };

/* What `scaler report` does with the directory: load, model, and every
 * writer with options drawn at random. */
static void read_case(FILE *devnull, struct stats *st)
{
	struct sc_profile p;
	struct sc_model m;
	char err[1024];
	size_t w, nw;

	if (sc_profile_load(work, &p, err, sizeof(err)) < 0) {
		st->refused++;
		sc_profile_free(&p);
		return;
	}
	st->loaded++;
	st->skipped += p.nskipped_files;
	sc_model_build(&m, &p);
	st->calls += m.agg.ncalls;
	/* two formats of report_writers.c's table, drawn: writing all of
	 * them took most of a case's time, and over a run each still writes
	 * some hundred thousand */
	for (nw = 0; report_writer_choice(nw, NULL); nw++)
		;
	for (w = 0; w < 2 && nw; w++) {
		const struct report_writer *wr = report_writer(report_writer_choice(below(nw), NULL));
		struct report r;

		memset(&r, 0, sizeof(r));
		r.out = devnull;
		r.p = &p;
		r.model = &m;
		r.agg = &m.agg;
		if (p.nimages && one_in(3)) {
			r.only = &p.images[below(p.nimages)];
			r.agg = sc_model_image(&m, r.only);
		}
		if (r.agg->ncomp && one_in(3))
			r.component = r.agg->comp[below(r.agg->ncomp)].name;
		r.sort = (enum report_sort)below(SORT_ATTR + 1);
		r.min_percent = one_in(2) ? 0 : (double)below(101);
		r.threads = (int)below(2);
		r.weight = (enum report_weight)below(2);
		r.color = (int)below(2);
		r.timed = p.timing_mode != SC_TIMING_NONE;
		report_select(&r);
		wr->write(&r);
		report_release(&r);
	}
	sc_model_free(&m);
	sc_profile_free(&p);
}

static void say_case(const char *what)
{
	char b[512];
	int n = snprintf(b, sizeof(b), "fuzz: %s in case %" PRIu64 " of seed %" PRIu64
			 " (replay: --seed %" PRIu64 " --case %" PRIu64 " --keep, same corpus;"
			 " its files: %s)\n", what, cur_case, run_seed, run_seed, cur_case, work);

	if (n > 0 && write(2, b, (size_t)n < sizeof(b) ? (size_t)n : sizeof(b) - 1) < 0)
		_exit(4);
}

static void on_alarm(int sig)
{
	(void)sig;
	say_case("a hang (over " STR(ALARM_S) " s)");
	_exit(3);
}

static void on_exit_in_case(void)
{
	if (in_case)
		say_case("exit()");
}

/* A sanitizer's report ends in abort() (abort_on_error), as does a
 * crash it catches: name the case, then die of the signal. */
static void on_abort(int sig)
{
	say_case("a sanitizer report or crash");
	signal(sig, SIG_DFL);
	raise(sig);
}

/* The sanitizers' settings, unless the environment says otherwise: abort
 * on the first report (on_abort names the case); a smaller quarantine and
 * shorter allocation stacks, for speed (use-after-free is still caught
 * within the 64 MB of frees that stay quarantined). */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "abort_on_error=1:quarantine_size_mb=64:malloc_context_size=8";
}

const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void)
{
	return "abort_on_error=1:print_stacktrace=1";
}

/* ---- main ------------------------------------------------------------------- */

int main(int argc, char **argv)
{
	uint64_t cases = 100000, first = 0, only = UINT64_MAX, n;
	double seconds = 0;
	const char *pass = NULL;
	int keep = 0, i;
	struct prof *seeds;
	size_t nseeds = 0;
	char workbuf[512];
	struct timespec t0, t1;
	struct stats st = { 0 };
	FILE *devnull = fopen("/dev/null", "w");

	run_seed = (uint64_t)time(NULL);
	work = NULL;
	seeds = xmalloc(sizeof(*seeds) * (size_t)(argc + 1));
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--cases") && i + 1 < argc)
			cases = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--first") && i + 1 < argc)
			first = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = strtod(argv[++i], NULL);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			run_seed = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--case") && i + 1 < argc)
			only = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--work") && i + 1 < argc)
			work = argv[++i];
		else if (!strcmp(argv[i], "--pass") && i + 1 < argc)
			pass = argv[++i];
		else if (!strcmp(argv[i], "--keep"))
			keep = 1;
		else if (argv[i][0] == '-') {
			fprintf(stderr, "usage: fuzz_profile [--cases N] [--first N] [--seconds S] [--seed S] "
				"[--case N] [--work DIR] [--keep] [--pass NAME] [CORPUS_DIR...]\n");
			return 2;
		} else if (load_seed(argv[i], &seeds[nseeds]) == 0)
			nseeds++;
		else
			fprintf(stderr, "fuzz: %s: no profile files, not used\n", argv[i]);
	}
	craft_seed(&seeds[nseeds++]);
	if (!devnull) {
		perror("/dev/null");
		return 2;
	}
	if (!work) {
		const char *t = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");

		snprintf(workbuf, sizeof(workbuf), "%s/scaler-fuzz.XXXXXX", t ? t : "/tmp");
		if (!mkdtemp(workbuf)) {
			perror(workbuf);
			return 2;
		}
		work = workbuf;
	} else if (mkdir(work, 0700) < 0 && errno != EEXIST) {
		perror(work);
		return 2;
	}
	signal(SIGALRM, on_alarm);
	atexit(on_exit_in_case);
	signal(SIGABRT, on_abort);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (n = 0; only != UINT64_MAX ? n < 1 : n < cases; n++) {
		struct prof c;
		uint64_t s;

		cur_case = only != UINT64_MAX ? only : first + n;
		s = run_seed ^ (cur_case * 0xd1342543de82ef95ull);
		rng_state = splitmix(&s);
		prof_copy(&c, &seeds[below(nseeds)]);
		mutate(&c);
		write_case(&c);
		prof_free(&c);
		in_case = 1;
		alarm(ALARM_S);
		read_case(devnull, &st);
		alarm(0);
		in_case = 0;
		if (!pass && n % 100000 == 99999)
			fprintf(stderr, "fuzz: %" PRIu64 " cases\n", n + 1);
		if (seconds > 0 && (n & 63) == 63) {
			clock_gettime(CLOCK_MONOTONIC, &t1);
			if ((double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9 >= seconds) {
				n++;
				break;
			}
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (!keep) {
		empty_dir(work);
		rmdir(work);
	}
	printf("%s%s%s%" PRIu64 " cases (from %" PRIu64 ") in %.1f s (seed %" PRIu64 ", %zu seed profiles): no crash, "
	       "hang or sanitizer report; %" PRIu64 " loaded (%" PRIu64 " files skipped, %" PRIu64
	       " call rows), %" PRIu64 " refused\n",
	       pass ? "PASS " : "fuzz: ", pass ? pass : "", pass ? ": " : "", n,
	       only != UINT64_MAX ? only : first,
	       (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9, run_seed, nseeds,
	       st.loaded, st.skipped, st.calls, st.refused);
	for (i = 0; (size_t)i < nseeds; i++)
		prof_free(&seeds[i]);
	free(seeds);
	fclose(devnull);
	return 0;
}
