/*
 * gotuse.c - which GLOB_DAT slots of an object are calls.
 *
 * A GLOB_DAT slot of a function is used by `call *f@GOTPCREL(%rip)`
 * (-fno-plt) but also for `&f`. Replacing a slot whose value escapes would
 * make `&f` differ between objects, so a slot is hooked only if the
 * object's code reaches it by indirect call or jump and never loads it into
 * a register. Finding that out reads all of the object's code (the byte
 * forms are in arch/x86_64/gotscan.c), so only slots that could be hooked
 * at all are candidates, and the code is read only if one is left
 * undecided, and only by the first process of a run that loads the
 * object: it keeps what it found about every GLOB_DAT slot of a function
 * for the others (usecache.c).
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "patch.h"

static int cmp_use(const void *a, const void *b)
{
	uintptr_t x = ((const struct sc_got_use *)a)->slot, y = ((const struct sc_got_use *)b)->slot;
	return x < y ? -1 : x > y;
}

static struct sc_got_use *find_use(const struct sc_got_uses *g, uintptr_t slot)
{
	size_t lo = 0, hi = g->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (g->u[mid].slot == slot)
			return &g->u[mid];
		if (g->u[mid].slot < slot)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

bool sc_got_use_hooked(const struct sc_got_uses *g, uintptr_t slot)
{
	const struct sc_got_use *u = find_use(g, slot);
	return u && u->calls && !u->loads;
}

/* sc_arch_got_refs callback: one more use of a slot (ctx: the sorted uses) */
static void count_use(void *ctx, uintptr_t slot, bool call)
{
	struct sc_got_use *u = find_use(ctx, slot);
	if (!u)
		return;
	if (call)
		u->calls++;
	else
		u->loads++;
}

/*
 * Counts, for each candidate slot, the calls through it and the loads of
 * it in the object's executable segments. g->u is sorted by slot.
 */
static void classify(const struct sc_object *o, struct sc_got_uses *g)
{
	for (int p = 0; p < o->phnum; p++) {
		const ElfW(Phdr) *ph = &o->phdr[p];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || !(ph->p_flags & PF_R))
			continue;
		sc_arch_got_refs((const uint8_t *)(o->base + ph->p_vaddr), ph->p_filesz,
				 g->u[0].slot, g->u[g->n - 1].slot, count_use, g);
	}
}

/* Appends u to g's list; false if out of memory. */
static bool add_use(struct sc_got_uses *g, struct sc_got_use u)
{
	if (g->n == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 64;
		struct sc_got_use *nu = sc_mem_grow(g->u, cap * sizeof(*nu));
		if (!nu)
			return false;
		g->u = nu;
		g->cap = cap;
	}
	g->u[g->n++] = u;
	return true;
}

/*
 * Lists the GLOB_DAT slots of functions that classify() must decide on.
 * Left out, as patching would leave them whatever the code does: a slot
 * that holds 0 (weak, undefined), or a function of the object itself (an
 * exported function whose address the object takes through its GOT: most
 * of a library's GLOB_DAT slots, and all of libc's), or of no object we
 * know, or of the runtime itself. A GLOB_DAT slot is bound when the
 * object is loaded, never lazily, so what it holds now is what it binds.
 *
 * __cxa_finalize is decided by name: every object built with GCC's
 * crtstuff has its slot, which __do_global_dtors_aux compares with 0 and
 * then calls through a PLT entry. Current linkers make that entry jump
 * through this very slot (.plt.got, as for any symbol that has a GOT
 * slot): it is called through, hooked. Older ones gave the symbol its own
 * JUMP_SLOT: this slot is then only compared, not hooked. That is what
 * reading the code finds too (a compare is not a load, gotscan.c), but it
 * would read a whole library for that one slot.
 */
static int gotdat_cb(void *p, const struct sc_import *imp)
{
	struct sc_got_uses *c = p;
	bool fini = !strcmp(imp->name, "__cxa_finalize");
	if (fini && imp->kind == SC_ENT_PLT)
		c->fini_plt = true;
	if (imp->kind != SC_ENT_GOT || imp->st_type == STT_OBJECT || imp->st_type == STT_TLS)
		return 0;
	uintptr_t cur = *(const uintptr_t *)imp->slot;
	struct sc_object *callee = cur ? sc_object_of(cur) : NULL;
	if (!callee || callee == c->o || !sc_object_callable(callee))
		return 0;
	if (!add_use(c, (struct sc_got_use){.slot = imp->slot, .known = fini}))
		return 1;
	if (fini)
		c->fini = c->n;
	return 0;
}

/* Bytes of code in o's executable segments: what classify() reads. */
static uint64_t code_len(const struct sc_object *o)
{
	uint64_t n = 0;
	for (int p = 0; p < o->phnum; p++) {
		const ElfW(Phdr) *ph = &o->phdr[p];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && (ph->p_flags & PF_R))
			n += ph->p_filesz;
	}
	return n;
}

/* a cache word: the slot's offset from the load base, bit 0 set if the
 * code calls through it, bit 1 if it loads it (offsets are 8-aligned) */
#define USE_CALLS 1ull
#define USE_LOADS 2ull
#define USE_BITS 7ull

/* Adds the cached findings to every candidate of g; false (g unchanged)
 * if there is no cache or it lacks a candidate. */
static bool from_cache(const struct sc_object *o, uint64_t len, struct sc_got_uses *g)
{
	uint64_t *w;
	size_t n;
	if (!sc_use_cache_get(o, len, &w, &n))
		return false;
	size_t *at = sc_mem_grow(NULL, g->n * sizeof(*at));
	bool ok = at != NULL;
	for (size_t i = 0; ok && i < g->n; i++) {
		uint64_t off = g->u[i].slot - o->base;
		size_t lo = 0, hi = n;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if ((w[mid] & ~USE_BITS) < off)
				lo = mid + 1;
			else
				hi = mid;
		}
		ok = lo < n && (w[lo] & ~USE_BITS) == off;
		if (ok)
			at[i] = lo;
	}
	for (size_t i = 0; ok && i < g->n; i++) {
		g->u[i].calls += (w[at[i]] & USE_CALLS) != 0;
		g->u[i].loads += (w[at[i]] & USE_LOADS) != 0;
	}
	sc_mem_free(at);
	sc_mem_free(w);
	return ok;
}

/* sc_reloc_walk callback: every GLOB_DAT slot of a function, whatever it
 * is bound to (what is bound where differs from process to process) */
static int all_cb(void *p, const struct sc_import *imp)
{
	struct sc_got_uses *c = p;
	if (imp->kind != SC_ENT_GOT || imp->st_type == STT_OBJECT || imp->st_type == STT_TLS)
		return 0;
	return !add_use(c, (struct sc_got_use){.slot = imp->slot});
}

/*
 * Reads o's code for every GLOB_DAT slot of a function, keeps what it
 * finds (usecache.c) and adds it to g's candidates, as classify(o, g)
 * would have. False if that could not be done (then nothing was read).
 */
static bool classify_all(const struct sc_object *o, const struct sc_reloc_info *ri,
			 uint64_t len, struct sc_got_uses *g)
{
	struct sc_got_uses all = {.o = o};
	if (!sc_use_cache_wanted(o))
		return false;
	sc_reloc_walk(ri, all_cb, &all);
	uint64_t *w = all.n ? sc_mem_grow(NULL, all.n * sizeof(*w)) : NULL;
	if (!w) {
		sc_got_uses_free(&all);
		return false;
	}
	sc_rt_sort(all.u, all.n, sizeof(*all.u), cmp_use);
	size_t k = 0;
	for (size_t i = 0; i < all.n; i++)             /* one entry per slot */
		if (!k || all.u[i].slot != all.u[k - 1].slot)
			all.u[k++] = all.u[i];
	all.n = k;
	sc_keep_rss_reading();
	classify(o, &all);
	for (size_t i = 0; i < all.n; i++)
		w[i] = (all.u[i].slot - o->base) | (all.u[i].calls ? USE_CALLS : 0) |
		       (all.u[i].loads ? USE_LOADS : 0);
	sc_use_cache_put(o, len, w, all.n);
	for (size_t i = 0; i < g->n; i++) {
		const struct sc_got_use *u = find_use(&all, g->u[i].slot);
		g->u[i].calls += u ? u->calls : 0;
		g->u[i].loads += u ? u->loads : 0;
	}
	sc_mem_free(w);
	sc_got_uses_free(&all);
	return true;
}

bool sc_got_uses_find(const struct sc_object *o, const struct sc_reloc_info *ri,
		      struct sc_got_uses *g)
{
	g->o = o;
	sc_reloc_walk(ri, gotdat_cb, g);
	if (g->fini && !g->fini_plt)
		g->u[g->fini - 1].calls = 1;    /* called through the slot (.plt.got) */
	bool read = false;
	for (size_t i = 0; i < g->n && !read; i++)
		read = !g->u[i].known;
	if (g->n) {
		sc_rt_sort(g->u, g->n, sizeof(*g->u), cmp_use);
		uint64_t len = read ? code_len(o) : 0;
		if (read && from_cache(o, len, g))
			read = false;
		else if (read && !classify_all(o, ri, len, g)) {
			sc_keep_rss_reading();
			classify(o, g);
		}
	}
	return read;
}

void sc_got_uses_free(struct sc_got_uses *g)
{
	sc_mem_free(g->u);
}
