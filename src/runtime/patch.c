/*
 * patch.c - pointing objects' GOT slots at shadow entries, and the
 * runtime's own imports at libc.
 *
 * Which slots, and why:
 *  - JUMP_SLOT: always a call target (PLT, or -fno-plt with BIND_NOW).
 *    Under lazy binding the slot still points back into the object's own
 *    PLT; we then resolve the symbol the way the lazy resolver would
 *    (dlvsym with the required version, global scope first, then the
 *    object's own dependencies) so the call never reaches the resolver,
 *    which would overwrite our slot.
 *  - GLOB_DAT of a function: only if the object's code calls through it
 *    and never loads it (gotuse.c).
 *  - A slot bound inside its own object is a call within one component:
 *    not a cross flow, left alone.
 *
 * A slot first points at its import's stub (sc_hook_code); the import's
 * first call repoints it at the import's entry (sc_objects_repoint).
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "patch.h"

/* Whether object o versions its definitions (has DT_VERDEF). */
static bool versions_defs(const struct sc_object *o)
{
	for (const ElfW(Dyn) *d = o->dyn; d && d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_VERDEF)
			return true;
	return false;
}

struct patch_ctx {
	struct sc_object *o;
	const struct sc_reloc_info *all;        /* every registered object's */
	uint32_t n_all;
	struct sc_got_uses uses;
	struct sc_patch *patches;
	size_t n, cap;
};

/* Whether a registered object other than o defines name, or it cannot be
 * told (an object without a GNU hash table, or no tables at all). */
static bool defined_elsewhere(const struct patch_ctx *c, const struct sc_object *o,
			      const char *name)
{
	if (!c->all)
		return true;
	uint32_t h = sc_gnu_hash(name);
	for (uint32_t i = 0; i < c->n_all; i++) {
		const struct sc_object *x = sc_object_get(i);
		if (x == o || x->gone)
			continue;
		if (sc_reloc_defines(&c->all[i], name, h) != 0)
			return true;
	}
	return false;
}

/*
 * Whether an import of o's that o defines itself could only resolve to
 * o's own definition: no other loaded object defines that name (a lookup,
 * in any order, then finds o's or none, and the import stays as it is).
 * An IFUNC's resolver may return code anywhere: it is looked up. Saves a
 * dlvsym for each of a library's calls of its own exported functions
 * through its PLT (~1100 of libsqlite3's 1238 slots).
 */
static bool only_here(const struct patch_ctx *c, const struct sc_import *imp)
{
	return imp->defined_here && imp->st_type != STT_GNU_IFUNC &&
	       !defined_elsewhere(c, c->o, imp->name);
}

/*
 * Where the loader would bind o's import name@ver: the first object in
 * scope defining it at that version or without any (an allocator
 * preloaded, jemalloc or tcmalloc, defines malloc unversioned and takes
 * malloc@GLIBC_2.2.5 from libc, which dlvsym would still answer). The
 * unversioned lookup that finds such an object is made only if an object
 * other than the versioned answer's defines the name: otherwise it could
 * only find that object's own (a lookup per import saved in every start
 * of a lazily bound executable).
 */
static void *resolve(const struct patch_ctx *c, const struct sc_object *o, const char *name,
		     const char *ver)
{
	void *r = ver ? dlvsym(RTLD_DEFAULT, name, ver) : dlsym(RTLD_DEFAULT, name);
	const struct sc_object *ro = r ? sc_object_of((uintptr_t)r) : NULL;
	if (ver && (!ro || defined_elsewhere(c, ro, name))) {
		void *first = dlsym(RTLD_DEFAULT, name);
		struct sc_object *fo = first && first != r ? sc_object_of((uintptr_t)first) : NULL;
		if (fo && !versions_defs(fo))
			r = first;
	}
	if (!r && o->id != 0) {
		/* an RTLD_LOCAL object sees its own dependencies too */
		void *h = dlopen(o->path, RTLD_LAZY | RTLD_NOLOAD);
		if (h) {
			r = ver ? dlvsym(h, name, ver) : dlsym(h, name);
			dlclose(h);
		}
	}
	return r;
}

static int import_cb(void *p, const struct sc_import *imp)
{
	struct patch_ctx *c = p;
	struct sc_object *o = c->o;
	if (imp->st_type == STT_OBJECT || imp->st_type == STT_TLS ||
	    imp->st_type == STT_COMMON || imp->st_type == STT_SECTION)
		return 0;
	if (imp->kind == SC_ENT_GOT) {
		if (!sc_got_use_hooked(&c->uses, imp->slot))
			return 0;
	}
	uintptr_t cur = *(const uintptr_t *)imp->slot;
	if (!cur)
		return 0;                       /* weak and undefined */
	struct sc_object *callee = sc_object_of(cur);
	if (callee == o) {
		/* lazy PLT stub, or really bound inside the object */
		if (only_here(c, imp))
			return 0;
		cur = (uintptr_t)resolve(c, o, imp->name, imp->version);
		if (!cur)
			return 0;
		callee = sc_object_of(cur);
		if (callee == o)
			return 0;
	}
	if (!callee || !sc_object_callable(callee))
		return 0;                       /* unknown code, or the runtime itself */
	struct sc_object *booked;
	enum sc_callee how = sc_callee_of(o, imp->name, &cur, &callee, &booked, c->all, c->n_all);
	if (how == SC_CALLEE_LEAVE)
		return 0;
	void *code = (void *)cur, *raw = NULL;
	if (how == SC_CALLEE_HOOK) {
		void *wrapper;
		uint32_t flags = imp->kind | sc_entry_flags_for(imp->name, &wrapper);
		/* a wrapper lies in the runtime's own object: looked up */
		long n = sc_hook_new(wrapper ? wrapper : (void *)cur, wrapper ? NULL : callee,
				     flags, o->id, booked->id, imp->name, imp->slot);
		if (n == SC_HOOK_SKIP)
			return 0;               /* this import stays as it is */
		if (n < 0)
			return 1;
		code = sc_hook_code((uint32_t)n);
		raw = sc_pause_target((uint32_t)n);
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 32;
		struct sc_patch *np = sc_mem_grow(c->patches, cap * sizeof(*np));
		if (!np)
			return 1;
		c->patches = np;
		c->cap = cap;
	}
	c->patches[c->n++] = (struct sc_patch){imp->slot, code, raw, NULL};
	return 0;
}

static int seg_prot(const struct sc_object *o, uintptr_t a)
{
	int prot = sc_object_seg_prot(o, a);
	return prot >= 0 ? prot : PROT_READ;
}

/* The protection slot's page is left with: read-only inside the whole
 * pages of PT_GNU_RELRO (as glibc's _dl_protect_relro rounds), the
 * segment's own otherwise. */
static int final_prot(const struct sc_object *o, uintptr_t slot)
{
	long pg = SC_PAGE;
	uintptr_t page = slot & ~(uintptr_t)(pg - 1);
	uintptr_t r0 = o->relro & ~(uintptr_t)(pg - 1);
	uintptr_t r1 = (o->relro + o->relro_len) & ~(uintptr_t)(pg - 1);
	return o->relro_len && page >= r0 && page < r1 ? PROT_READ : seg_prot(o, slot);
}

/*
 * Writes the slots (sorted by address), opening each page for writing
 * only as long as needed and giving it back the protection the loader
 * left (final_prot). GOT pages are never executable. A page that cannot
 * be opened is skipped whole, with one warning. Each slot gets its raw
 * destination instead of its code while counting is paused (pause.c),
 * and only if it holds old, when old is set (one 8-byte compare and swap:
 * the program may have written the slot itself).
 */
void sc_patch_apply(struct sc_object *o, struct sc_patch *pt, size_t n)
{
	/* a bind may repoint a slot on a page another thread is patching:
	 * one page's unprotect, writes and protect at a time */
	sc_leaf_lock();
	long pg = SC_PAGE;
	for (size_t i = 0; i < n; i++) {
		uintptr_t page = pt[i].slot & ~(uintptr_t)(pg - 1);
		int final = final_prot(o, pt[i].slot);
		/* the batch of slots on this page */
		size_t j = i;
		while (j < n && (pt[j].slot & ~(uintptr_t)(pg - 1)) == page)
			j++;
		/* under a seccomp filter mprotect may kill: a slot not
		 * repointed goes on through its hook (shadow.c), counted */
		if (!(final & PROT_WRITE) && __atomic_load_n(&sc_sandboxed, __ATOMIC_ACQUIRE)) {
			i = j - 1;
			continue;
		}
		if (!(final & PROT_WRITE) &&
		    mprotect((void *)page, (size_t)pg, (final | PROT_WRITE) & ~PROT_EXEC) != 0) {
			sc_warn("cannot unprotect GOT of %s: %s", o->path, strerror(errno));
			i = j - 1;
			continue;
		}
		for (size_t k = i; k < j; k++) {
			if (sc_attached && o == sc_object_get(o->id))
				sc_unpatch_note(o->id, pt[k].slot);
			void *v = sc_paused && pt[k].raw ? pt[k].raw : pt[k].code, *old = pt[k].old;
			if (old && !__atomic_compare_exchange_n((void **)pt[k].slot, &old, v, false,
								 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
				continue;
			if (!old)
				__atomic_store_n((void **)pt[k].slot, v, __ATOMIC_RELEASE);
			if (!o->witness)
				o->witness = pt[k].slot;        /* objects.c: is_known */
			if (o->witness == pt[k].slot)
				o->witness_val = v;
		}
		if (!(final & PROT_WRITE))
			mprotect((void *)page, (size_t)pg, final);
		i = j - 1;
	}
	sc_leaf_unlock();
}

int sc_patch_cmp(const void *a, const void *b)
{
	uintptr_t x = ((const struct sc_patch *)a)->slot, y = ((const struct sc_patch *)b)->slot;
	return x < y ? -1 : x > y;
}

/*
 * Repoints held back. Writing a read-only GOT slot takes two mprotect
 * calls, each splitting and merging a VMA, too costly at every import's
 * first call of a program linked -z now (its whole GOT is RELRO) that
 * binds many imports as it starts. The main executable's slots
 * wait and are written together, a page's worth with one pair of calls,
 * once PEND_MAX wait or the oldest has waited PEND_MS. Only the main
 * executable's: it is never unloaded, so a slot that waits can never be
 * unmapped under the write (another object's could be, by a dlclose
 * between the bind and the flush). Meanwhile a call through a waiting
 * slot still goes to the import's stub and on to its entry, counted
 * (sc_pending_common: one load and jump more), and every SC_PEND_CALLS such
 * calls it asks sc_hook_bind whether the flush is due, so that a program
 * that binds nothing more does not keep its hot imports on that path.
 * All of it under the leaf lock.
 */
#define PEND_MAX 64
/* in TSC ticks (sc_ms_ticks): a clock read through the vDSO would cost a
 * small program two page faults, its time data and libc's clock code */
#define PEND_MS 1u
static struct sc_patch pend[PEND_MAX] SC_LARGE_BSS SC_LBSS_SECOND;
static void *pend_old[PEND_MAX];       /* .bss: shares a page every process writes */
static uint32_t n_pend;
static uint64_t pend_since;
SC_HIDDEN int32_t sc_pend_budget = INT32_MAX;  /* intercept.S counts it down */

/* Writes the waiting slots that still hold their import's code. */
static void flush_pending(void)
{
	size_t n = 0;
	for (uint32_t i = 0; i < n_pend; i++)
		if (__atomic_load_n((void **)pend[i].slot, __ATOMIC_ACQUIRE) == pend_old[i])
			pend[n++] = pend[i];
	n_pend = 0;
	if (n) {
		sc_rt_sort(pend, n, sizeof(pend[0]), sc_patch_cmp);
		sc_patch_apply(sc_object_get(0), pend, n);
	}
}

/* From sc_hook_bind: writes the waiting slots if it is time. */
void sc_objects_flush_due(void)
{
	if (n_pend && (n_pend == PEND_MAX || sc_rdtsc() - pend_since >= PEND_MS * sc_ms_ticks))
		flush_pending();
	__atomic_store_n(&sc_pend_budget, n_pend ? SC_PEND_CALLS : INT32_MAX, __ATOMIC_RELAXED);
}

/*
 * In a fork child: the slots its parent had waiting wait on, from now.
 * Their time (PEND_MS) ran in the parent, and the child's first bind
 * would write them at once: an mprotect pair and a copy of the GOT page
 * in every child of a shell that execs straight away, for slots its exec
 * throws out. Calls through them are counted meanwhile, as in the parent.
 */
void sc_objects_after_fork(void)
{
	if (n_pend)
		pend_since = sc_rdtsc();
}

/*
 * An import's first call: its slot goes from the import's code to its
 * entry's, if it still holds the import's (the program may have written
 * the slot itself) and the object is still loaded; a read-only slot of
 * the main executable waits (above). Under the leaf lock (objs is a fixed
 * array: reading it needs no lock).
 */
void sc_objects_repoint(uint32_t id, uintptr_t slot, void *old, void *code)
{
	struct sc_object *o = sc_object_get(id);
	if (!o || o->gone || o->id != id || sc_paused)
		return;                 /* paused: the slot waits for the resume */
	if (__atomic_load_n((void **)slot, __ATOMIC_ACQUIRE) != old)
		return;
	struct sc_patch pt = {slot, code, NULL, NULL};
	if (id == 0 && !(final_prot(o, slot) & PROT_WRITE)) {   /* 0: the executable */
		if (!n_pend)
			pend_since = sc_rdtsc();
		pend_old[n_pend] = old;
		pend[n_pend++] = pt;
		if (n_pend == PEND_MAX)
			flush_pending();
		return;
	}
	sc_patch_apply(o, &pt, 1);
}

/* Patches object o; true if its code was read (gotuse.c) */
static bool patch_object(struct sc_object *o, const struct sc_reloc_info *all, uint32_t n_all)
{
	struct sc_reloc_info ri;
	if (o->skip || sc_reloc_parse(o->base, o->dyn, &ri) != 0)
		return false;
	struct patch_ctx c = {.o = o, .all = all, .n_all = n_all};
	bool read = sc_got_uses_find(o, &ri, &c.uses);
	sc_reloc_walk(&ri, import_cb, &c);
	sc_rt_sort(c.patches, c.n, sizeof(*c.patches), sc_patch_cmp);
	sc_patch_apply(o, c.patches, c.n);
	sc_mem_free(c.patches);
	sc_got_uses_free(&c.uses);
	return read;
}

/*
 * Patches the objects registered from first on, in order: the code an
 * object's patching maps (when gotuse.c read it) is given back after the
 * object, before the next is read, so the peak (VmHWM) grows by one
 * object's code at most; the symbol tables resolving reads in every
 * object, at the end. Under the runtime lock.
 */
void sc_objects_patch(uint32_t first)
{
	struct sc_keep_rss k;
	uint32_t n = sc_object_count();
	/* every registered object's symbols, for only_here (NULL: unknown) */
	struct sc_reloc_info *all = sc_mem_grow(NULL, n * sizeof(*all));
	for (uint32_t i = 0; all && i < n; i++) {
		const struct sc_object *x = sc_object_get(i);
		if (!x->gone && sc_reloc_parse(x->base, x->dyn, &all[i]) != 0) {
			sc_mem_free(all);
			all = NULL;
		}
	}
	sc_keep_rss_arm(&k);
	for (uint32_t i = first; i < n; i++)
		if (patch_object(sc_object_get(i), all, n))
			sc_keep_rss_drop(&k, sc_object_get(i));
	sc_keep_rss_drop(&k, NULL);
	sc_keep_rss_free(&k);
	sc_mem_free(all);
}

/* ---- the runtime's own imports ---------------------------------------- */

struct self_ctx {
	uintptr_t base;
	struct sc_object o;
	bool found;
	/* libc's loaded segments */
	uintptr_t libc_lo[4], libc_hi[4];
	int libc_n;
	void *libc;             /* a handle on it, taken at the first lookup */
	struct sc_patch *pt;
	size_t n, cap;
};

/* Notes libc's segments, found by name. By hand, and kept from being
 * made a strlen call: the runtime's own strlen may still be the
 * program's (an interposer would count it). */
__attribute__((optimize("no-tree-loop-distribute-patterns")))
static void note_libc(struct self_ctx *c, const struct dl_phdr_info *info)
{
	static const char tail[] = "/libc.so.6";
	const char *n = info->dlpi_name;
	size_t len = 0, k = sizeof(tail) - 1;
	while (n && n[len])
		len++;
	if (len < k)
		return;
	for (size_t i = 0; i < k; i++)
		if (n[len - k + i] != tail[i])
			return;
	for (int i = 0; i < info->dlpi_phnum && c->libc_n < 4; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		c->libc_lo[c->libc_n] = info->dlpi_addr + ph->p_vaddr;
		c->libc_hi[c->libc_n++] = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
}

static int self_cb(struct dl_phdr_info *info, size_t size, void *p)
{
	(void)size;
	struct self_ctx *c = p;
	if (info->dlpi_addr != c->base) {
		note_libc(c, info);
		return 0;
	}
	c->found = true;
	c->o.base = info->dlpi_addr;
	c->o.phdr = info->dlpi_phdr;
	c->o.phnum = info->dlpi_phnum;
	c->o.path = "libscaler.so";
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_DYNAMIC)
			c->o.dyn = (const void *)(info->dlpi_addr + ph->p_vaddr);
		else if (ph->p_type == PT_GNU_RELRO) {
			c->o.relro = info->dlpi_addr + ph->p_vaddr;
			c->o.relro_len = ph->p_memsz;
		}
	}
	return 0;
}

/* Writes the slots noted so far. */
static void self_flush(struct self_ctx *c)
{
	sc_rt_sort(c->pt, c->n, sizeof(c->pt[0]), sc_patch_cmp);
	sc_patch_apply(&c->o, c->pt, c->n);
	c->n = 0;
}

static int self_import_cb(void *p, const struct sc_import *imp)
{
	struct self_ctx *c = p;
	/* functions only: a variable such as environ lives where the loader
	 * put it (the executable's copy), not where libc defines it */
	if (imp->st_type == STT_OBJECT || imp->st_type == STT_TLS || imp->st_type == STT_COMMON)
		return 0;
	if (!imp->version || strncmp(imp->version, "GLIBC_", 6) != 0)
		return 0;
	/* bound into libc already (-z now): libc defines one name@version
	 * only, so the lookup would give what the slot holds */
	uintptr_t cur = *(const uintptr_t *)imp->slot;
	for (int i = 0; i < c->libc_n; i++)
		if (cur >= c->libc_lo[i] && cur < c->libc_hi[i])
			return 0;
	if (!c->libc && !(c->libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD)))
		return 1;
	void *r = dlvsym(c->libc, imp->name, imp->version);
	if (r && r != *(void **)imp->slot)
		c->pt[c->n++] = (struct sc_patch){imp->slot, r, NULL, NULL};
	if (c->n == c->cap)
		self_flush(c);
	return 0;
}

/*
 * The runtime's own calls to libc (malloc, strlen, ...) are bound through
 * the global scope like anyone's, so a library the program interposes
 * (a malloc replacement, a wrapper that counts strlen) would see calls the
 * program never made. Bind every GLIBC-versioned import of ours to libc's
 * own definition instead (looked up only for a slot the loader bound
 * elsewhere: ~70 dlvsym calls less in every process). Runs first thing at
 * start-up.
 */
void sc_bind_self_to_libc(void)
{
	/* in batches: most processes have none, and every page of stack
	 * below what the program uses is one more page fault */
	struct sc_patch pt[16];
	struct self_ctx c = {.base = sc_self_base(), .pt = pt, .cap = 16};
	if (!c.base)
		return;
	dl_iterate_phdr(self_cb, &c);
	struct sc_reloc_info ri;
	if (c.found && c.o.dyn && sc_reloc_parse(c.o.base, c.o.dyn, &ri) == 0)
		sc_reloc_walk(&ri, self_import_cb, &c);
	self_flush(&c);
	if (c.libc)
		dlclose(c.libc);
}
