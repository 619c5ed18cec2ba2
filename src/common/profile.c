/*
 * profile.c - the reader side of format.h: loads every process image of a
 * profile directory and derives per-image and whole-profile aggregates
 * (components, calls) for `scaler report`.
 *
 * Reading order per image: the .meta stream first (objects, shadow
 * entries, threads, end/exit), then each .thr counter file, whose records
 * are folded straight into the image's entries so that only one counter
 * file is in memory at a time. Later meta records of the same kind and key
 * override earlier ones, as format.h promises.
 *
 * Out of memory is fatal (message and exit(1)): this runs in the CLI only.
 */
#include "profile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "names.h"

/* ---- memory ----------------------------------------------------------- */

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q) {
		fputs("scaler: out of memory\n", stderr);
		exit(1);
	}
	return q;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p) {
		fputs("scaler: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

/* Grow arr (element size `size`) so that index `need - 1` fits. */
static void *grow(void *arr, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap;

	if (need <= c)
		return arr;
	c = c ? c : 8;
	while (c < need)
		c *= 2;
	*cap = c;
	return xrealloc(arr, c * size);
}

/* Strings are carved out of blocks chained from sc_profile.strings_. */
struct strblock {
	struct strblock *next;
	size_t used, size;
	char data[];
};

static const char *pool_strndup(struct sc_profile *p, const char *s, size_t n)
{
	struct strblock *b = p->strings_;
	char *r;

	if (!b || b->size - b->used < n + 1) {
		size_t size = n + 1 > 16384 ? n + 1 : 16384;

		b = xrealloc(NULL, sizeof(*b) + size);
		b->next = p->strings_;
		b->used = 0;
		b->size = size;
		p->strings_ = b;
	}
	r = b->data + b->used;
	memcpy(r, s, n);
	r[n] = '\0';
	b->used += n + 1;
	return r;
}

/* qsort, which may not be passed the NULL of an empty array */
static void sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

static const char *pool_strdup(struct sc_profile *p, const char *s)
{
	return pool_strndup(p, s, strlen(s));
}

static void seterr(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

const char *sc_timing_name(uint32_t mode)
{
	switch (mode) {
	case SC_TIMING_ADAPTIVE: return "adaptive";
	case SC_TIMING_ALL: return "all";
	case SC_TIMING_NONE: return "none";
	case SC_TIMING_MIXED: return "mixed";
	default: return "unknown";
	}
}

/* ---- directory listing ------------------------------------------------ */

struct dirfile {
	char *name;
	uint32_t pid, gen, seq;
	int is_meta;
};

/* Parse a decimal uint32 at *s, advancing it; 0 on failure. */
static int parse_u32(const char **s, uint32_t *v)
{
	uint64_t x = 0;
	const char *p = *s;

	if (*p < '0' || *p > '9')
		return 0;
	while (*p >= '0' && *p <= '9') {
		x = x * 10 + (uint64_t)(*p - '0');
		if (x > UINT32_MAX)
			return 0;
		p++;
	}
	*s = p;
	*v = (uint32_t)x;
	return 1;
}

/* "p<pid>-<gen>.meta" or "p<pid>-<gen>-t<seq>.thr"; 0 if neither. */
static int parse_name(const char *name, struct dirfile *f)
{
	const char *s = name;

	if (*s++ != 'p' || !parse_u32(&s, &f->pid) || *s++ != '-' ||
	    !parse_u32(&s, &f->gen))
		return 0;
	if (strcmp(s, ".meta") == 0) {
		f->is_meta = 1;
		f->seq = 0;
		return 1;
	}
	if (s[0] != '-' || s[1] != 't')
		return 0;
	s += 2;
	if (!parse_u32(&s, &f->seq) || strcmp(s, ".thr") != 0)
		return 0;
	f->is_meta = 0;
	return 1;
}

static int cmp_dirfile(const void *a, const void *b)
{
	const struct dirfile *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->gen != y->gen)
		return x->gen < y->gen ? -1 : 1;
	if (x->is_meta != y->is_meta)
		return x->is_meta ? -1 : 1;   /* the .meta before its .thr files */
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return 0;
}

/* ---- .meta ------------------------------------------------------------ */

/* Meta records are collected with their position in the stream so that the
 * last one per key wins after a sort. */
struct obj_tmp { size_t ord; struct sc_object o; };
struct ent_tmp { size_t ord; struct sc_entry e; };
struct thr_tmp { size_t ord; struct sc_thread t; };
struct unload_tmp { size_t ord; uint32_t id; };
struct bind_tmp { size_t ord; struct sc_m_bind b; };

struct meta_state {
	struct obj_tmp *objs; size_t nobjs, capobjs;
	struct ent_tmp *ents; size_t nents, capents;
	struct thr_tmp *thrs; size_t nthrs, capthrs;
	struct unload_tmp *unl; size_t nunl, capunl;
	struct bind_tmp *binds; size_t nbinds, capbinds;
};

static int cmp_obj_tmp(const void *a, const void *b)
{
	const struct obj_tmp *x = a, *y = b;

	if (x->o.id != y->o.id)
		return x->o.id < y->o.id ? -1 : 1;
	return x->ord < y->ord ? -1 : x->ord > y->ord;
}

static int cmp_ent_tmp(const void *a, const void *b)
{
	const struct ent_tmp *x = a, *y = b;

	if (x->e.idx != y->e.idx)
		return x->e.idx < y->e.idx ? -1 : 1;
	return x->ord < y->ord ? -1 : x->ord > y->ord;
}

static int cmp_bind_tmp(const void *a, const void *b)
{
	const struct bind_tmp *x = a, *y = b;

	if (x->b.idx != y->b.idx)
		return x->b.idx < y->b.idx ? -1 : 1;
	return x->ord < y->ord ? -1 : x->ord > y->ord;
}

static int cmp_thr_tmp(const void *a, const void *b)
{
	const struct thr_tmp *x = a, *y = b;

	if (x->t.seq != y->t.seq)
		return x->t.seq < y->t.seq ? -1 : 1;
	return x->ord < y->ord ? -1 : x->ord > y->ord;
}

/* Read a whole file relative to dirfd. Returns 0 or -1 with errno. */
static int read_file(int dirfd, const char *name, unsigned char **buf, size_t *len)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	size_t cap = 65536, n = 0;
	unsigned char *b;

	if (fd < 0)
		return -1;
	b = xrealloc(NULL, cap);
	for (;;) {
		ssize_t r;

		if (n == cap) {
			cap *= 2;
			b = xrealloc(b, cap);
		}
		r = read(fd, b + n, cap - n);
		if (r < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			free(b);
			close(fd);
			errno = e;
			return -1;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	*buf = b;
	*len = n;
	return 0;
}

static const char *meta_type_name(uint32_t type)
{
	switch (type) {
	case SC_M_CMDLINE: return "CMDLINE";
	case SC_M_OBJECT: return "OBJECT";
	case SC_M_ENTRY: return "ENTRY";
	case SC_M_THREAD: return "THREAD";
	case SC_M_END: return "END";
	case SC_M_EXIT: return "EXIT";
	case SC_M_UNLOAD: return "UNLOAD";
	case SC_M_BIND: return "BIND";
	default: return "unknown";
	}
}

/* The NUL-terminated string after a fixed payload part (tolerates a
 * missing NUL at the end of the payload). */
static const char *payload_str(struct sc_profile *p, const unsigned char *pl,
			       size_t len, size_t fixed)
{
	const char *s = (const char *)pl + fixed;
	size_t n = len - fixed;

	return pool_strndup(p, s, strnlen(s, n));
}

static void set_cmdline(struct sc_profile *p, struct sc_image *im,
			const unsigned char *pl, size_t len)
{
	size_t i, start, n = 0;

	for (i = 0; i < len; i++)
		if (pl[i] == '\0')
			n++;
	if (len && pl[len - 1] != '\0')
		n++;                    /* unterminated last string */
	free(im->argv);
	im->argv = xcalloc(n + 1, sizeof(*im->argv));
	im->argc = 0;
	for (start = 0, i = 0; i <= len; i++) {
		if (i == len && start == len)
			break;
		if (i == len || pl[i] == '\0') {
			im->argv[im->argc++] = pool_strndup(p, (const char *)pl + start,
							    i - start);
			start = i + 1;
		}
	}
}

static int load_meta(struct sc_profile *p, struct sc_image *im, struct meta_state *ms,
		     const unsigned char *buf, size_t size, const char *fname,
		     char *err, size_t errlen)
{
	const char *dir = p->dir;
	size_t off, ord = 0;

	if (size < sizeof(im->hdr.magic) ||
	    memcmp(buf, SC_META_MAGIC, sizeof(im->hdr.magic)) != 0) {
		seterr(err, errlen, "%s/%s: bad magic", dir, fname);
		return -1;
	}
	if (size < offsetof(struct sc_meta_header, header_size)) {
		seterr(err, errlen, "%s/%s: truncated header", dir, fname);
		return -1;
	}
	memcpy(&im->hdr.version, buf + offsetof(struct sc_meta_header, version),
	       sizeof(im->hdr.version));
	if (im->hdr.version != SC_FORMAT_VERSION) {
		seterr(err, errlen, "%s/%s: format version %u, this scaler reads %u",
		       dir, fname, im->hdr.version, SC_FORMAT_VERSION);
		return -1;
	}
	if (size < sizeof(im->hdr)) {
		seterr(err, errlen, "%s/%s: truncated header", dir, fname);
		return -1;
	}
	memcpy(&im->hdr, buf, sizeof(im->hdr));
	if (im->hdr.header_size < sizeof(im->hdr) || im->hdr.header_size > size) {
		seterr(err, errlen, "%s/%s: bad header size %u", dir, fname,
		       im->hdr.header_size);
		return -1;
	}
	im->pid = im->hdr.pid;
	im->ppid = im->hdr.ppid;
	im->gen = im->hdr.gen;
	im->timing_mode = im->hdr.timing_mode;

	off = im->hdr.header_size;
	while (off < size) {
		struct sc_meta_rec rec;
		const unsigned char *pl;
		size_t need = 0;

		/*
		 * A record that does not fit in what is left of the file is the
		 * torn tail of an append interrupted by the process dying: it
		 * and anything after it are ignored.
		 */
		if (size - off < sizeof(rec)) {
			im->torn_tail = 1;
			break;
		}
		memcpy(&rec, buf + off, sizeof(rec));
		if (rec.len > size - off - sizeof(rec)) {
			im->torn_tail = 1;
			break;
		}
		pl = buf + off + sizeof(rec);
		switch (rec.type) {
		case SC_M_OBJECT: need = sizeof(struct sc_m_object); break;
		case SC_M_UNLOAD: need = sizeof(struct sc_m_object); break;
		case SC_M_ENTRY: need = sizeof(struct sc_m_entry); break;
		case SC_M_BIND: need = sizeof(struct sc_m_bind); break;
		case SC_M_THREAD: need = sizeof(struct sc_m_thread); break;
		case SC_M_END: need = sizeof(struct sc_m_end); break;
		case SC_M_EXIT: need = sizeof(struct sc_m_exit); break;
		default: break;
		}
		if (rec.len < need) {
			seterr(err, errlen,
			       "%s/%s: truncated %s record at offset %zu (%u bytes, need %zu)",
			       dir, fname, meta_type_name(rec.type), off, rec.len, need);
			return -1;
		}
		switch (rec.type) {
		case SC_M_CMDLINE:
			set_cmdline(p, im, pl, rec.len);
			break;
		case SC_M_OBJECT: {
			struct obj_tmp *t;
			struct sc_m_object mo;

			memcpy(&mo, pl, sizeof(mo));
			ms->objs = grow(ms->objs, &ms->capobjs, ms->nobjs + 1, sizeof(*ms->objs));
			t = &ms->objs[ms->nobjs++];
			memset(t, 0, sizeof(*t));
			t->ord = ord;
			t->o.id = mo.id;
			t->o.flags = mo.flags;
			t->o.base = mo.base;
			t->o.path = payload_str(p, pl, rec.len, sizeof(mo));
			break;
		}
		case SC_M_UNLOAD: {
			struct sc_m_object mo;

			memcpy(&mo, pl, sizeof(mo));
			ms->unl = grow(ms->unl, &ms->capunl, ms->nunl + 1, sizeof(*ms->unl));
			ms->unl[ms->nunl].ord = ord;
			ms->unl[ms->nunl++].id = mo.id;
			break;
		}
		case SC_M_ENTRY: {
			struct ent_tmp *t;
			struct sc_m_entry me;
			char api[512];

			memcpy(&me, pl, sizeof(me));
			ms->ents = grow(ms->ents, &ms->capents, ms->nents + 1, sizeof(*ms->ents));
			t = &ms->ents[ms->nents++];
			memset(t, 0, sizeof(*t));
			t->ord = ord;
			t->e.idx = me.idx;
			t->e.caller = me.caller;
			t->e.callee = me.callee;
			t->e.flags = me.flags;
			t->e.raw_name = payload_str(p, pl, rec.len, sizeof(me));
			sc_api_name(t->e.raw_name, api, sizeof(api));
			t->e.api = strcmp(api, t->e.raw_name) ? pool_strdup(p, api)
							      : t->e.raw_name;
			break;
		}
		case SC_M_BIND: {
			struct bind_tmp *t;

			ms->binds = grow(ms->binds, &ms->capbinds, ms->nbinds + 1,
					 sizeof(*ms->binds));
			t = &ms->binds[ms->nbinds++];
			t->ord = ord;
			memcpy(&t->b, pl, sizeof(t->b));
			break;
		}
		case SC_M_THREAD: {
			struct thr_tmp *t;
			struct sc_m_thread mt;
			const char *name;

			memcpy(&mt, pl, sizeof(mt));
			ms->thrs = grow(ms->thrs, &ms->capthrs, ms->nthrs + 1, sizeof(*ms->thrs));
			t = &ms->thrs[ms->nthrs++];
			memset(t, 0, sizeof(*t));
			t->ord = ord;
			t->t.seq = mt.seq;
			t->t.tid = mt.tid;
			t->t.start_routine = mt.start_routine;
			t->t.routine_obj = mt.routine_obj;
			t->t.has_meta = 1;
			name = payload_str(p, pl, rec.len, sizeof(mt));
			snprintf(t->t.name, sizeof(t->t.name), "%s", name);
			/* then the start routine, after the name's NUL padding */
			{
				size_t at = sizeof(mt) + strlen(name) + 1;
				while (at < rec.len && pl[at] == 0)
					at++;
				t->t.routine = at < rec.len ? payload_str(p, pl, rec.len, at) : "";
			}
			break;
		}
		case SC_M_END:
			memcpy(&im->end, pl, sizeof(im->end));
			im->has_end = 1;
			break;
		case SC_M_EXIT:
			memcpy(&im->exit, pl, sizeof(im->exit));
			im->has_exit = 1;
			break;
		default:
			break;          /* unknown types are skipped */
		}
		ord++;
		/* payload is padded to 8; a missing pad at EOF ends the loop */
		off += sizeof(rec) + (((size_t)rec.len + 7) & ~(size_t)7);
	}
	return 0;
}

/* Move the collected meta records into the image, last record per key. */
static void finish_meta(struct sc_image *im, struct meta_state *ms)
{
	size_t i, j;

	sort(ms->objs, ms->nobjs, sizeof(*ms->objs), cmp_obj_tmp);
	im->objects = xcalloc(ms->nobjs, sizeof(*im->objects));
	for (i = 0; i < ms->nobjs; i++) {
		if (i + 1 < ms->nobjs && ms->objs[i + 1].o.id == ms->objs[i].o.id)
			continue;
		/* unloaded if an UNLOAD of this id follows its last OBJECT */
		for (j = 0; j < ms->nunl; j++)
			if (ms->unl[j].id == ms->objs[i].o.id && ms->unl[j].ord > ms->objs[i].ord)
				ms->objs[i].o.unloaded = 1;
		ms->objs[i].o.name = sc_basename(ms->objs[i].o.path);
		im->objects[im->nobjects++] = ms->objs[i].o;
	}

	/*
	 * ENTRY records describe imports (by import number), BIND records give
	 * the ones that were called their entry index, the counter slot: the
	 * image's entries are the bound imports, by entry index. Imports never
	 * called have no counters and no entry.
	 */
	sort(ms->ents, ms->nents, sizeof(*ms->ents), cmp_ent_tmp);
	for (i = j = 0; i < ms->nents; i++) {
		if (i + 1 < ms->nents && ms->ents[i + 1].e.idx == ms->ents[i].e.idx)
			continue;
		ms->ents[j++] = ms->ents[i];
	}
	ms->nents = j;
	sort(ms->binds, ms->nbinds, sizeof(*ms->binds), cmp_bind_tmp);
	im->entries = xcalloc(ms->nbinds ? ms->nbinds : 1, sizeof(*im->entries));
	for (i = 0; i < ms->nbinds; i++) {
		const struct sc_m_bind *b = &ms->binds[i].b;
		size_t lo = 0, hi = ms->nents;

		if (i + 1 < ms->nbinds && ms->binds[i + 1].b.idx == b->idx)
			continue;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (ms->ents[mid].e.idx < b->import)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == ms->nents || ms->ents[lo].e.idx != b->import)
			continue;               /* a bind of an unknown import */
		im->entries[im->nentries] = ms->ents[lo].e;
		im->entries[im->nentries].idx = b->idx;
		im->entries[im->nentries].flags = b->flags;
		im->nentries++;
	}

	sort(ms->thrs, ms->nthrs, sizeof(*ms->thrs), cmp_thr_tmp);
	im->threads = xcalloc(ms->nthrs, sizeof(*im->threads));
	for (i = 0; i < ms->nthrs; i++) {
		if (i + 1 < ms->nthrs && ms->thrs[i + 1].t.seq == ms->thrs[i].t.seq)
			continue;
		im->threads[im->nthreads++] = ms->thrs[i].t;
	}
}

static const struct sc_object *find_object(const struct sc_image *im, uint32_t id)
{
	size_t lo = 0, hi = im->nobjects;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (im->objects[mid].id == id)
			return &im->objects[mid];
		if (im->objects[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static struct sc_thread *thread_by_seq(struct sc_image *im, uint32_t seq, size_t *cap)
{
	size_t i;
	struct sc_thread *t;

	for (i = 0; i < im->nthreads; i++)
		if (im->threads[i].seq == seq)
			return &im->threads[i];
	if (*cap < im->nthreads + 1) {
		*cap = im->nthreads + 1;
		im->threads = xrealloc(im->threads, *cap * sizeof(*im->threads));
	}
	t = &im->threads[im->nthreads++];
	memset(t, 0, sizeof(*t));
	t->seq = seq;
	t->routine_obj = UINT32_MAX;
	return t;
}

/* ---- .thr ------------------------------------------------------------- */

/*
 * The estimator. A rec has `count` calls of which `timed` were measured.
 * Under adaptive timing a call timed while the sampling period was P stands
 * for P calls, so the runtime accumulates wticks = sum(ticks * P) and
 * wcount = sum(P). wticks/wcount is then the per-call average weighted by
 * how many calls each sample represents, and calls not covered by any
 * sample's weight (count - wcount > 0, e.g. the tail after the last sample)
 * are charged that average:
 *
 *     est = wticks + max(0, count - wcount) * (wticks / wcount)
 *
 * With timing "all" P == 1 and this is simply ticks. A record with timed
 * calls but no weights (wcount == 0) falls back to ticks/timed.
 *
 * The interceptor's own cost was taken off each timed call as it was
 * booked (runtime calib.c: measured at start-up and re-measured on each
 * thread as the machine's speed moves), so nothing is subtracted here.
 * Exclusive time scales est
 * by the measured self fraction self_ticks/ticks (nested interposed calls
 * removed), clamped to [0, est]; with ticks == 0 everything is self.
 */
static void estimate(const struct sc_rec *r, long double *incl, long double *self, long double *attr,
		     long double *block)
{
	long double wt, wc, est, s;

	*incl = 0;
	*self = 0;
	*attr = 0;
	*block = 0;
	if (r->timed == 0)
		return;
	if (r->wcount > 0) {
		wt = (long double)r->wticks;
		wc = (long double)r->wcount;
	} else {
		wt = (long double)r->ticks;
		wc = (long double)r->timed;
	}
	est = wt;
	if ((long double)r->count > wc)
		est += ((long double)r->count - wc) * (wt / wc);
	if (r->ticks > 0) {
		/* a signed sum: nested calls are charged as estimates */
		s = est * (long double)(int64_t)r->self_ticks / (long double)r->ticks;
		if (s < 0)
			s = 0;
		if (s > est)
			s = est;
	} else {
		s = est;
	}
	*incl = est;
	*self = s;
	/*
	 * The parallel-clock and blocked sums are kept beside wticks, with
	 * the same weights: each is est scaled by its fraction of wticks
	 * (so the interceptor's cost comes off them in proportion).
	 */
	if (r->wticks > 0) {
		*attr = est * (long double)r->wpticks / (long double)r->wticks;
		*block = est * (long double)r->wblock / (long double)r->wticks;
		if (*attr > est)
			*attr = est;
		if (*block > est)
			*block = est;
	}
}

static int load_thr(struct sc_profile *p, struct sc_image *im, int dirfd,
		    const struct dirfile *f, size_t *thrcap, char *err, size_t errlen)
{
	struct sc_thr_header h;
	struct stat st;
	struct sc_thread *t;
	unsigned char *chunk = NULL;
	const size_t chunk_recs = 1024;
	size_t ei = 0;
	uint64_t i = 0;
	static const char zero_magic[8];
	int fd = openat(dirfd, f->name, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0) {
		seterr(err, errlen, "cannot open %s/%s: %s", p->dir, f->name, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		seterr(err, errlen, "%s/%s: %s", p->dir, f->name, strerror(errno));
		close(fd);
		return -1;
	}
	/*
	 * A thread killed between creating its file and writing the header
	 * leaves an empty (or all-zero) file: it ran no counted calls.
	 */
	if (st.st_size == 0) {
		close(fd);
		return 0;
	}
	memset(&h, 0, sizeof(h));
	r = pread(fd, &h, sizeof(h), 0);
	if (r == (ssize_t)sizeof(h) && memcmp(h.magic, zero_magic, 8) == 0) {
		close(fd);
		return 0;
	}
	if (r < (ssize_t)sizeof(h.magic) || memcmp(h.magic, SC_THR_MAGIC, 8) != 0) {
		seterr(err, errlen, "%s/%s: bad magic", p->dir, f->name);
		close(fd);
		return -1;
	}
	if (r >= (ssize_t)(sizeof(h.magic) + sizeof(h.version)) &&
	    h.version != SC_FORMAT_VERSION) {
		seterr(err, errlen, "%s/%s: format version %u, this scaler reads %u",
		       p->dir, f->name, h.version, SC_FORMAT_VERSION);
		close(fd);
		return -1;
	}
	if (r < (ssize_t)sizeof(h) || (uint64_t)st.st_size < SC_THR_HEADER_SIZE) {
		seterr(err, errlen, "%s/%s: truncated header", p->dir, f->name);
		close(fd);
		return -1;
	}
	if (h.rec_size < sizeof(struct sc_rec) || h.rec_size > (1u << 20)) {
		seterr(err, errlen, "%s/%s: record size %u, this scaler reads %zu",
		       p->dir, f->name, h.rec_size, sizeof(struct sc_rec));
		close(fd);
		return -1;
	}

	/* the file name's seq is authoritative: it is unique by construction */
	t = thread_by_seq(im, f->seq, thrcap);
	t->has_file = 1;
	if (!t->has_meta)
		t->tid = h.tid;
	if (h.name[0] || !t->name[0]) {
		memcpy(t->name, h.name, sizeof(h.name));
		t->name[sizeof(h.name)] = '\0';
	}
	t->start_tsc = h.start_tsc;
	t->end_tsc = h.end_tsc;
	t->last_tsc = h.last_tsc;
	t->start_p = h.start_p;
	t->end_p = h.end_p;
	if (h.ovh_n) {
		if (!im->ovh_n || h.ovh_min < im->ovh_min)
			im->ovh_min = h.ovh_min;
		if (h.ovh_max > im->ovh_max)
			im->ovh_max = h.ovh_max;
		im->ovh_sum += h.ovh_sum;
		im->ovh_n += h.ovh_n;
	}

	/*
	 * Record i counts calls through shadow entry idx i; entries are sorted
	 * by idx, so walk both in step. Records without an entry (not declared
	 * yet when the process died) are ignored; entries beyond the array
	 * simply had no calls in this thread. A partial record at the end
	 * (file grown while we read) is ignored too.
	 */
	chunk = xrealloc(NULL, chunk_recs * h.rec_size);
	for (;;) {
		off_t pos = (off_t)SC_THR_HEADER_SIZE + (off_t)(i * h.rec_size);
		size_t got = 0, n, k;

		while (got < chunk_recs * h.rec_size) {
			r = pread(fd, chunk + got, chunk_recs * h.rec_size - got,
				  pos + (off_t)got);
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0) {
				seterr(err, errlen, "%s/%s: %s", p->dir, f->name,
				       strerror(errno));
				free(chunk);
				close(fd);
				return -1;
			}
			if (r == 0)
				break;
			got += (size_t)r;
		}
		n = got / h.rec_size;
		for (k = 0; k < n; k++, i++) {
			struct sc_rec rec;
			struct sc_entry *e;
			long double incl, self, attr, block, scale;
			int b;

			while (ei < im->nentries && im->entries[ei].idx < i)
				ei++;
			if (ei >= im->nentries)
				break;
			e = &im->entries[ei];
			if (e->idx != i)
				continue;
			memcpy(&rec, chunk + k * h.rec_size, sizeof(rec));
			if (rec.count == 0)
				continue;
			estimate(&rec, &incl, &self, &attr, &block);
			e->count += rec.count;
			e->timed += rec.timed;
			e->est_ticks += incl;
			e->self_ticks += self;
			e->attr_ticks += attr;
			if (!(e->flags & SC_ENT_WAIT)) {
				t->calls_ticks += incl;
				t->calls_attr += attr;
			}
			if (rec.max_ticks > e->max_ticks)
				e->max_ticks = rec.max_ticks;
			/* the histogram holds weighted timed calls: scale it to
			 * the exact count, as the estimator does the time */
			scale = rec.wcount > 0 ? (long double)rec.count / (long double)rec.wcount : 0;
			for (b = 0; b < SC_REC_HIST; b++)
				e->hist[b] += (long double)rec.hist[b] * scale;
			if (e->flags & SC_ENT_WAIT) {
				t->wait_ticks += incl;
				/* exact: Wait APIs are always timed */
				t->wait_p += (long double)rec.wpticks;
				e->block_ticks += incl;
			} else if (e->flags & SC_ENT_MAYBLOCK) {
				t->wait_ticks += block;
				e->block_ticks += block;
				/* its thread stayed on the parallel clock while
				 * blocked: keep only the unblocked share */
				if (incl > 0)
					e->attr_ticks -= attr * block / incl;
			}
		}
		if (n < chunk_recs || ei >= im->nentries)
			break;
	}
	/* the record count is a property of the file, not of how far we read */
	t->nrecs = ((uint64_t)st.st_size - SC_THR_HEADER_SIZE) / h.rec_size;
	free(chunk);
	close(fd);
	return 0;
}

/* ---- aggregation ------------------------------------------------------ */

/* Input of agg_build: one call key contribution. */
struct call_in {
	const char *caller, *callee, *api;
	uint64_t count, timed;
	long double total_ns, self_ns;
	long double attr_ns, wait_ns;
	int64_t max_ns;
	int wait;
	long double hist[SC_HIST_BUCKETS];     /* by sc_hist_lo_ns */
};

/* Input of agg_build: threads of one component (or, with n == 0, just a
 * path to use for a component of that name). */
struct thr_in {
	const char *name, *path;
	int64_t ns;
	int64_t attr_ns;
	uint32_t n;
};

static int cmp_call_key(const void *a, const void *b)
{
	const struct call_in *x = a, *y = b;
	int c = strcmp(x->caller, y->caller);

	if (!c)
		c = strcmp(x->callee, y->callee);
	if (!c)
		c = strcmp(x->api, y->api);
	return c;
}

static int cmp_call_out(const void *a, const void *b)
{
	const struct sc_call *x = a, *y = b;
	int c;

	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if ((c = strcmp(x->caller, y->caller)))
		return c;
	if ((c = strcmp(x->callee, y->callee)))
		return c;
	return strcmp(x->api, y->api);
}

static int cmp_comp(const void *a, const void *b)
{
	const struct sc_component *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmp_edge(const void *a, const void *b)
{
	const struct sc_edge *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	return strcmp(x->callee, y->callee);
}

static int64_t round_ns(long double ns)
{
	if (!(ns == ns) || ns <= 0)   /* NaN or not positive */
		return 0;
	if (ns >= 9.2e18L)
		return INT64_MAX / 4;   /* absurd input; keep sums finite */
	return (int64_t)llroundl(ns);
}

/*
 * The q-quantile of a latency histogram (bucket i = [2^i, 2^(i+1)) ns):
 * the bucket where the cumulative count crosses q * total, and within it
 * the point at the same fraction on a log scale (latencies inside a
 * power-of-two bucket are closer to uniform in log than in linear terms).
 * Clamped to the longest call seen. 0 for an empty histogram.
 */
static int64_t hist_quantile(const uint64_t *h, long double q, int64_t max_ns)
{
	long double total = 0, want, cum = 0, lo, v;
	int i;

	for (i = 0; i < SC_HIST_BUCKETS; i++)
		total += (long double)h[i];
	if (total <= 0)
		return 0;
	want = q * total;
	for (i = 0; i < SC_HIST_BUCKETS; i++) {
		if (h[i] == 0)
			continue;
		if (cum + (long double)h[i] >= want)
			break;
		cum += (long double)h[i];
	}
	if (i == SC_HIST_BUCKETS)
		i = SC_HIST_BUCKETS - 1;
	lo = i == 0 ? 0.5L : (long double)sc_hist_lo_ns(i);
	v = lo * powl(2.0L, (want - cum) / (long double)(h[i] ? h[i] : 1));
	if (max_ns > 0 && v > (long double)max_ns)
		v = (long double)max_ns;
	return round_ns(v);
}

/* Whether every count of h lies in the one bucket holding ns. */
static int hist_one_bucket(const uint64_t *h, int64_t ns)
{
	int i, in = -1;

	for (i = 0; i < SC_HIST_BUCKETS; i++) {
		if (!h[i])
			continue;
		if (in >= 0)
			return 0;
		in = i;
	}
	return in >= 0 && (uint64_t)ns >= sc_hist_lo_ns(in) &&
	       (in + 1 == SC_HIST_BUCKETS || (uint64_t)ns < sc_hist_lo_ns(in + 1));
}

/* Index of the component `name` in a, created if absent (so pointers
 * into a->comp are only valid until the next call). */
static size_t comp_get(struct sc_agg *a, size_t *cap, const char *name,
		       const struct thr_in *thr, size_t nthr)
{
	size_t i;
	struct sc_component *c;

	for (i = 0; i < a->ncomp; i++)
		if (strcmp(a->comp[i].name, name) == 0)
			return i;
	a->comp = grow(a->comp, cap, a->ncomp + 1, sizeof(*a->comp));
	c = &a->comp[a->ncomp];
	memset(c, 0, sizeof(*c));
	c->name = name;
	c->path = "";
	for (i = 0; i < nthr; i++)
		if (strcmp(thr[i].name, name) == 0 && thr[i].path && thr[i].path[0]) {
			c->path = thr[i].path;
			break;
		}
	return a->ncomp++;
}

/*
 * Exclusive times of the APIs of a component, made to agree with what the
 * component is known to spend in other components. Per API, nested time
 * (total - self) comes from timed calls that happened inside timed calls,
 * which under adaptive timing are few: unbiased, but noisy. The total a
 * component spends calling out (out_ns) is known well, and for a component
 * without threads of its own all of it happens inside calls into it. So
 * its APIs' nested times are scaled to add up to out_ns: the sampling only
 * decides how it is split among them.
 */
static void calibrate_nesting(struct sc_agg *a)
{
	size_t i, k;

	for (i = 0; i < a->ncomp; i++) {
		const struct sc_component *c = &a->comp[i];
		long double raw = 0, f;

		if (c->nthreads || c->out_ns <= 0)
			continue;
		for (k = 0; k < a->ncalls; k++)
			if (strcmp(a->calls[k].callee, c->name) == 0 &&
			    strcmp(a->calls[k].caller, c->name) != 0)
				raw += (long double)(a->calls[k].total_ns - a->calls[k].self_ns);
		if (raw <= 0)
			continue;
		f = (long double)c->out_ns / raw;
		for (k = 0; k < a->ncalls; k++) {
			struct sc_call *x = &a->calls[k];
			int64_t nested;

			if (strcmp(x->callee, c->name) != 0 || strcmp(x->caller, c->name) == 0)
				continue;
			nested = round_ns((long double)(x->total_ns - x->self_ns) * f);
			if (nested > x->total_ns)
				nested = x->total_ns;
			x->self_ns = x->total_ns - nested;
		}
	}
}

/*
 * Build an aggregate from call contributions (sorted and merged here; the
 * array is reordered) and thread contributions.
 *
 * The self-time invariant. For every component C
 *     total(C) = threads(C) + in(C)     self(C) = total(C) - out(C)
 * where in/out only count calls between different components. Every such
 * call is in() of exactly one component and out() of exactly one other,
 * so summing over all components the in and out terms cancel:
 *     sum self(C) = sum threads(C) = time of all threads.
 * To make that hold exactly, the ns of each call key are rounded once,
 * here, and everything else is integer sums of those. self(C) can come
 * out negative when estimated call times exceed the measured thread time;
 * it is kept as is (display code clamps) so the invariant survives.
 */
static void agg_build(struct sc_agg *a, struct call_in *in, size_t nin,
		      const struct thr_in *thr, size_t nthr)
{
	size_t i, j, capcomp = 0;

	memset(a, 0, sizeof(*a));
	sort(in, nin, sizeof(*in), cmp_call_key);
	a->calls = xcalloc(nin, sizeof(*a->calls));
	for (i = 0; i < nin; i = j) {
		struct sc_call *c;
		long double tot = 0, self = 0, attr = 0, waitns = 0;
		long double hist[SC_HIST_BUCKETS] = {0};
		uint64_t count = 0, timed = 0;
		int64_t maxns = 0;
		int wait = 0, b;

		for (j = i; j < nin && cmp_call_key(&in[i], &in[j]) == 0; j++) {
			wait |= in[j].wait;
			tot += in[j].total_ns;
			self += in[j].self_ns;
			attr += in[j].attr_ns;
			waitns += in[j].wait_ns;
			count += in[j].count;
			timed += in[j].timed;
			if (in[j].max_ns > maxns)
				maxns = in[j].max_ns;
			for (b = 0; b < SC_HIST_BUCKETS; b++)
				hist[b] += in[j].hist[b];
		}
		if (count == 0)
			continue;
		c = &a->calls[a->ncalls++];
		c->caller = in[i].caller;
		c->callee = in[i].callee;
		c->api = in[i].api;
		c->count = count;
		c->timed = timed;
		c->wait = wait;
		c->total_ns = round_ns(tot);
		c->self_ns = round_ns(self);
		if (c->self_ns > c->total_ns)
			c->self_ns = c->total_ns;
		c->attr_ns = round_ns(attr);
		if (c->attr_ns > c->total_ns)
			c->attr_ns = c->total_ns;
		c->wait_ns = round_ns(waitns);
		if (c->wait_ns > c->total_ns)
			c->wait_ns = c->total_ns;
		c->max_ns = maxns;
		for (b = 0; b < SC_HIST_BUCKETS; b++)
			c->hist[b] = (uint64_t)llroundl(hist[b]);
		c->p50_ns = hist_quantile(c->hist, 0.50L, maxns);
		c->p99_ns = hist_quantile(c->hist, 0.99L, maxns);
		/*
		 * All calls in one bucket (a uniform workload, the common
		 * case): the mean is a better median than any point the
		 * bucket alone can give, and p99 lies between it and the max.
		 */
		if (count && hist_one_bucket(c->hist, c->total_ns / (int64_t)count)) {
			c->p50_ns = c->total_ns / (int64_t)count;
			if (c->p99_ns < c->p50_ns)
				c->p99_ns = c->p50_ns;
		}
		a->calls_count += count;
	}
	sort(a->calls, a->ncalls, sizeof(*a->calls), cmp_call_out);

	for (i = 0; i < nthr; i++) {
		struct sc_component *c;
		size_t ci;

		if (thr[i].n == 0)
			continue;
		ci = comp_get(a, &capcomp, thr[i].name, thr, nthr);
		c = &a->comp[ci];
		c->nthreads += thr[i].n;
		c->threads_ns += thr[i].ns;
		c->attr_total_ns += thr[i].attr_ns;
		c->attr_threads_ns += thr[i].attr_ns;
		a->threads_ns += thr[i].ns;
		a->attr_ns += thr[i].attr_ns;
	}
	for (i = 0; i < a->ncalls; i++) {
		const struct sc_call *k = &a->calls[i];
		struct sc_component *from, *to;
		size_t e, fi, ti;

		fi = comp_get(a, &capcomp, k->caller, thr, nthr);
		ti = comp_get(a, &capcomp, k->callee, thr, nthr);
		from = &a->comp[fi];
		to = &a->comp[ti];
		if (from == to)
			continue;       /* calls within a component are not edges */
		to->in_ns += k->total_ns;
		to->in_calls += k->count;
		from->out_ns += k->total_ns;
		from->out_calls += k->count;
		from->wait_ns += k->wait_ns;
		/* the same arithmetic on the 1/k-weighted times; a Wait is no
		 * part of the critical time (its thread was not running) */
		if (!k->wait) {
			to->attr_total_ns += k->attr_ns;
			from->attr_self_ns -= k->attr_ns;
		}
		for (e = 0; e < from->nout; e++)
			if (strcmp(from->out[e].callee, k->callee) == 0)
				break;
		if (e == from->nout) {
			from->out = xrealloc(from->out, (from->nout + 1) * sizeof(*from->out));
			from->out[e].callee = k->callee;
			from->out[e].ns = 0;
			from->out[e].calls = 0;
			from->nout++;
		}
		from->out[e].ns += k->total_ns;
		from->out[e].calls += k->count;
	}
	calibrate_nesting(a);
	for (i = 0; i < a->ncomp; i++) {
		struct sc_component *c = &a->comp[i];

		c->total_ns = c->threads_ns + c->in_ns;
		c->self_ns = c->total_ns - c->out_ns;
		/* attr_self_ns holds minus the attributed time of calls out */
		c->attr_self_ns += c->attr_total_ns;
		sort(c->out, c->nout, sizeof(*c->out), cmp_edge);
	}
	sort(a->comp, a->ncomp, sizeof(*a->comp), cmp_comp);
}

static void agg_free(struct sc_agg *a)
{
	size_t i;

	for (i = 0; i < a->ncomp; i++)
		free(a->comp[i].out);
	free(a->comp);
	free(a->calls);
	memset(a, 0, sizeof(*a));
}

const struct sc_component *sc_agg_component(const struct sc_agg *a, const char *name)
{
	size_t i;

	for (i = 0; i < a->ncomp; i++)
		if (strcmp(a->comp[i].name, name) == 0)
			return &a->comp[i];
	return NULL;
}

/* Component name of an object id; unknown ids get a placeholder. */
static const char *obj_name(struct sc_profile *p, const struct sc_image *im, uint32_t id)
{
	const struct sc_object *o = find_object(im, id);
	char buf[32];

	if (o)
		return o->name;
	snprintf(buf, sizeof(buf), "[object %u]", id);
	return pool_strdup(p, buf);
}

static long double ticks_to_ns(const struct sc_image *im, long double ticks)
{
	if (im->tsc_hz <= 0)
		return 0;
	return ticks * 1e9L / im->tsc_hz;
}

/*
 * Tick bucket b of a record's histogram ([2^(b+3), 2^(b+4)) ticks, format.h)
 * goes to the report's ns bucket (sc_hist_lo_ns) holding its geometric
 * middle: both scales are powers of two, so this moves each count by less
 * than one bucket.
 */
static void hist_to_ns(const struct sc_image *im, const long double *ticks,
		       long double *ns)
{
	int b, i;

	if (im->tsc_hz <= 0)
		return;
	for (b = 0; b < SC_REC_HIST; b++) {
		long double mid, v;

		if (ticks[b] <= 0)
			continue;
		mid = b == 0 ? 8.0L : powl(2.0L, (long double)b + 3.5L);
		v = mid * 1e9L / im->tsc_hz;
		i = v < 1 ? 0 : (int)floorl(log2l(v));
		if (i >= SC_HIST_BUCKETS)
			i = SC_HIST_BUCKETS - 1;
		ns[i] += ticks[b];
	}
}

/* Everything derived from one image's raw records. */
static void finish_image(struct sc_profile *p, struct sc_image *im)
{
	uint64_t max_tsc = im->hdr.start_tsc, end_tsc;
	struct call_in *in;
	struct thr_in *thr;
	size_t i, nin = 0;

	/* Object 0 is the executable; name it by the command if unrecorded. */
	for (i = 0; i < im->nobjects; i++)
		if (im->objects[i].path[0] == '\0') {
			if (im->objects[i].id == 0 && im->argc > 0 && im->argv[0][0])
				im->objects[i].path = im->argv[0];
			im->objects[i].name = im->objects[i].path[0]
				? sc_basename(im->objects[i].path) : "[main]";
		}

	/*
	 * TSC frequency: the long baseline from runtime start to END is far
	 * better than the start-up calibration, if it spans at least 10 ms.
	 */
	im->tsc_hz = (long double)im->hdr.tsc_hz;
	if (im->has_end && im->end.end_mono_ns >= im->hdr.start_mono_ns + 10000000ull &&
	    im->end.end_tsc > im->hdr.start_tsc) {
		im->tsc_hz = (long double)(im->end.end_tsc - im->hdr.start_tsc) * 1e9L /
			     (long double)(im->end.end_mono_ns - im->hdr.start_mono_ns);
		im->hz_from_end = 1;
	}

	if (im->has_exit)
		im->wall_ns = (int64_t)im->exit.wall_ns;
	else if (im->has_end && im->end.end_mono_ns > im->hdr.start_mono_ns)
		im->wall_ns = (int64_t)(im->end.end_mono_ns - im->hdr.start_mono_ns);
	if (im->has_exit)
		im->exit_status = im->exit.exit_status;
	else if (im->has_end && (im->end.how == SC_END_EXIT || im->end.how == SC_END_SIGNAL))
		im->exit_status = im->end.status;
	else
		im->exit_status = -1;
	im->incomplete = !im->has_end && !im->has_exit;
	if (im->ovh_n) {
		im->ovh_mean_ns = round_ns(ticks_to_ns(im, (long double)im->ovh_sum / im->ovh_n));
		im->ovh_min_ns = round_ns(ticks_to_ns(im, (long double)im->ovh_min));
		im->ovh_max_ns = round_ns(ticks_to_ns(im, (long double)im->ovh_max));
	}

	/* Threads: wall time, with the image's end as the fallback end. */
	for (i = 0; i < im->nthreads; i++) {
		const struct sc_thread *t = &im->threads[i];

		if (!t->has_file)
			continue;
		if (t->start_tsc > max_tsc)
			max_tsc = t->start_tsc;
		if (t->end_tsc > max_tsc)
			max_tsc = t->end_tsc;
		if (t->last_tsc > max_tsc)      /* latest timed return */
			max_tsc = t->last_tsc;
	}
	/*
	 * Fallback end of threads still running: the image's END; without
	 * one (killed, or exited by _exit), the parent's EXIT wall time
	 * counted from the runtime's start, which slightly overstates it (the
	 * parent's clock started before the runtime did); else the latest
	 * TSC any thread recorded.
	 */
	end_tsc = max_tsc;
	if (im->has_end && im->end.end_tsc) {
		end_tsc = im->end.end_tsc;
	} else if (im->has_exit && im->tsc_hz > 0) {
		long double e = (long double)im->hdr.start_tsc +
				(long double)im->exit.wall_ns * im->tsc_hz / 1e9L;

		if (e > (long double)max_tsc && e < 1.8e19L)
			end_tsc = (uint64_t)e;
	}
	thr = xcalloc(im->nthreads + im->nobjects, sizeof(*thr));
	for (i = 0; i < im->nthreads; i++) {
		struct sc_thread *t = &im->threads[i];
		uint64_t end = t->end_tsc ? t->end_tsc : end_tsc;

		if (t->seq == 0)
			t->obj = 0;
		else if (t->routine_obj != UINT32_MAX && find_object(im, t->routine_obj))
			t->obj = t->routine_obj;
		else
			t->obj = 0;
		t->wall_ticks = t->has_file && end > t->start_tsc ? end - t->start_tsc : 0;
		t->wall_ns = round_ns(ticks_to_ns(im, (long double)t->wall_ticks));
		t->wait_ns = im->timing_mode == SC_TIMING_NONE ? 0
			     : round_ns(ticks_to_ns(im, t->wait_ticks));
		if (t->wait_ns > t->wall_ns)
			t->wait_ns = t->wall_ns;
		/*
		 * Attributed effective time: the parallel clock over the
		 * thread's life less over its waits. A thread without an end
		 * ends with the image (END). Without either (killed), the
		 * clock's reading at its end is lost: its effective time is
		 * scaled by the share its own timed calls got.
		 */
		if (im->timing_mode != SC_TIMING_NONE && t->has_file) {
			long double a;

			if (t->end_tsc || im->has_end) {
				uint64_t endp = t->end_tsc ? t->end_p : im->end.end_p;

				a = endp > t->start_p ? (long double)(endp - t->start_p) : 0;
				a -= t->wait_p;
				t->attr_ns = round_ns(ticks_to_ns(im, a));
			} else {
				a = t->calls_ticks > 0 ? t->calls_attr / t->calls_ticks : 1;
				t->attr_ns = round_ns((long double)(t->wall_ns - t->wait_ns) * a);
			}
			if (t->attr_ns > t->wall_ns - t->wait_ns)
				t->attr_ns = t->wall_ns - t->wait_ns;
			if (t->attr_ns < 0)
				t->attr_ns = 0;
		}
		if (!t->routine)
			t->routine = "";
		thr[i].name = obj_name(p, im, t->obj);
		thr[i].path = find_object(im, t->obj) ? find_object(im, t->obj)->path : "";
		thr[i].ns = t->wall_ns;
		thr[i].attr_ns = t->attr_ns;
		thr[i].n = 1;
	}
	for (i = 0; i < im->nobjects; i++) {
		thr[im->nthreads + i].name = im->objects[i].name;
		thr[im->nthreads + i].path = im->objects[i].path;
	}

	/* Entries: estimated ticks to ns, then one call contribution each. */
	in = xcalloc(im->nentries, sizeof(*in));
	for (i = 0; i < im->nentries; i++) {
		struct sc_entry *e = &im->entries[i];

		if (im->timing_mode == SC_TIMING_NONE) {
			e->total_ns = e->self_ns = 0;
		} else {
			e->total_ns = ticks_to_ns(im, e->est_ticks);
			e->self_ns = ticks_to_ns(im, e->self_ticks);
		}
		if (e->count == 0)
			continue;
		in[nin].caller = obj_name(p, im, e->caller);
		in[nin].callee = obj_name(p, im, e->callee);
		in[nin].api = e->api;
		in[nin].count = e->count;
		in[nin].timed = im->timing_mode == SC_TIMING_NONE ? 0 : e->timed;
		in[nin].total_ns = e->total_ns;
		in[nin].self_ns = e->self_ns;
		in[nin].wait = (e->flags & SC_ENT_WAIT) != 0;
		if (im->timing_mode != SC_TIMING_NONE) {
			in[nin].wait_ns = ticks_to_ns(im, e->block_ticks);
			/* a Wait is no part of the critical time */
			in[nin].attr_ns = in[nin].wait ? 0 : ticks_to_ns(im, e->attr_ticks);
			in[nin].max_ns = round_ns(ticks_to_ns(im, (long double)e->max_ticks));
			hist_to_ns(im, e->hist, in[nin].hist);
		}
		nin++;
	}
	agg_build(&im->agg, in, nin, thr, im->nthreads + im->nobjects);
	free(in);
	free(thr);
}

/* The whole profile: images' aggregates summed by name. */
static void finish_profile(struct sc_profile *p)
{
	size_t i, j, nin = 0, nthr = 0, capin = 0, capthr = 0;
	int k;
	struct call_in *in = NULL;
	struct thr_in *thr = NULL;

	p->timing_mode = p->nimages ? p->images[0].timing_mode : SC_TIMING_ADAPTIVE;
	for (i = 0; i < p->nimages; i++) {
		const struct sc_image *im = &p->images[i];

		if (im->timing_mode != p->timing_mode)
			p->timing_mode = SC_TIMING_MIXED;
		if (im->wall_ns > p->wall_ns)
			p->wall_ns = im->wall_ns;
		for (j = 0; j < im->agg.ncalls; j++) {
			const struct sc_call *c = &im->agg.calls[j];

			in = grow(in, &capin, nin + 1, sizeof(*in));
			in[nin].caller = c->caller;
			in[nin].callee = c->callee;
			in[nin].api = c->api;
			in[nin].count = c->count;
			in[nin].timed = c->timed;
			in[nin].total_ns = (long double)c->total_ns;
			in[nin].self_ns = (long double)c->self_ns;
			in[nin].wait = c->wait;
			in[nin].attr_ns = (long double)c->attr_ns;
			in[nin].wait_ns = (long double)c->wait_ns;
			in[nin].max_ns = c->max_ns;
			for (k = 0; k < SC_HIST_BUCKETS; k++)
				in[nin].hist[k] = (long double)c->hist[k];
			nin++;
		}
		for (j = 0; j < im->agg.ncomp; j++) {
			const struct sc_component *c = &im->agg.comp[j];

			thr = grow(thr, &capthr, nthr + 1, sizeof(*thr));
			thr[nthr].name = c->name;
			thr[nthr].path = c->path;
			thr[nthr].ns = c->threads_ns;
			thr[nthr].attr_ns = c->attr_threads_ns;
			thr[nthr].n = c->nthreads;
			nthr++;
		}
	}
	agg_build(&p->agg, in, nin, thr, nthr);
	free(in);
	free(thr);
}

/* ---- entry points ----------------------------------------------------- */

int sc_profile_load(const char *dir, struct sc_profile *out, char *err, size_t errlen)
{
	DIR *d;
	struct dirent *de;
	struct dirfile *files = NULL;
	size_t nfiles = 0, capfiles = 0, nmeta = 0, i, capimg = 0;
	int dfd, rc = -1;

	memset(out, 0, sizeof(*out));
	if (err && errlen)
		err[0] = '\0';
	out->dir = pool_strdup(out, dir);
	d = opendir(dir);
	if (!d) {
		seterr(err, errlen, "cannot open %s: %s", dir, strerror(errno));
		return -1;
	}
	dfd = dirfd(d);
	errno = 0;
	while ((de = readdir(d)) != NULL) {
		struct dirfile f;

		if (!parse_name(de->d_name, &f))
			continue;
		f.name = (char *)pool_strdup(out, de->d_name);
		files = grow(files, &capfiles, nfiles + 1, sizeof(*files));
		files[nfiles++] = f;
		nmeta += f.is_meta;
		errno = 0;
	}
	if (errno) {
		seterr(err, errlen, "cannot read %s: %s", dir, strerror(errno));
		goto out;
	}
	if (nmeta == 0) {
		seterr(err, errlen, "%s: not a scaler profile (no p*.meta files)", dir);
		goto out;
	}
	sort(files, nfiles, sizeof(*files), cmp_dirfile);

	for (i = 0; i < nfiles; i++) {
		struct sc_image *im;
		struct meta_state ms;
		unsigned char *buf;
		size_t size, thrcap, k;
		int r;

		if (!files[i].is_meta)
			continue;       /* .thr without a .meta: nothing to name it */
		out->images = grow(out->images, &capimg, out->nimages + 1, sizeof(*out->images));
		im = &out->images[out->nimages++];
		memset(im, 0, sizeof(*im));
		im->meta_file = files[i].name;
		im->exit_status = -1;
		if (read_file(dfd, files[i].name, &buf, &size) < 0) {
			seterr(err, errlen, "cannot open %s/%s: %s", dir, files[i].name,
			       strerror(errno));
			goto out;
		}
		if (size == 0) {
			/*
			 * The runtime creates the file before it has calibrated
			 * the clock for the header: an image that died in between
			 * left nothing to report (its .thr files are skipped too).
			 */
			free(buf);
			out->nimages--;
			continue;
		}
		memset(&ms, 0, sizeof(ms));
		r = load_meta(out, im, &ms, buf, size, files[i].name, err, errlen);
		if (r == 0)
			finish_meta(im, &ms);
		free(buf);
		free(ms.objs);
		free(ms.ents);
		free(ms.thrs);
		free(ms.unl);
		free(ms.binds);
		if (r < 0)
			goto out;
		/* the file name is authoritative for the image key */
		im->pid = files[i].pid;
		im->gen = files[i].gen;
		thrcap = im->nthreads;
		for (k = i + 1; k < nfiles && !files[k].is_meta &&
			     files[k].pid == im->pid && files[k].gen == im->gen; k++)
			if (load_thr(out, im, dfd, &files[k], &thrcap, err, errlen) < 0)
				goto out;
		/* threads known from .thr only were appended: keep seq order */
		for (k = 1; k < im->nthreads; k++) {
			struct sc_thread t = im->threads[k];
			size_t m = k;

			while (m > 0 && im->threads[m - 1].seq > t.seq) {
				im->threads[m] = im->threads[m - 1];
				m--;
			}
			im->threads[m] = t;
		}
		finish_image(out, im);
	}
	finish_profile(out);
	rc = 0;
out:
	closedir(d);
	free(files);
	return rc;
}

void sc_profile_free(struct sc_profile *p)
{
	struct strblock *b, *next;
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nimages; i++) {
		struct sc_image *im = &p->images[i];

		free(im->argv);
		free(im->objects);
		free(im->entries);
		free(im->threads);
		agg_free(&im->agg);
	}
	free(p->images);
	agg_free(&p->agg);
	for (b = p->strings_; b; b = next) {
		next = b->next;
		free(b);
	}
	memset(p, 0, sizeof(*p));
}
