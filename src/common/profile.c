/*
 * profile.c - the reader side of format.h (profile.h): loads every process
 * image of a profile directory, checks each file's format version, and
 * folds each thread's counters into the image's entries as estimates
 * (estimate.h), with the per-image figures derived from the raw records
 * (clock rate, wall times, exit status, threads' times).
 *
 * Reading order per image: the .meta stream first (objects, shadow
 * entries, threads, end/exit), then each .thr counter file, whose records
 * are folded straight into the image's entries so that only one counter
 * file is in memory at a time. Later meta records of the same kind and key
 * override earlier ones, as format.h promises.
 *
 * What it trusts. Anyone may add files to a profile directory open to
 * all (scaler record run as root makes it 1777 while the command runs),
 * so a file is read only if it is a regular file (opened without
 * following a link, and without blocking on a fifo, then checked with
 * fstat) owned by the directory's owner, by root, or by a user that a
 * .meta of those two declares the run became (SC_M_UID, written before a
 * set*uid call: a server that dropped root makes its files as its new
 * user); any other user's file is not part of the run. A thread's .thr
 * file that its image's trusted .meta declares is read whoever owns it
 * (thread_declared). Nothing read from a file is trusted either: a .meta
 * larger than SC_META_MAX is not read, record counts come from the file's
 * size, and a .thr file is read only where bound entries have their
 * records (a sparse file with one bind near 2^32 costs one read). A file
 * that fails any of this is skipped and named (sc_profile.skipped_files) with
 * its image's other files if it is a .meta; the rest is reported.
 *
 * Out of memory is fatal (message and exit(1)): this runs in the CLI only.
 */
#include "profile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "estimate.h"
#include "kstacks.h"
#include "names.h"
#include "profile_args.h"
#include "xalloc.h"

/* the first format version with the threads' ovh_* figures (format.h) */
#define FORMAT_OVH_PER_THREAD 4u
/* the first with sc_rec.max_tsc (reserved, zero, before) */
#define FORMAT_MAX_TSC 5u
/* the first with off-CPU and kernel time (sc_rec.wblocked..., perf_kind) */
#define FORMAT_PERF 6u
/* the first with 29 histogram buckets from 64 ticks (32 from 8 before) */
#define FORMAT_HIST29 7u

/* The largest .meta read (bytes): some 10 M imports. A larger one is made
 * up, and reading it would only exhaust memory. */
#define SC_META_MAX (1ull << 30)

/* Bytes of .thr records read at a time. */
#define THR_CHUNK (256u << 10)

/* ---- memory ----------------------------------------------------------- */

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

		b = sc_xrealloc(NULL, sizeof(*b) + size);
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

static const char *pool_strdup(struct sc_profile *p, const char *s)
{
	return pool_strndup(p, s, strlen(s));
}

const char *sc_profile_strdup(struct sc_profile *p, const char *s)
{
	return pool_strdup(p, s);
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

/* Note file `name` as skipped, with its reason (printf-style). */
static void skip_file(struct sc_profile *p, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void skip_file(struct sc_profile *p, const char *name, const char *fmt, ...)
{
	char why[512];
	va_list ap;
	size_t cap = p->nskipped_files;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	/* capacity: the next power of two at or over the count */
	if ((cap & (cap - 1)) == 0)
		p->skipped_files = sc_xrealloc(p->skipped_files, (cap ? cap * 2 : 1) * sizeof(*p->skipped_files));
	p->skipped_files[p->nskipped_files].file = pool_strdup(p, name);
	p->skipped_files[p->nskipped_files].reason = pool_strdup(p, why);
	p->nskipped_files++;
}

void sc_profile_print_skipped(const struct sc_profile *p, FILE *f)
{
	size_t i;

	for (i = 0; i < p->nskipped_files; i++)
		fprintf(f, "scaler: skipped %s/%s: %s\n", p->dir, p->skipped_files[i].file,
			p->skipped_files[i].reason);
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
	int is_args;            /* p<pid>-<gen>-t<seq>.args (--args) */
};

/* Parse a decimal uint32 at *s, advancing it; 0 on failure. Written the
 * runtime's way only (no leading zero), so that one number has one name:
 * two files of one thread would count its calls twice. */
static int parse_u32(const char **s, uint32_t *v)
{
	uint64_t x = 0;
	const char *p = *s;

	if (*p < '0' || *p > '9' || (p[0] == '0' && p[1] >= '0' && p[1] <= '9'))
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
		f->is_args = 0;
		return 1;
	}
	if (s[0] != '-' || s[1] != 't')
		return 0;
	s += 2;
	if (!parse_u32(&s, &f->seq) || (strcmp(s, ".thr") != 0 && strcmp(s, ".args") != 0))
		return 0;
	f->is_meta = 0;
	f->is_args = strcmp(s, ".args") == 0;
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
	return x->is_args - y->is_args;
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
	size_t capskip;         /* of the image's skipped */
};

static int cmp_obj_tmp(const void *a, const void *b)
{
	const struct obj_tmp *x = a, *y = b;

	if (x->o.id != y->o.id)
		return x->o.id < y->o.id ? -1 : 1;
	return x->ord < y->ord ? -1 : x->ord > y->ord;
}

static int cmp_unload_tmp(const void *a, const void *b)
{
	const struct unload_tmp *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
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

/*
 * The uids the run declared (sc_profile_run_uids) while sc_profile_load
 * reads a directory: one table for the whole load rather than one more
 * parameter through every reading function. The CLI reads one profile at
 * a time.
 */
static uint32_t *run_uids;
static size_t nrun_uids;

static int in_uids(uid_t u, const uint32_t *uids, size_t nuids)
{
	for (size_t i = 0; i < nuids; i++)
		if (uids[i] == (uint32_t)u)
			return 1;
	return 0;
}

/*
 * Open dir's file `name` for reading if the reader trusts it (see the top
 * of this file): a regular file owned by dir_uid, root or one of the uids
 * the run declared (uids), or by anyone if any_owner. Returns the
 * descriptor with *st filled in, or -1 with the reason in why.
 */
static int trusted_fd(int dirfd, uid_t dir_uid, const uint32_t *uids, size_t nuids,
		      const char *name, int any_owner, struct stat *st, char *why, size_t whylen)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		if (errno == ELOOP)
			snprintf(why, whylen, "a symbolic link (not followed)");
		else
			snprintf(why, whylen, "cannot open: %s", strerror(errno));
		return -1;
	}
	if (fstat(fd, st) < 0) {
		snprintf(why, whylen, "cannot stat: %s", strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		snprintf(why, whylen, "not a regular file (%s)",
			 S_ISDIR(st->st_mode) ? "a directory" : S_ISFIFO(st->st_mode) ? "a fifo" :
			 S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode) ? "a device" :
			 S_ISSOCK(st->st_mode) ? "a socket" : "not a file");
		close(fd);
		return -1;
	}
	if (!any_owner && st->st_uid != dir_uid && st->st_uid != 0 &&
	    !in_uids(st->st_uid, uids, nuids)) {
		snprintf(why, whylen, "owned by uid %u, not by the directory's owner (uid %u), "
			 "root or a user the run became", (unsigned)st->st_uid, (unsigned)dir_uid);
		close(fd);
		return -1;
	}
	return fd;
}

/* trusted_fd, the uids those of the load under way */
static int open_trusted(int dirfd, uid_t dir_uid, const char *name, int any_owner,
			struct stat *st, char *why, size_t whylen)
{
	return trusted_fd(dirfd, dir_uid, run_uids, nrun_uids, name, any_owner, st, why, whylen);
}

int sc_profile_open_run_file(int dirfd, uid_t dir_uid, const uint32_t *uids, size_t nuids,
			     const char *name, struct stat *st, char *why, size_t whylen)
{
	return trusted_fd(dirfd, dir_uid, uids, nuids, name, 0, st, why, whylen);
}

/* Extend *buf, fd's first *len bytes, to its first `size` (fewer if it
 * is shorter: what it grew by meanwhile is left). Returns 0, or -1 with
 * errno (*buf and *len as far as they got). */
static int read_upto(int fd, size_t size, unsigned char **buf, size_t *len)
{
	*buf = sc_xrealloc(*buf, size ? size : 1);
	while (*len < size) {
		ssize_t r = pread(fd, *buf + *len, size - *len, (off_t)*len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		*len += (size_t)r;
	}
	return 0;
}

/* A trusted .meta file opened, if it is not larger than any can be.
 * Returns its descriptor and *st, or -1 with the reason in why. */
static int open_meta(int dirfd, uid_t dir_uid, const char *name, struct stat *st, char *why,
		     size_t whylen)
{
	int fd = open_trusted(dirfd, dir_uid, name, 0, st, why, whylen);

	if (fd >= 0 && (uint64_t)st->st_size > SC_META_MAX) {
		snprintf(why, whylen, "%llu bytes, more than a .meta file can hold (%llu)",
			 (unsigned long long)st->st_size, SC_META_MAX);
		close(fd);
		return -1;
	}
	return fd;
}

/* A trusted .meta file's bytes. Returns 0, or -1 with the reason in why. */
static int read_meta_file(int dirfd, uid_t dir_uid, const char *name, unsigned char **buf,
			  size_t *len, char *why, size_t whylen)
{
	struct stat st;
	int fd = open_meta(dirfd, dir_uid, name, &st, why, whylen), rc;

	if (fd < 0)
		return -1;
	*buf = NULL;
	*len = 0;
	rc = read_upto(fd, (size_t)st.st_size, buf, len);
	if (rc < 0) {
		snprintf(why, whylen, "cannot read: %s", strerror(errno));
		free(*buf);
	}
	close(fd);
	return rc;
}

/*
 * A process that dropped privileges and closed its descriptors goes on in
 * continuation files p<pid>-<gen>-c<k>.meta (runtime meta.c): each that
 * starts with this image's very header has its records appended to
 * *buf. A name taken by someone else was skipped by the runtime, and a
 * file with another header is not this image's; one the reader does not
 * trust (read_meta_file) ends the stream there.
 */
static void append_continuations(int dirfd, uid_t dir_uid, const struct dirfile *f,
				 unsigned char **buf, size_t *size)
{
	const size_t hsz = sizeof(struct sc_meta_header);
	char name[64];

	for (uint32_t k = 1; *size >= hsz; k++) {
		unsigned char *c;
		size_t n;
		char why[256];

		snprintf(name, sizeof(name), "p%u-%u-c%u.meta", f->pid, f->gen, k);
		if (read_meta_file(dirfd, dir_uid, name, &c, &n, why, sizeof(why)) < 0)
			break;
		if (n >= hsz && memcmp(c, *buf, hsz) == 0) {
			*buf = sc_xrealloc(*buf, *size + n - hsz);
			memcpy(*buf + *size, c + hsz, n - hsz);
			*size += n - hsz;
		}
		free(c);
	}
}

/*
 * A fork child's .meta starts with SC_M_PARENT (format.h): the records of
 * its parent's file up to `end`, but its threads and end, stand in its
 * place, and the parent's file may start with its own reference. The
 * files referred to are read once per load (struct parents), each only
 * as far as its children refer to it (its first `end` bytes, so N
 * children of a long-running parent read its start once, not N times
 * its whole file); a parent's records are copied into each child's
 * stream (inherit_records). What a reference chain may take is bounded
 * before it is read or copied: the bytes its references take add up to
 * SC_META_MAX at most, and so does the stream made with them. A file
 * met twice on one chain is a cycle: the reference that closes it is
 * dropped, so every file of a cycle keeps its own records. A parent
 * that cannot be read, a cycle or a chain over the bound leaves the
 * child's profile without the records from before its fork: its calls
 * to APIs it inherited are not reported (as a child whose parent's file
 * could not be read was before); the parent's file is named once in
 * skipped_files. A reference past the parent's end (a truncated file)
 * takes what there is. A chain is as long as it is: a program that forks
 * a hundred levels deep has each level's records.
 */
enum { PF_NEW, PF_WALKING, PF_DONE };
#define NO_PARENT SIZE_MAX
/* read of a parent at least: its header and its own SC_M_PARENT */
#define PARENT_HEAD 4096u

/* A .meta file of the load as fork children's parent. */
struct parent_file {
	unsigned char *raw;     /* the file's first len bytes, read as children need */
	size_t len;
	bool whole;             /* len is all the file had when read */
	bool bad;               /* cannot be read, or not a .meta: named already */
	int state;              /* PF_*: resolve_chain's walk */
	size_t at;              /* its records after its header and SC_M_PARENT */
	size_t up;              /* the parent's index in files[], or NO_PARENT */
	size_t up_end;          /* how far up's records stand in for its SC_M_PARENT */
	uint64_t chain;         /* the bytes its ancestors' references take */
};

/* The fork parents of one load: pf[i] is files[i]'s, for its .meta. */
struct parents {
	const struct dirfile *files;
	size_t nfiles;
	struct parent_file *pf;
	int dirfd;
	uid_t dir_uid;
};

/* The header size of a .meta's bytes, 0 if they do not start with one. */
static size_t meta_header_size(const unsigned char *buf, size_t size)
{
	struct sc_meta_header h;

	if (size < sizeof(h))
		return 0;
	memcpy(&h, buf, sizeof(h));
	if (memcmp(h.magic, SC_META_MAGIC, 8) != 0 || h.header_size < sizeof(h) ||
	    h.header_size > size)
		return 0;
	return h.header_size;
}

/* The SC_M_PARENT record that starts a .meta's bytes: 1 and *ref, or 0
 * (none, or a torn one that load_meta names). *at: where the records
 * after it (or after the header) start. */
static int parent_ref(const unsigned char *buf, size_t size, struct sc_m_parent *ref, size_t *at)
{
	size_t hsz = meta_header_size(buf, size);
	struct sc_meta_rec rec;

	*at = hsz;
	if (!hsz || size - hsz < sizeof(rec) + sizeof(*ref))
		return 0;
	memcpy(&rec, buf + hsz, sizeof(rec));
	if (rec.type != SC_M_PARENT || rec.len < sizeof(*ref) || rec.len > size - hsz - sizeof(rec))
		return 0;
	memcpy(ref, buf + hsz + sizeof(rec), sizeof(*ref));
	*at = hsz + sizeof(rec) + (((size_t)rec.len + 7) & ~(size_t)7);
	if (*at > size)
		*at = size;
	return 1;
}

/* files[]'s index of p<pid>-<gen>.meta, or NO_PARENT */
static size_t find_meta(const struct parents *ps, uint32_t pid, uint32_t gen)
{
	struct dirfile key = {.pid = pid, .gen = gen, .is_meta = 1};
	size_t lo = 0, hi = ps->nfiles;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp_dirfile(&ps->files[mid], &key);

		if (c == 0)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NO_PARENT;
}

/* Names a parent's file whose records a child could not have, once. */
static void parent_lost(struct sc_profile *p, const char *name, const char *why)
{
	for (size_t i = 0; i < p->nskipped_files; i++)
		if (!strcmp(p->skipped_files[i].file, name))
			return;
	skip_file(p, name, "%s; a fork child's records from before its fork are lost", why);
}

#define OVER_BOUND "its records and its children's over what a .meta can hold"

/*
 * files[g]'s first `end` bytes (PARENT_HEAD at least; fewer if it is
 * shorter) in pf[g].raw, read if not yet, unless more than `room` would
 * be. 0; -1 with why when it cannot be read or is not a .meta (then it
 * is bad); -2 when over room.
 */
static int parent_read(struct parents *ps, struct sc_profile *p, size_t g, uint64_t end,
		       uint64_t room, char *why, size_t whylen)
{
	struct parent_file *f = &ps->pf[g];
	uint64_t want = end > PARENT_HEAD ? end : PARENT_HEAD;
	size_t before = f->len;
	struct stat st;
	int fd, rc;

	if (f->whole || f->len >= want)
		return (end < f->len ? end : f->len) > room ? -2 : 0;
	fd = open_meta(ps->dirfd, ps->dir_uid, ps->files[g].name, &st, why, whylen);
	if (fd < 0)
		goto bad;
	if (want >= (uint64_t)st.st_size)
		want = (uint64_t)st.st_size;
	if ((end < want ? end : want) > room) {
		close(fd);
		return -2;
	}
	rc = read_upto(fd, (size_t)want, &f->raw, &f->len);
	close(fd);
	p->parent_bytes_read += f->len - before;
	if (rc < 0) {
		snprintf(why, whylen, "cannot read: %s", strerror(errno));
		goto bad;
	}
	f->whole = f->len < want || want == (uint64_t)st.st_size;
	if (!meta_header_size(f->raw, f->len)) {
		snprintf(why, whylen, "not a .meta file");
		goto bad;
	}
	return 0;
bad:
	f->bad = true;
	return -1;
}

/*
 * Files[i]'s ancestors, from buf (its first size bytes): follows the
 * references up, reading each parent as far as its child refers to it,
 * to a file without one or one resolved before; every file walked is
 * PF_DONE after, with up, up_end and chain set.
 */
static void resolve_chain(struct parents *ps, struct sc_profile *p, size_t i,
			  const unsigned char *buf, size_t size)
{
	size_t *path = NULL, npath = 0, cap = 0;
	uint64_t taken = 0;     /* by the references walked */

	for (;;) {
		struct parent_file *f = &ps->pf[i];
		struct sc_m_parent ref;
		char name[64], why[256];
		uint64_t above;
		size_t g;
		int rc;

		f->state = PF_WALKING;
		f->up = NO_PARENT;
		f->chain = 0;
		path = sc_grow(path, &cap, npath + 1, sizeof(*path));
		path[npath++] = i;
		if (!parent_ref(buf, size, &ref, &f->at))
			break;
		snprintf(name, sizeof(name), "p%u-%u.meta", ref.pid, ref.gen);
		g = find_meta(ps, ref.pid, ref.gen);
		if (g == NO_PARENT) {
			parent_lost(p, name, "no such file in the profile");
			break;
		}
		if (ps->pf[g].state == PF_WALKING) {
			parent_lost(p, name, "a cycle of fork parents (a file its own ancestor)");
			break;
		}
		if (ps->pf[g].bad) {
			parent_lost(p, name, "unreadable");     /* named already */
			break;
		}
		above = ps->pf[g].state == PF_DONE ? ps->pf[g].chain : 0;
		rc = taken + above > SC_META_MAX ? -2 :
		     parent_read(ps, p, g, ref.end, SC_META_MAX - taken - above, why, sizeof(why));
		if (rc < 0) {
			parent_lost(p, name, rc == -2 ? OVER_BOUND : why);
			break;
		}
		f->up = g;
		f->up_end = ref.end < ps->pf[g].len ? (size_t)ref.end : ps->pf[g].len;
		taken += f->up_end;
		if (ps->pf[g].state == PF_DONE)
			break;
		i = g;
		buf = ps->pf[g].raw;
		size = ps->pf[g].len;
	}
	/* down from the top, whose chain is known */
	while (npath) {
		struct parent_file *f = &ps->pf[path[--npath]];

		if (f->up != NO_PARENT)
			f->chain = f->up_end + ps->pf[f->up].chain;
		f->state = PF_DONE;
	}
	free(path);
}

/* The records of raw[from, to) but threads, ends and references, whole
 * ones only, to dst; returns their bytes. */
static size_t take_records(unsigned char *dst, const unsigned char *raw, size_t from, size_t to)
{
	struct sc_meta_rec rec;
	size_t n = 0, o;

	for (o = from; o < to && to - o >= sizeof(rec);) {
		size_t len;

		memcpy(&rec, raw + o, sizeof(rec));
		if (rec.len > to - o - sizeof(rec))
			break;
		len = sizeof(rec) + (((size_t)rec.len + 7) & ~(size_t)7);
		if (len > to - o)
			len = to - o;
		if (rec.type != SC_M_THREAD && rec.type != SC_M_END && rec.type != SC_M_EXIT &&
		    rec.type != SC_M_PARENT) {
			memcpy(dst + n, raw + o, len);
			n += len;
		}
		o += len;
	}
	return n;
}

/*
 * Files[i]'s .meta bytes (*buf, *size) with its ancestors' records, from
 * the first, in place of its SC_M_PARENT record; unchanged if it has
 * none, or they cannot be had (said in skipped_files).
 */
static void inherit_records(struct parents *ps, struct sc_profile *p, size_t i,
			    unsigned char **buf, size_t *size)
{
	struct parent_file *f = &ps->pf[i];
	size_t hsz = meta_header_size(*buf, *size), n, d, k, *line;
	unsigned char *out;

	if (f->state != PF_DONE)
		resolve_chain(ps, p, i, *buf, *size);
	if (f->up == NO_PARENT || !hsz || f->at > *size)
		return;
	if ((uint64_t)hsz + f->chain + (*size - f->at) > SC_META_MAX) {
		char name[64];

		snprintf(name, sizeof(name), "p%u-%u.meta", ps->files[f->up].pid,
			 ps->files[f->up].gen);
		parent_lost(p, name, OVER_BOUND);
		return;
	}
	/* the ancestors, nearest first */
	for (d = 0, k = i; ps->pf[k].up != NO_PARENT; k = ps->pf[k].up)
		d++;
	line = sc_xcalloc(d, sizeof(*line));
	for (d = 0, k = i; ps->pf[k].up != NO_PARENT; k = ps->pf[k].up)
		line[d++] = k;
	out = sc_xrealloc(NULL, hsz + f->chain + (*size - f->at));
	memcpy(out, *buf, hsz);
	n = hsz;
	while (d--) {
		const struct parent_file *c = &ps->pf[line[d]], *a = &ps->pf[c->up];

		n += take_records(out + n, a->raw, a->at, c->up_end);
	}
	memcpy(out + n, *buf + f->at, *size - f->at);
	n += *size - f->at;
	free(line);
	free(*buf);
	*buf = out;
	*size = n;
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
	case SC_M_SKIP: return "SKIP";
	case SC_M_UID: return "UID";
	case SC_M_CONTROL: return "CONTROL";
	case SC_M_PARENT: return "PARENT";
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
	im->argv = sc_xcalloc(n + 1, sizeof(*im->argv));
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

/* Is `version` one this reader cannot read? Then why says so, with the
 * versions it reads. */
static int bad_version(char *why, size_t whylen, uint32_t version)
{
	if (version >= SC_FORMAT_MIN_VERSION && version <= SC_FORMAT_VERSION)
		return 0;
	seterr(why, whylen, "format version %u, this scaler reads versions %u to %u",
	       version, SC_FORMAT_MIN_VERSION, SC_FORMAT_VERSION);
	return 1;
}

/* Parse a .meta file's bytes into im and ms. Returns 0, or -1 with the
 * reason in why. */
static int load_meta(struct sc_profile *p, struct sc_image *im, struct meta_state *ms,
		     const unsigned char *buf, size_t size, char *why, size_t whylen)
{
	size_t off, ord = 0;

	if (size < sizeof(im->hdr.magic) ||
	    memcmp(buf, SC_META_MAGIC, sizeof(im->hdr.magic)) != 0) {
		seterr(why, whylen, "bad magic");
		return -1;
	}
	if (size < offsetof(struct sc_meta_header, header_size)) {
		seterr(why, whylen, "truncated header");
		return -1;
	}
	memcpy(&im->hdr.version, buf + offsetof(struct sc_meta_header, version),
	       sizeof(im->hdr.version));
	if (bad_version(why, whylen, im->hdr.version))
		return -1;
	if (size < sizeof(im->hdr)) {
		seterr(why, whylen, "truncated header");
		return -1;
	}
	memcpy(&im->hdr, buf, sizeof(im->hdr));
	if (im->hdr.header_size < sizeof(im->hdr) || im->hdr.header_size > size) {
		seterr(why, whylen, "bad header size %u", im->hdr.header_size);
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
		case SC_M_SKIP: need = sizeof(struct sc_m_skip); break;
		case SC_M_CONTROL: need = sizeof(struct sc_m_control); break;
		case SC_M_PARENT: need = sizeof(struct sc_m_parent); break;
		default: break;
		}
		if (rec.len < need) {
			seterr(why, whylen, "truncated %s record at offset %zu (%u bytes, need %zu)",
			       meta_type_name(rec.type), off, rec.len, need);
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
			ms->objs = sc_grow(ms->objs, &ms->capobjs, ms->nobjs + 1, sizeof(*ms->objs));
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
			ms->unl = sc_grow(ms->unl, &ms->capunl, ms->nunl + 1, sizeof(*ms->unl));
			ms->unl[ms->nunl].ord = ord;
			ms->unl[ms->nunl++].id = mo.id;
			break;
		}
		case SC_M_ENTRY: {
			struct ent_tmp *t;
			struct sc_m_entry me;
			char api[512];

			memcpy(&me, pl, sizeof(me));
			ms->ents = sc_grow(ms->ents, &ms->capents, ms->nents + 1, sizeof(*ms->ents));
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

			ms->binds = sc_grow(ms->binds, &ms->capbinds, ms->nbinds + 1,
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
			ms->thrs = sc_grow(ms->thrs, &ms->capthrs, ms->nthrs + 1, sizeof(*ms->thrs));
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
		case SC_M_SKIP: {
			struct sc_m_skip sk;
			struct sc_skipped *t;
			size_t at;

			memcpy(&sk, pl, sizeof(sk));
			im->skipped = sc_grow(im->skipped, &ms->capskip, im->nskipped + 1,
					      sizeof(*im->skipped));
			t = &im->skipped[im->nskipped++];
			t->obj = sk.obj;
			t->reason = payload_str(p, pl, rec.len, sizeof(sk));
			at = sizeof(sk) + strlen(t->reason) + 1;
			t->name = at < rec.len ? payload_str(p, pl, rec.len, at) : "?";
			break;
		}
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

	sc_sort(ms->objs, ms->nobjs, sizeof(*ms->objs), cmp_obj_tmp);
	sc_sort(ms->unl, ms->nunl, sizeof(*ms->unl), cmp_unload_tmp);
	im->objects = sc_xcalloc(ms->nobjs, sizeof(*im->objects));
	for (i = j = 0; i < ms->nobjs; i++) {
		if (i + 1 < ms->nobjs && ms->objs[i + 1].o.id == ms->objs[i].o.id)
			continue;
		/* unloaded if an UNLOAD of this id follows its last OBJECT
		 * (both sorted by id: one walk through the UNLOADs) */
		while (j < ms->nunl && ms->unl[j].id < ms->objs[i].o.id)
			j++;
		for (; j < ms->nunl && ms->unl[j].id == ms->objs[i].o.id; j++)
			if (ms->unl[j].ord > ms->objs[i].ord)
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
	sc_sort(ms->ents, ms->nents, sizeof(*ms->ents), cmp_ent_tmp);
	for (i = j = 0; i < ms->nents; i++) {
		if (i + 1 < ms->nents && ms->ents[i + 1].e.idx == ms->ents[i].e.idx)
			continue;
		ms->ents[j++] = ms->ents[i];
	}
	ms->nents = j;
	sc_sort(ms->binds, ms->nbinds, sizeof(*ms->binds), cmp_bind_tmp);
	im->entries = sc_xcalloc(ms->nbinds ? ms->nbinds : 1, sizeof(*im->entries));
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

	sc_sort(ms->thrs, ms->nthrs, sizeof(*ms->thrs), cmp_thr_tmp);
	im->threads = sc_xcalloc(ms->nthrs, sizeof(*im->threads));
	for (i = 0; i < ms->nthrs; i++) {
		if (i + 1 < ms->nthrs && ms->thrs[i + 1].t.seq == ms->thrs[i].t.seq)
			continue;
		im->threads[im->nthreads++] = ms->thrs[i].t;
	}
}

const struct sc_object *sc_image_object(const struct sc_image *im, uint32_t id)
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

/*
 * The thread of `seq`: one of the image's first `nmeta` threads (those its
 * .meta declared, sorted by seq), or a new one appended for a thread known
 * from its .thr file only. File names are canonical (parse_u32), so no
 * two .thr files of an image share a seq.
 */
static struct sc_thread *declared_thread(struct sc_image *im, size_t nmeta, uint32_t seq)
{
	size_t lo = 0, hi = nmeta;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (im->threads[mid].seq == seq)
			return &im->threads[mid];
		if (im->threads[mid].seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * Whether the image's .meta declared thread `seq` (SC_M_THREAD): then its
 * .thr file is the process's own whoever owns it. The runtime creates
 * each thread's file new (O_EXCL, taking the next number when a name is
 * already there) before it declares the thread, and in a directory open
 * to all (sticky) no one else can replace it: a server that dropped root
 * makes its threads' files as its new user, and they count.
 */
static int thread_declared(struct sc_image *im, size_t nmeta, uint32_t seq)
{
	return declared_thread(im, nmeta, seq) != NULL;
}

static struct sc_thread *thread_by_seq(struct sc_image *im, size_t nmeta, uint32_t seq,
				       size_t *cap)
{
	struct sc_thread *t = declared_thread(im, nmeta, seq);

	if (t)
		return t;
	im->threads = sc_grow(im->threads, cap, im->nthreads + 1, sizeof(*im->threads));
	t = &im->threads[im->nthreads++];
	memset(t, 0, sizeof(*t));
	t->seq = seq;
	t->routine_obj = UINT32_MAX;
	return t;
}

/* A sampled record: its times are estimates, not sums of every call. */
/* A record of a version before FORMAT_HIST29, read as it is into rec from
 * raw: its 32 buckets (at SC_REC_HIST_V6_OFF) go to today's, old bucket b
 * into max(b - SC_REC_HIST_SHIFT_V6, 0), which holds exactly its calls
 * (format.h); the words that held span and its padding (now dup_ticks),
 * and the histogram's tail (now span and wself_preempt), are zero. */
static void rec_from_v6(struct sc_rec *rec, const unsigned char *raw)
{
	uint32_t old[SC_REC_HIST_V6];

	memcpy(old, raw + SC_REC_HIST_V6_OFF, sizeof(old));
	memset(rec->hist, 0, sizeof(rec->hist));
	for (int b = 0; b < SC_REC_HIST_V6; b++) {
		int to = b < SC_REC_HIST_SHIFT_V6 ? 0 : b - SC_REC_HIST_SHIFT_V6;
		uint32_t *h = &rec->hist[to];

		*h = *h + old[b] < *h ? UINT32_MAX : *h + old[b];
	}
	rec->dup_ticks = rec->wself_preempt = 0;
	rec->span = 0;
}

static int rec_sampled(const struct sc_rec *rec)
{
	return rec->timed < rec->count;
}

/*
 * A measured thread's time off the CPU and blocked is known exactly: each
 * gap is given to the timed call in flight (rblocked, wblocked) or, with
 * none in flight, counted in off_untimed. A record's sampled blocked time
 * (wblocked scaled to its count) less what its timed calls were seen
 * blocked (rblocked) is its estimate of the time blocked in its calls let
 * through untimed; off_untimed is the true sum of those, spread over all
 * the thread's records. The estimates of every record are scaled
 * together to that sum (calibration: the sampling only splits it), by the
 * factor this returns (1 where nothing is known or nothing to scale).
 *
 * Why: the timed calls are not a fair sample of the blocked ones. Timing a
 * call lengthens it and the code around it by tens of ns, which moves when
 * threads contending on a lock find it taken: on 4 threads contending on
 * one mutex, the timed lock calls were seen blocked 15 % less than the
 * calls let through in some runs (1 % more in others), and the estimate
 * of the lock's time was that much low. Preempted time is left to the
 * sampling: a preemption can fall anywhere, also in the program's own
 * code, while a thread blocks only in a system call, i.e. (nearly always)
 * inside a call to a library.
 */
static long double off_fit(const struct sc_thread *t, const struct sc_rec *recs, size_t n,
			   uint64_t ovh_ticks)
{
	long double incl, self, attr, block, blocked, preempt, kernel, untimed = 0;
	size_t i;

	if (!t->off_split)
		return 1;
	for (i = 0; i < n; i++) {
		sc_estimate(&recs[i], ovh_ticks, &incl, &self, &attr, &block);
		sc_estimate_perf(&recs[i], incl, &blocked, &preempt, &kernel);
		if (blocked > (long double)recs[i].rblocked)
			untimed += blocked - (long double)recs[i].rblocked;
	}
	return untimed > 0 ? (long double)t->off_untimed / untimed : 1;
}

/* Record rec's estimates (sc_estimate, sc_estimate_perf) with its blocked
 * time calibrated by off_fit's factor c: the difference is blocked time,
 * so it moves its inclusive and exclusive times alike. */
static void rec_times(const struct sc_thread *t, const struct sc_rec *rec, uint64_t ovh_ticks,
		      long double c, long double *incl, long double *self, long double *attr,
		      long double *block, long double *blocked, long double *preempt,
		      long double *kernel)
{
	long double raw = (long double)rec->rblocked, d;

	sc_estimate(rec, ovh_ticks, incl, self, attr, block);
	*blocked = *preempt = *kernel = 0;
	if (t->perf_kind == SC_PERF_NONE)
		return;
	sc_estimate_perf(rec, *incl, blocked, preempt, kernel);
	if (!t->off_split || c == 1 || *blocked <= raw)
		return;
	d = (c - 1) * (*blocked - raw);
	*incl += d;
	*self += d;
	*blocked += d;
}

/*
 * A thread's calls took no longer than the thread ran. Each record's
 * estimate is unbiased, but a sampled one carries sampling noise, and
 * where calls fill nearly all of a thread's time (threads contending on
 * one lock) the noise alone could put the calls' exclusive times past
 * the thread's, leaving its code a negative self time. So when the
 * exclusive times of a finished thread's n records add up to more than
 * its wall time, its sampled records' estimates are scaled down together
 * until they fit beside the exact ones: the factor this returns (1 when
 * they fit, or for a thread still running, whose end is not known yet).
 */
static long double thread_fit(const struct sc_thread *t, const struct sc_rec *recs, size_t n,
			      uint64_t ovh_ticks, long double c)
{
	long double exact = 0, sampled = 0, incl, self, attr, block, room, b, p, k;
	size_t i;

	if (!t->end_tsc || t->end_tsc <= t->start_tsc)
		return 1;
	for (i = 0; i < n; i++) {
		rec_times(t, &recs[i], ovh_ticks, c, &incl, &self, &attr, &block, &b, &p, &k);
		if (rec_sampled(&recs[i]))
			sampled += self;
		else
			exact += self;
	}
	room = (long double)(t->end_tsc - t->start_tsc) - exact;
	if (sampled <= 0 || exact + sampled <= (long double)(t->end_tsc - t->start_tsc))
		return 1;
	return room > 0 ? room / sampled : 0;
}

/* Fold one counter record of thread t into entry ei of im, a sampled
 * one's estimates scaled by fit (thread_fit), its blocked time by c
 * (off_fit). */
static void fold_record(struct sc_image *im, struct sc_thread *t, size_t ei,
			const struct sc_rec *rec, uint64_t ovh_ticks, long double c, long double fit)
{
	struct sc_entry *e = &im->entries[ei];
	long double incl, self, attr, block, scale;
	long double blocked = 0, preempt = 0, kernel = 0;
	int b, measured = t->perf_kind != SC_PERF_NONE;

	rec_times(t, rec, ovh_ticks, c, &incl, &self, &attr, &block, &blocked, &preempt, &kernel);
	if (fit < 1 && rec_sampled(rec)) {
		incl *= fit;
		self *= fit;
		attr *= fit;
		block *= fit;
		blocked *= fit;
		preempt *= fit;
		kernel *= fit;
	}
	if (measured) {
		e->blocked_ticks += blocked;
		e->preempt_ticks += preempt;
		e->self_preempt_ticks += sc_estimate_self_preempt(rec, incl, self);
		e->kernel_ticks += kernel;
		t->preempt_ticks += preempt;
	}
	e->count = sc_addu_sat(e->count, rec->count);
	e->timed = sc_addu_sat(e->timed, rec->timed);
	t->calls = sc_addu_sat(t->calls, rec->count);
	if (sc_api_rendezvous(e->api) == SC_RENDEZVOUS_BARRIER)
		t->barrier_calls = sc_addu_sat(t->barrier_calls, rec->count);
	e->est_ticks += incl;
	e->self_ticks += self;
	e->dup_ticks += sc_estimate_dup(rec, incl);
	e->attr_ticks += attr;
	if (!(e->flags & SC_ENT_WAIT)) {
		t->calls_ticks += incl;
		t->calls_attr += attr;
	}
	if (rec->max_ticks > e->max_ticks)
		e->max_ticks = rec->max_ticks;
	if (im->hdr.version >= FORMAT_MAX_TSC && rec->max_tsc && rec->max_ticks) {
		/* grown at powers of two */
		if (!(im->nlongest & (im->nlongest - 1)))
			im->longest = sc_xrealloc(im->longest, (im->nlongest ? 2 * im->nlongest : 1) *
						  sizeof(*im->longest));
		im->longest[im->nlongest++] = (struct sc_longest){
			t->seq, (uint32_t)ei, rec->max_tsc, rec->max_ticks };
	}
	/* the histogram holds weighted timed calls: scale it to the exact
	 * count, as the estimator does the time */
	scale = rec->wcount > 0 ? (long double)rec->count / (long double)rec->wcount : 0;
	for (b = 0; b < SC_REC_HIST; b++)
		e->hist[b] += (long double)rec->hist[b] * scale;
	/*
	 * Wait: the time blocked where the kernel told it, else guessed from
	 * the API's name. The parallel clock still leaves a thread in a
	 * Wait API by its name (the runtime's choice): its wait_p stays.
	 */
	if (e->flags & SC_ENT_WAIT) {
		t->wait_ticks += measured ? blocked : incl;
		/* exact: Wait APIs are always timed */
		t->wait_p += (long double)rec->wpticks;
		e->block_ticks += measured ? blocked : incl;
	} else if (measured) {
		t->wait_ticks += blocked;
		e->block_ticks += blocked;
		/* an earlier runtime left the time off-CPU in wpticks */
		if (incl > 0 && !t->on_cpu)
			e->attr_ticks -= attr * blocked / incl;
	} else if (e->flags & SC_ENT_MAYBLOCK) {
		t->wait_ticks += block;
		e->block_ticks += block;
		/* its thread stayed on the parallel clock while blocked: keep
		 * only the unblocked share */
		if (incl > 0)
			e->attr_ticks -= attr * block / incl;
	}
}

/* Fold thread t's n records (recs, of entries recei) into im, fitted to
 * the thread's time, and free both arrays. */
static void fold_thread(struct sc_image *im, struct sc_thread *t, struct sc_rec *recs,
			size_t *recei, size_t n, uint64_t ovh_ticks)
{
	long double c = off_fit(t, recs, n, ovh_ticks);
	long double fit = thread_fit(t, recs, n, ovh_ticks, c);
	size_t i;

	for (i = 0; i < n; i++)
		fold_record(im, t, recei[i], &recs[i], ovh_ticks, c, fit);
	free(recs);
	free(recei);
}

/* ---- .thr ------------------------------------------------------------- */

/* Read one .thr file into im (its thread, and its records into im's
 * entries). Returns 0, or -1 with the reason in why. */
static int load_thr(struct sc_image *im, int dirfd, uid_t dir_uid, const struct dirfile *f,
		    size_t nmeta, size_t *thrcap, char *why, size_t whylen)
{
	struct sc_thr_header h;
	struct stat st;
	struct sc_thread *t;
	unsigned char *chunk;
	size_t ei = 0, chunk_recs, nread = 0, readcap = 0;
	struct sc_rec *recs = NULL;     /* the thread's records with calls */
	size_t *recei = NULL;           /* and their entries */
	uint64_t nrecs;
	static const char zero_magic[8];
	uint64_t ovh_ticks = 0;
	ssize_t r;
	int fd = open_trusted(dirfd, dir_uid, f->name, thread_declared(im, nmeta, f->seq),
			      &st, why, whylen);

	if (fd < 0)
		return -1;
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
	if (r < 0) {
		seterr(why, whylen, "cannot read: %s", strerror(errno));
		close(fd);
		return -1;
	}
	if (r == (ssize_t)sizeof(h) && memcmp(h.magic, zero_magic, 8) == 0) {
		close(fd);
		return 0;
	}
	if (r < (ssize_t)sizeof(h.magic) || memcmp(h.magic, SC_THR_MAGIC, 8) != 0) {
		seterr(why, whylen, "bad magic");
		close(fd);
		return -1;
	}
	if (r >= (ssize_t)(sizeof(h.magic) + sizeof(h.version)) &&
	    bad_version(why, whylen, h.version)) {
		close(fd);
		return -1;
	}
	if (r < (ssize_t)sizeof(h) || (uint64_t)st.st_size < SC_THR_HEADER_SIZE) {
		seterr(why, whylen, "truncated header");
		close(fd);
		return -1;
	}
	if (h.rec_size < sizeof(struct sc_rec) || h.rec_size > (1u << 20)) {
		seterr(why, whylen, "record size %u, this scaler reads %zu", h.rec_size,
		       sizeof(struct sc_rec));
		close(fd);
		return -1;
	}
	/* the record count is a property of the file, not of its header */
	nrecs = ((uint64_t)st.st_size - SC_THR_HEADER_SIZE) / h.rec_size;

	/* the file name's seq is authoritative: it is unique by construction */
	t = thread_by_seq(im, nmeta, f->seq, thrcap);
	t->has_file = 1;
	t->nrecs = nrecs;
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
	t->paused_ticks = h.paused_ticks;
	t->paused_p = h.paused_p;
	/* of its whole life: not once counting was paused or reset */
	t->has_cpu = h.cpu_end_ns && h.cpu_end_ns >= h.cpu_start_ns && !h.paused_ticks &&
		     !h.ctl_seq && !h.ctl_want;
	/* a crafted span over INT64_MAX saturates: never a negative time */
	t->cpu_ns = !t->has_cpu ? 0 : h.cpu_end_ns - h.cpu_start_ns > (uint64_t)INT64_MAX
		    ? INT64_MAX : (int64_t)(h.cpu_end_ns - h.cpu_start_ns);
	if (h.ctl_want > h.ctl_seq && !h.end_tsc) {
		/* a reset asked while it slept and not carried out yet: it has
		 * counted nothing since (format.h). Its paused time stays: a
		 * pause since the request (a snapshot adds the one in force)
		 * is not its time either; the part before, which the reset
		 * would have dropped, cannot be told apart, and the wall's
		 * clamp (below) keeps what is taken off within the time
		 * since the request */
		if (h.ctl_want_tsc > t->start_tsc)
			t->start_tsc = h.ctl_want_tsc;
		nrecs = 0;
	}
	if (h.version >= FORMAT_PERF && h.perf_kind <= SC_PERF_KERNEL) {
		t->perf_kind = h.perf_kind;
		t->perf_lost = h.perf_lost;
		t->off_split = h.perf_kind != SC_PERF_NONE && (h.perf_flags & SC_PERF_F_UNTIMED);
		t->off_untimed = h.off_untimed;
		t->on_cpu = h.perf_kind != SC_PERF_NONE && (h.perf_flags & SC_PERF_F_ONCPU);
		t->off_p = h.off_p;
	}
	if (im->ovh_unknown) {
		ovh_ticks = im->hdr.overhead_ticks;     /* see sc_profile_load */
	} else if (h.ovh_n) {
		if (!im->ovh_n || h.ovh_min < im->ovh_min)
			im->ovh_min = h.ovh_min;
		if (h.ovh_max > im->ovh_max)
			im->ovh_max = h.ovh_max;
		im->ovh_sum = sc_addu_sat(im->ovh_sum, h.ovh_sum);
		im->ovh_n = sc_addu_sat(im->ovh_n, h.ovh_n);
	}

	/*
	 * Record i counts calls through the entry of idx i; entries are
	 * sorted by idx. Only the records of entries are read, in chunks
	 * that start at the next entry's record: entries far apart (a made-up
	 * bind near 2^32 in a sparse file) cost a read each, not a read of
	 * everything between. Entries at or past the file's records had no
	 * calls in this thread; a record cut off by the end of the file
	 * (shrunk while we read) is not read.
	 */
	chunk_recs = THR_CHUNK / h.rec_size ? THR_CHUNK / h.rec_size : 1;
	if (chunk_recs > nrecs)
		chunk_recs = nrecs ? nrecs : 1;
	chunk = sc_xrealloc(NULL, chunk_recs * h.rec_size);
	while (ei < im->nentries && im->entries[ei].idx < nrecs) {
		uint64_t first = im->entries[ei].idx, want = nrecs - first, n;
		off_t pos = (off_t)(SC_THR_HEADER_SIZE + first * h.rec_size);
		size_t got = 0;

		if (want > chunk_recs)
			want = chunk_recs;
		while (got < want * h.rec_size) {
			r = pread(fd, chunk + got, want * h.rec_size - got, pos + (off_t)got);
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0) {
				seterr(why, whylen, "cannot read at byte %llu: %s (the calls "
				       "before it are counted)",
				       (unsigned long long)pos + got, strerror(errno));
				free(chunk);
				close(fd);
				fold_thread(im, t, recs, recei, nread, ovh_ticks);
				return -1;
			}
			if (r == 0)
				break;
			got += (size_t)r;
		}
		n = got / h.rec_size;
		for (; ei < im->nentries && im->entries[ei].idx < first + n; ei++) {
			struct sc_rec rec;

			const unsigned char *raw = chunk + (im->entries[ei].idx - first) * h.rec_size;

			memcpy(&rec, raw, sizeof(rec));
			if (!rec.count)
				continue;
			if (h.version < FORMAT_HIST29)
				rec_from_v6(&rec, raw);
			if (nread == readcap) {
				readcap = readcap ? 2 * readcap : 64;
				recs = sc_xrealloc(recs, readcap * sizeof(*recs));
				recei = sc_xrealloc(recei, readcap * sizeof(*recei));
			}
			recs[nread] = rec;
			recei[nread++] = ei;
		}
		if (n < want)
			break;
	}
	free(chunk);
	close(fd);
	fold_thread(im, t, recs, recei, nread, ovh_ticks);
	return 0;
}

/* Read one .args file (--args) into im's entries, trusted as its .thr
 * file is. Returns 0, or -1 with the reason in why. */
static int load_args(struct sc_profile *p, struct sc_image *im, int dirfd, uid_t dir_uid,
		     const struct dirfile *f, size_t nmeta, char *why, size_t whylen)
{
	struct stat st;
	int fd = open_trusted(dirfd, dir_uid, f->name, thread_declared(im, nmeta, f->seq),
			      &st, why, whylen);
	if (fd < 0)
		return -1;
	int r = sc_profile_load_args(p, im, fd, why, whylen);
	close(fd);
	return r;
}

const char *sc_object_name(struct sc_profile *p, const struct sc_image *im, uint32_t id)
{
	const struct sc_object *o = sc_image_object(im, id);
	char buf[32];

	if (o)
		return o->name;
	snprintf(buf, sizeof(buf), "[object %u]", id);
	return pool_strdup(p, buf);
}

/* The figures derived from one image's raw records: its clock rate, wall
 * time and exit status, its threads' times, its entries' times in ns. */
static void finish_image(struct sc_image *im)
{
	uint64_t max_tsc = im->hdr.start_tsc, end_tsc;
	size_t i, nmeasured = 0, nguessed = 0;

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
		im->wall_ns = sc_u64_ns(im->exit.wall_ns);
	else if (im->has_end && im->end.end_mono_ns > im->hdr.start_mono_ns)
		im->wall_ns = sc_u64_ns(im->end.end_mono_ns - im->hdr.start_mono_ns);
	if (im->has_exit)
		im->exit_status = im->exit.exit_status;
	else if (im->has_end && (im->end.how == SC_END_EXIT || im->end.how == SC_END_SIGNAL))
		im->exit_status = im->end.status;
	else
		im->exit_status = -1;
	im->incomplete = !im->has_end && !im->has_exit;
	if (im->ovh_n) {
		im->ovh_mean_ns = sc_round_ns(sc_ticks_to_ns(im->tsc_hz, (long double)im->ovh_sum / im->ovh_n));
		im->ovh_min_ns = sc_round_ns(sc_ticks_to_ns(im->tsc_hz, (long double)im->ovh_min));
		im->ovh_max_ns = sc_round_ns(sc_ticks_to_ns(im->tsc_hz, (long double)im->ovh_max));
	}

	/* Threads: wall time, with the image's end as the fallback end. */
	for (i = 0; i < im->nthreads; i++) {
		const struct sc_thread *t = &im->threads[i];

		if (!t->has_file)
			continue;
		/* Wait measured on every thread, on none, or on some */
		if (t->perf_kind == SC_PERF_KERNEL)
			im->kernel_sampled = 1;
		if (t->perf_kind != SC_PERF_NONE)
			nmeasured++;
		else
			nguessed++;
		if (t->start_tsc > max_tsc)
			max_tsc = t->start_tsc;
		if (t->end_tsc > max_tsc)
			max_tsc = t->end_tsc;
		if (t->last_tsc > max_tsc)      /* latest timed return */
			max_tsc = t->last_tsc;
	}
	im->wait_source = !nmeasured ? SC_WAIT_NAMES : nguessed ? SC_WAIT_MIXED : SC_WAIT_MEASURED;
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
	for (i = 0; i < im->nthreads; i++) {
		struct sc_thread *t = &im->threads[i];
		uint64_t end = t->end_tsc ? t->end_tsc : end_tsc;

		if (t->seq == 0)
			t->obj = 0;
		else if (t->routine_obj != UINT32_MAX && sc_image_object(im, t->routine_obj))
			t->obj = t->routine_obj;
		else
			t->obj = 0;
		t->wall_ticks = t->has_file && end > t->start_tsc ? end - t->start_tsc : 0;
		/* paused, nothing was counted: that time is nobody's */
		t->wall_ticks -= t->paused_ticks < t->wall_ticks ? t->paused_ticks : t->wall_ticks;
		t->wall_ns = sc_round_ns(sc_ticks_to_ns(im->tsc_hz, (long double)t->wall_ticks));
		t->wait_ns = im->timing_mode == SC_TIMING_NONE ? 0
			     : sc_round_ns(sc_ticks_to_ns(im->tsc_hz, t->wait_ticks));
		if (t->wait_ns > t->wall_ns)
			t->wait_ns = t->wall_ns;
		t->preempt_ns = sc_round_ns(sc_ticks_to_ns(im->tsc_hz, t->preempt_ticks));
		if (t->preempt_ns > t->wall_ns - t->wait_ns)
			t->preempt_ns = t->wall_ns - t->wait_ns;
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
				a -= t->wait_p + (long double)t->paused_p + (long double)t->off_p;
				t->attr_ns = sc_round_ns(sc_ticks_to_ns(im->tsc_hz, a));
			} else {
				a = t->calls_ticks > 0 ? t->calls_attr / t->calls_ticks : 1;
				t->attr_ns = sc_round_ns((long double)(t->wall_ns - t->wait_ns) * a);
			}
			if (t->attr_ns > t->wall_ns - t->wait_ns)
				t->attr_ns = t->wall_ns - t->wait_ns;
			if (t->attr_ns < 0)
				t->attr_ns = 0;
		}
		if (!t->routine)
			t->routine = "";
	}

	/* Entries: estimated ticks to ns. */
	for (i = 0; i < im->nentries; i++) {
		struct sc_entry *e = &im->entries[i];

		if (im->timing_mode == SC_TIMING_NONE) {
			e->total_ns = e->self_ns = e->dup_ns = 0;
		} else {
			e->total_ns = sc_ticks_to_ns(im->tsc_hz, e->est_ticks);
			e->self_ns = sc_ticks_to_ns(im->tsc_hz, e->self_ticks);
			e->dup_ns = sc_ticks_to_ns(im->tsc_hz, e->dup_ticks);
		}
	}
}

/* The whole profile's timing mode and wall time. */
static void finish_profile(struct sc_profile *p)
{
	size_t i;

	p->timing_mode = p->nimages ? p->images[0].timing_mode : SC_TIMING_ADAPTIVE;
	for (i = 0; i < p->nimages; i++) {
		const struct sc_image *im = &p->images[i];

		if (im->timing_mode != p->timing_mode)
			p->timing_mode = SC_TIMING_MIXED;
		if (im->wall_ns > p->wall_ns)
			p->wall_ns = im->wall_ns;
	}
}

/* ---- entry points ----------------------------------------------------- */

static int cmp_skipped(const void *a, const void *b)
{
	return strcmp(((const struct sc_skipped_file *)a)->file, ((const struct sc_skipped_file *)b)->file);
}

static int cmp_thread_seq(const void *a, const void *b)
{
	const struct sc_thread *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void image_free(struct sc_image *im)
{
	sc_profile_args_free(im);
	free(im->argv);
	free(im->objects);
	for (size_t i = 0; i < im->nentries; i++) {
		free(im->entries[i].kfuncs);
		free(im->entries[i].okfuncs);
	}
	free(im->entries);
	free(im->threads);
	free(im->longest);
	free(im->skipped);
}

/*
 * The kernel stacks of im's threads that sampled them (record --kernel):
 * each thread's .kst file, and its .kso file where it had the
 * sched_switch tracepoint, named from the profile's kallsyms file. Either
 * missing or untrusted: the entries' kernel and blocked time stays,
 * without functions.
 */
static void load_kstacks(struct sc_profile *p, struct sc_image *im, int dfd, uid_t dir_uid,
			 size_t nmeta)
{
	struct sc_ksyms *ks = NULL;
	struct sc_kst_acc *acc;
	struct stat st;
	char name[64], why[256];
	size_t i;
	int fd;

	for (i = 0; i < im->nthreads && im->threads[i].perf_kind != SC_PERF_KERNEL; i++)
		;
	if (i == im->nthreads)
		return;
	fd = open_trusted(dfd, dir_uid, SC_KSYMS_FILE, 0, &st, why, sizeof(why));
	if (fd >= 0) {
		ks = sc_ksyms_read(fd);
		close(fd);
	}
	for (int off = 0; off < 2; off++) {
		acc = sc_kst_acc_new(im->nentries, off);
		for (i = 0; i < im->nthreads; i++) {
			const struct sc_thread *t = &im->threads[i];

			if (t->perf_kind != SC_PERF_KERNEL)
				continue;
			snprintf(name, sizeof(name), "p%u-%u-t%u.%s", im->pid, im->gen, t->seq,
				 off ? "kso" : "kst");
			fd = open_trusted(dfd, dir_uid, name, thread_declared(im, nmeta, t->seq), &st,
					  why, sizeof(why));
			if (fd < 0)
				continue;
			if (sc_kst_fold(acc, p, im, fd, ks) < 0)
				skip_file(p, name, "not a kernel stack table");
			close(fd);
		}
		sc_kst_finish(acc, im);
	}
	sc_ksyms_free(ks);
}

/*
 * Load the image of files[i] (a .meta) and its .thr files after it in
 * files[] (up to *next). Returns 1 if it was loaded into out->images, 0
 * if it had nothing to report (an empty .meta: the image died before its
 * header), -1 if its .meta was skipped (then so were its .thr files).
 */
static int load_image(struct sc_profile *out, struct parents *ps, size_t i, size_t *next,
		      size_t *capimg)
{
	const struct dirfile *files = ps->files;
	size_t nfiles = ps->nfiles;
	int dfd = ps->dirfd;
	uid_t dir_uid = ps->dir_uid;
	struct sc_image *im;
	struct meta_state ms;
	unsigned char *buf;
	size_t size, thrcap, nmeta, k, end;
	char why[512];
	int r;

	for (end = i + 1; end < nfiles && !files[end].is_meta && files[end].pid == files[i].pid &&
	     files[end].gen == files[i].gen; end++)
		;
	*next = end;
	if (read_meta_file(dfd, dir_uid, files[i].name, &buf, &size, why, sizeof(why)) < 0)
		goto skip;
	append_continuations(dfd, dir_uid, &files[i], &buf, &size);
	inherit_records(ps, out, i, &buf, &size);
	if (size == 0) {
		/*
		 * The runtime creates the file before it has calibrated the
		 * clock for the header: an image that died in between left
		 * nothing to report (its .thr files are left too).
		 */
		free(buf);
		return 0;
	}
	out->images = sc_grow(out->images, capimg, out->nimages + 1, sizeof(*out->images));
	im = &out->images[out->nimages];
	memset(im, 0, sizeof(*im));
	im->meta_file = files[i].name;
	im->exit_status = -1;
	memset(&ms, 0, sizeof(ms));
	r = load_meta(out, im, &ms, buf, size, why, sizeof(why));
	if (r == 0)
		finish_meta(im, &ms);
	free(buf);
	free(ms.objs);
	free(ms.ents);
	free(ms.thrs);
	free(ms.unl);
	free(ms.binds);
	if (r < 0) {
		image_free(im);
		goto skip;
	}
	out->nimages++;
	/*
	 * A format 3 runtime neither measured its cost per thread (the
	 * thread header's ovh_* bytes were reserved) nor took it off the
	 * calls it timed: the figures are unknown, and load_thr takes the
	 * start-up figure off every call, as the reader of that format did.
	 */
	im->ovh_unknown = im->hdr.version < FORMAT_OVH_PER_THREAD;
	/* the file name is authoritative for the image key */
	im->pid = files[i].pid;
	im->gen = files[i].gen;
	thrcap = nmeta = im->nthreads;
	for (k = i + 1; k < end; k++)
		if ((files[k].is_args ? load_args(out, im, dfd, dir_uid, &files[k], nmeta, why,
						  sizeof(why))
				      : load_thr(im, dfd, dir_uid, &files[k], nmeta, &thrcap, why,
						 sizeof(why))) < 0)
			skip_file(out, files[k].name, "%s", why);
	sc_profile_args_finish(im);
	/* threads known from .thr only were appended: back in seq order */
	sc_sort(im->threads, im->nthreads, sizeof(*im->threads), cmp_thread_seq);
	load_kstacks(out, im, dfd, dir_uid, nmeta);
	finish_image(im);
	return 1;
skip:
	skip_file(out, files[i].name, "%s", why);
	for (k = i + 1; k < end; k++)
		skip_file(out, files[k].name, "its process's %s was skipped", files[i].name);
	return -1;
}

/* Adds the SC_M_UID records of one .meta's bytes to *out. */
static void meta_uids(const unsigned char *buf, size_t size, uint32_t **out, size_t *n,
		      size_t *cap)
{
	struct sc_meta_header h;
	size_t off;

	if (size < sizeof(h))
		return;
	memcpy(&h, buf, sizeof(h));
	if (memcmp(h.magic, SC_META_MAGIC, 8) != 0 || h.header_size < sizeof(h) ||
	    h.header_size > size)
		return;
	for (off = h.header_size; size - off >= sizeof(struct sc_meta_rec);) {
		struct sc_meta_rec r;
		struct sc_m_uid u;

		memcpy(&r, buf + off, sizeof(r));
		if (r.len > size - off - sizeof(r))
			break;
		if (r.type == SC_M_UID && r.len >= sizeof(u)) {
			memcpy(&u, buf + off + sizeof(r), sizeof(u));
			*out = sc_grow(*out, cap, *n + 1, sizeof(**out));
			(*out)[(*n)++] = u.uid;
		}
		off += sizeof(r) + (((size_t)r.len + 7) & ~(size_t)7);
		if (off > size)
			break;
	}
}

size_t sc_profile_run_uids(int dirfd, uid_t dir_uid, uint32_t **out)
{
	DIR *d;
	struct dirent *de;
	size_t n = 0, cap = 0;
	int fd = dup(dirfd);

	*out = NULL;
	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	rewinddir(d);           /* the offset is dirfd's */
	while ((de = readdir(d)) != NULL) {
		struct dirfile f;
		unsigned char *buf;
		size_t size;
		char why[256];

		if (!parse_name(de->d_name, &f) || !f.is_meta)
			continue;
		/* only a file of the directory's owner or root declares */
		if (read_meta_file(dirfd, dir_uid, de->d_name, &buf, &size, why, sizeof(why)) < 0)
			continue;
		meta_uids(buf, size, out, &n, &cap);
		free(buf);
	}
	closedir(d);
	return n;
}

int sc_profile_load(const char *dir, struct sc_profile *out, char *err, size_t errlen)
{
	DIR *d;
	struct dirent *de;
	struct dirfile *files = NULL;
	struct parents ps = {0};
	struct stat dst;
	size_t nfiles = 0, capfiles = 0, nmeta = 0, i, next, capimg = 0;
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
	if (fstat(dfd, &dst) < 0) {
		seterr(err, errlen, "cannot read %s: %s", dir, strerror(errno));
		goto out;
	}
	errno = 0;
	while ((de = readdir(d)) != NULL) {
		struct dirfile f;

		if (!parse_name(de->d_name, &f))
			continue;
		f.name = (char *)pool_strdup(out, de->d_name);
		files = sc_grow(files, &capfiles, nfiles + 1, sizeof(*files));
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
	sc_sort(files, nfiles, sizeof(*files), cmp_dirfile);

	/* declared before use: read strictly (run_uids empty) */
	nrun_uids = sc_profile_run_uids(dfd, dst.st_uid, &run_uids);
	ps = (struct parents){files, nfiles, sc_xcalloc(nfiles, sizeof(*ps.pf)), dfd, dst.st_uid};
	for (i = 0; i < nfiles; i = next) {
		if (files[i].is_meta) {
			load_image(out, &ps, i, &next, &capimg);
			continue;
		}
		skip_file(out, files[i].name, "no p%u-%u.meta beside it", files[i].pid,
			  files[i].gen);
		next = i + 1;
	}
	if (out->nimages == 0 && out->nskipped_files) {
		seterr(err, errlen, "%s/%s: %s%s", dir, out->skipped_files[0].file,
		       out->skipped_files[0].reason,
		       out->nskipped_files > 1 ? " (and other files skipped: nothing to report)" : "");
		goto out;
	}
	sc_sort(out->skipped_files, out->nskipped_files, sizeof(*out->skipped_files), cmp_skipped);
	finish_profile(out);
	rc = 0;
out:
	for (i = 0; ps.pf && i < nfiles; i++)
		free(ps.pf[i].raw);
	free(ps.pf);
	closedir(d);
	free(files);
	free(run_uids);
	run_uids = NULL;
	nrun_uids = 0;
	return rc;
}

void sc_profile_free(struct sc_profile *p)
{
	struct strblock *b, *next;
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nimages; i++)
		image_free(&p->images[i]);
	free(p->images);
	free(p->skipped_files);
	for (b = p->strings_; b; b = next) {
		next = b->next;
		free(b);
	}
	memset(p, 0, sizeof(*p));
}
