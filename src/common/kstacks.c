/*
 * kstacks.c - kernel stacks per entry (kstacks.h): the .kst and .kso
 * tables the runtime filled (format.h) read back, each stack's addresses
 * named from the kallsyms file `scaler record --kernel` wrote, and every
 * function on a stack counted once for its samples (.kso: its blocked
 * ns): inclusive time per function.
 */
#include "kstacks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xalloc.h"

struct ksym {
	uint64_t addr;
	char *name;
};

struct sc_ksyms {
	size_t n;
	struct ksym *s;         /* by addr */
};

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

struct sc_ksyms *sc_ksyms_read(int fd)
{
	FILE *f = fdopen(dup(fd), "r");
	struct sc_ksyms *k;
	size_t cap = 0;
	char line[512];

	if (!f)
		return NULL;
	k = sc_xcalloc(1, sizeof(*k));
	while (fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char name[256];

		if (sscanf(line, "%llx %255s", &addr, name) != 2)
			continue;
		k->s = sc_grow(k->s, &cap, k->n + 1, sizeof(*k->s));
		k->s[k->n].addr = addr;
		k->s[k->n].name = sc_xcalloc(1, strlen(name) + 1);
		memcpy(k->s[k->n].name, name, strlen(name));
		k->n++;
	}
	fclose(f);
	if (!k->n) {
		sc_ksyms_free(k);
		return NULL;
	}
	qsort(k->s, k->n, sizeof(*k->s), cmp_ksym);
	return k;
}

void sc_ksyms_free(struct sc_ksyms *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->n; i++)
		free(k->s[i].name);
	free(k->s);
	free(k);
}

const char *sc_ksyms_name(struct sc_profile *p, const struct sc_ksyms *k, uint64_t ip)
{
	char buf[32];

	if (k) {
		struct ksym key = {ip, NULL}, *hit = bsearch(&key, k->s, k->n, sizeof(*k->s),
							     cmp_ksym);
		if (hit)
			return sc_profile_strdup(p, hit->name);
	}
	snprintf(buf, sizeof(buf), "%#llx", (unsigned long long)ip);
	return sc_profile_strdup(p, buf);
}

/* ---- folding ---------------------------------------------------------- */

struct fn_count {
	const char *name;
	uint64_t samples;
};

struct entry_acc {
	uint64_t samples;       /* of its stacks */
	size_t n, cap;
	struct fn_count *fn;
};

struct sc_kst_acc {
	int off;                /* .kso: blocked ns, not samples */
	size_t n;
	struct entry_acc *e;    /* by position in the image's entries */
};

struct sc_kst_acc *sc_kst_acc_new(size_t nentries, int off)
{
	struct sc_kst_acc *a = sc_xcalloc(1, sizeof(*a));

	a->off = off;
	a->n = nentries;
	a->e = sc_xcalloc(nentries ? nentries : 1, sizeof(*a->e));
	return a;
}

/* Position of the entry of index idx in im's entries (sorted by idx). */
static long entry_pos(const struct sc_image *im, uint32_t idx)
{
	size_t lo = 0, hi = im->nentries;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (im->entries[mid].idx == idx)
			return (long)mid;
		if (im->entries[mid].idx < idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static void count_fn(struct entry_acc *e, const char *name, uint64_t samples)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		if (!strcmp(e->fn[i].name, name))
			break;
	if (i == e->n) {
		e->fn = sc_grow(e->fn, &e->cap, e->n + 1, sizeof(*e->fn));
		e->fn[e->n++] = (struct fn_count){name, 0};
	}
	e->fn[i].samples += samples;
}

int sc_kst_fold(struct sc_kst_acc *a, struct sc_profile *p, const struct sc_image *im, int fd,
		const struct sc_ksyms *k)
{
	struct sc_kst_header h;

	if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    memcmp(h.magic, a->off ? SC_KSO_MAGIC : SC_KST_MAGIC, 8) != 0 || h.slot_size != sizeof(struct sc_kst_slot) ||
	    h.nslots > (1u << 20))
		return -1;
	for (uint32_t i = 0; i < h.nslots; i++) {
		struct sc_kst_slot s;
		const char *names[SC_KST_DEPTH];
		uint32_t nn = 0;
		long pos;

		if (pread(fd, &s, sizeof(s), (off_t)(sizeof(h) + (uint64_t)i * sizeof(s))) !=
		    (ssize_t)sizeof(s))
			break;
		if (!s.entry || s.entry == UINT32_MAX || !s.samples ||
		    (pos = entry_pos(im, s.entry - 1)) < 0 || (size_t)pos >= a->n)
			continue;
		a->e[pos].samples += s.samples;
		/* each function once per stack, however often it recurs */
		for (uint32_t d = 0; d < s.depth && d < SC_KST_DEPTH; d++) {
			const char *name = sc_ksyms_name(p, k, s.ip[d]);
			uint32_t j;

			for (j = 0; j < nn && strcmp(names[j], name); j++)
				;
			if (j == nn) {
				names[nn++] = name;
				count_fn(&a->e[pos], name, s.samples);
			}
		}
	}
	return 0;
}

static int cmp_kfunc(const void *a, const void *b)
{
	const struct sc_kfunc *x = a, *y = b;

	if (x->ticks != y->ticks)
		return x->ticks > y->ticks ? -1 : 1;
	return strcmp(x->name, y->name);
}

void sc_kst_finish(struct sc_kst_acc *a, struct sc_image *im)
{
	for (size_t i = 0; i < a->n; i++) {
		struct entry_acc *e = &a->e[i];
		struct sc_entry *en = &im->entries[i];

		if (e->samples && e->n) {
			struct sc_kfunc *f = sc_xcalloc(e->n, sizeof(*f));
			long double of = a->off ? en->blocked_ticks : en->kernel_ticks;

			for (size_t j = 0; j < e->n; j++)
				f[j] = (struct sc_kfunc){e->fn[j].name,
					of * (long double)e->fn[j].samples / (long double)e->samples};
			qsort(f, e->n, sizeof(*f), cmp_kfunc);
			*(a->off ? &en->okfuncs : &en->kfuncs) = f;
			*(a->off ? &en->nokfuncs : &en->nkfuncs) = e->n < SC_KFUNCS_MAX ? e->n
								: SC_KFUNCS_MAX;
		}
		free(e->fn);
	}
	free(a->e);
	free(a);
}
