/*
 * profile_args.c - the reader of .args files (format.h, scaler record
 * --args): each record's value histograms are added to its entry's
 * distributions (profile.h: sc_entry.args), then scaled to the entry's
 * exact call count once every thread is read. profile.c opens the file
 * (the same trust rules as a .thr file) and calls in here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile.h"
#include "profile_args.h"
#include "xalloc.h"

/* The largest .args file read: the runtime's is a fixed size, far below */
#define ARGS_FILE_MAX (16u << 20)

static struct sc_entry *entry_of(struct sc_image *im, uint32_t idx)
{
	size_t lo = 0, hi = im->nentries;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (im->entries[mid].idx == idx)
			return &im->entries[mid];
		if (im->entries[mid].idx < idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static void fold(struct sc_profile *p, struct sc_entry *e, const struct sc_args_rec *r)
{
	uint32_t n = r->nval < SC_ARGS_NVAL ? r->nval : SC_ARGS_NVAL;
	struct sc_argdist d[SC_ARGS_NVAL];
	for (uint32_t i = 0; i < n; i++) {
		const struct sc_args_val *v = &r->v[i];
		char name[SC_ARGS_NAME + 1];
		memcpy(name, r->name[i], SC_ARGS_NAME);
		name[SC_ARGS_NAME] = '\0';
		memset(&d[i], 0, sizeof(d[i]));
		d[i].name = sc_profile_strdup(p, name[0] ? name : "?");
		d[i].flags = r->flags[i] & (SC_ARGV_SIGNED | SC_ARGV_DISTINCT | SC_ARGV_ERRNO);
		d[i].seen = v->n;
		d[i].min = v->min;
		d[i].max = v->max;
		d[i].calls = (long double)v->w;
		d[i].sum = (long double)v->wsum;
		d[i].neg = (long double)v->wneg;
		if (d[i].flags & SC_ARGV_DISTINCT) {
			d[i].min = d[i].max = 0;
			d[i].sum = d[i].neg = 0;
			d[i].nexact = v->wsum > SC_ARGS_EXACT ? SC_ARGS_EXACT + 1 : (uint32_t)v->wsum;
			memcpy(d[i].exact, v->distinct.exact, sizeof(d[i].exact));
			memcpy(d[i].hll, v->distinct.hll, sizeof(d[i].hll));
		} else if (d[i].flags & SC_ARGV_ERRNO) {
			d[i].min = d[i].max = 0;
			d[i].sum = d[i].neg = 0;
			d[i].err_other = (long double)v->wneg;
			for (uint32_t k = 0; k < SC_ARGS_NERR && v->errs[k].err; k++)
				d[i].errs[d[i].nerr++] = (struct sc_argerr){
					v->errs[k].err, (long double)v->errs[k].w };
		} else {
			for (int b = 0; b < (int)SC_ARGS_NHIST; b++)
				d[i].hist[b] = (long double)v->hist[b];
		}
	}
	sc_argdist_merge(&e->args, &e->nargs, d, n);
}

int sc_profile_load_args(struct sc_profile *p, struct sc_image *im, int fd, char *why,
			 size_t whylen)
{
	struct stat st;
	struct sc_args_header h;
	if (fstat(fd, &st) != 0 || st.st_size == 0)
		return 0;
	if ((uint64_t)st.st_size > ARGS_FILE_MAX || (uint64_t)st.st_size < sizeof(h)) {
		snprintf(why, whylen, "%lld bytes, not an .args file", (long long)st.st_size);
		return -1;
	}
	size_t size = (size_t)st.st_size, got = 0;
	unsigned char *buf = sc_xrealloc(NULL, size);
	while (got < size) {
		ssize_t r = pread(fd, buf + got, size - got, (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	memcpy(&h, buf, got < sizeof(h) ? got : sizeof(h));
	int rc = 0;
	if (got < sizeof(h) || memcmp(h.magic, SC_ARGS_MAGIC, 8) != 0) {
		snprintf(why, whylen, "bad magic");
		rc = -1;
	} else if (h.version < 1 || h.version > SC_ARGS_VERSION ||
		   h.rec_size != sizeof(struct sc_args_rec)) {
		snprintf(why, whylen, ".args version %u (record %u bytes), this scaler reads %u "
			 "(%zu)", h.version, h.rec_size, SC_ARGS_VERSION, sizeof(struct sc_args_rec));
		rc = -1;
	} else {
		size_t nrec = (got - SC_ARGS_HEADER_SIZE) / sizeof(struct sc_args_rec);
		for (size_t i = 0; i < nrec; i++) {
			struct sc_args_rec r;
			memcpy(&r, buf + SC_ARGS_HEADER_SIZE + i * sizeof(r), sizeof(r));
			struct sc_entry *e = r.entry ? entry_of(im, r.entry - 1) : NULL;
			if (e)
				fold(p, e, &r);
		}
	}
	free(buf);
	return rc;
}

void sc_profile_args_finish(struct sc_image *im)
{
	for (size_t i = 0; i < im->nentries; i++) {
		struct sc_entry *e = &im->entries[i];
		for (uint32_t k = 0; k < e->nargs; k++)
			if (e->args[k].calls > 0)
				sc_argdist_scale(&e->args[k],
						 (long double)e->count / e->args[k].calls);
	}
}

void sc_profile_args_free(struct sc_image *im)
{
	for (size_t i = 0; i < im->nentries; i++)
		free(im->entries[i].args);
}
