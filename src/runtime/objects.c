/*
 * objects.c - the loaded objects, and patching their GOT slots.
 *
 * Stage contract: sc_objects_scan() runs at start-up (from the constructor)
 * and after every dlopen. It registers objects it has not seen (one
 * SC_M_OBJECT record each) and, for each, points every GOT slot that binds
 * an imported function at a fresh shadow entry. It runs with the runtime
 * lock held and this thread marked busy, so nothing it calls is traced.
 *
 * Which slots, and why:
 *  - JUMP_SLOT: always a call target (PLT, or -fno-plt with BIND_NOW).
 *    Under lazy binding the slot still points back into the object's own
 *    PLT; we then resolve the symbol the way the lazy resolver would
 *    (dlvsym with the required version, global scope first, then the
 *    object's own dependencies) so the call never reaches the resolver,
 *    which would overwrite our slot.
 *  - GLOB_DAT of a function: used by `call *f@GOTPCREL(%rip)` (-fno-plt)
 *    but also for `&f`. Replacing a slot whose value escapes would make
 *    `&f` differ between objects, so we hook it only if the object's code
 *    reaches it by indirect call/jump and never loads it into a register.
 *    Finding that out reads all of the object's code (classify), so only
 *    slots that could be hooked at all are candidates (gotdat_cb).
 *  - A slot bound inside its own object is a call within one component:
 *    not a cross flow, left alone.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "reloc.h"
#include "runtime.h"

static struct sc_object objs[SC_MAX_OBJECTS];
static uint32_t n_objs;
static pthread_mutex_t lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

/* how deep this thread is in the lock (sc_lock_held) */
static __thread int lock_depth __attribute__((tls_model("initial-exec")));
void sc_lock(void) { pthread_mutex_lock(&lock); lock_depth++; }
void sc_unlock(void) { lock_depth--; pthread_mutex_unlock(&lock); }
bool sc_lock_held(void) { return lock_depth > 0; }

/*
 * Two locks, because of the dynamic loader's own lock.
 *
 * The runtime lock is held across calls into the loader: dl_iterate_phdr,
 * dlsym and dlopen(RTLD_NOLOAD) while a scan pins objects and resolves
 * imports, and the real dlclose in its wrapper, so that no object is
 * unmapped while a scan reads it. So it must never be wanted by code that
 * may run with the loader's lock held: constructors and destructors run
 * by dlopen and dlclose, dl_iterate_phdr callbacks, libc's dladdr calling
 * into ld.so. That is any intercepted call and any wrapper. Only the scan
 * (dlopen wrappers, start-up), the dlclose wrapper and fork take it, and
 * the wrappers skip it when they run nested inside a dlopen or dlclose of
 * their own thread (in_loader, wrap.c: the outer call scans or prunes).
 * What is left: a constructor run by a dlopen the runtime does not wrap
 * (libc's own, for NSS or iconv modules) that calls dlopen or dlclose
 * while another thread scans.
 *
 * The leaf lock covers everything else that is shared: shadow entries and
 * imports, the meta file, writes to GOT slots, thread files and the
 * thread list, dlsym's map, start boxes. An import's first call takes it
 * (sc_hook_bind), from wherever it happens: a bind under the runtime lock
 * deadlocked redis-server at start-up. Its holders never call the loader
 * nor take the runtime lock; the order is always runtime lock, then leaf
 * lock.
 */
static pthread_mutex_t leaf = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static __thread int leaf_depth __attribute__((tls_model("initial-exec")));
void sc_leaf_lock(void) { pthread_mutex_lock(&leaf); leaf_depth++; }
void sc_leaf_unlock(void) { leaf_depth--; pthread_mutex_unlock(&leaf); }
bool sc_leaf_held(void) { return leaf_depth > 0; }

void sc_lock_reset_child(void)
{
	lock = (pthread_mutex_t)PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
	lock_depth = 0;
	leaf = (pthread_mutex_t)PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
	leaf_depth = 0;
}

struct sc_object *sc_object_of(uintptr_t a)
{
	for (uint32_t i = 0; i < n_objs; i++) {
		struct sc_object *o = &objs[i];
		if (o->gone || a < o->lo || a >= o->hi)
			continue;
		/* spans can interleave with other objects' gaps: check segments */
		for (int p = 0; p < o->phnum; p++) {
			const ElfW(Phdr) *ph = &o->phdr[p];
			if (ph->p_type == PT_LOAD && a >= o->base + ph->p_vaddr &&
			    a < o->base + ph->p_vaddr + ph->p_memsz)
				return o;
		}
	}
	return NULL;
}

/* The load bias of object id (its base, whether or not it is loaded). */
uintptr_t sc_object_base(uint32_t id)
{
	return id < n_objs ? objs[id].base : 0;
}

/* Bytes of readable code from a to the end of its segment (0: none). */
size_t sc_object_code_len(uintptr_t a)
{
	struct sc_object *o = sc_object_of(a);
	for (int p = 0; o && p < o->phnum; p++) {
		const ElfW(Phdr) *ph = &o->phdr[p];
		uintptr_t s = o->base + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && (ph->p_flags & PF_R) &&
		    a >= s && a < s + ph->p_filesz)
			return s + ph->p_filesz - a;
	}
	return 0;
}

uint32_t sc_object_id_of(uintptr_t a)
{
	struct sc_object *o = sc_object_of(a);
	return o ? o->id : UINT32_MAX;
}

static uintptr_t self_base(void)
{
	Dl_info di;
	if (dladdr((void *)sc_object_of, &di) && di.dli_fbase)
		return (uintptr_t)di.dli_fbase;
	return 0;
}

/* the loader's count of unloads so far; 0 from a loader that has none */
static unsigned long long subs_of(const struct dl_phdr_info *info, size_t size)
{
	return size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)
		       ? info->dlpi_subs : 0;
}

/*
 * Whether info is an object already registered. Its address and program
 * headers are not enough: the object may have been unloaded and loaded
 * again at the same address by calls the runtime does not see after the
 * fact (the last reference dropped by a dlclose of the runtime's own, on
 * a handle it took with RTLD_NOLOAD to look a symbol up, or one inside
 * libc). Such a copy is new, with a GOT the loader filled: if unloads
 * happened since the object was registered and the slot the runtime last
 * wrote no longer holds what it wrote, the old record is marked gone.
 * Runs inside dl_iterate_phdr (so the object stays mapped), under the
 * runtime lock.
 */
static bool is_known(struct dl_phdr_info *info, size_t size)
{
	for (uint32_t i = 0; i < n_objs; i++) {
		struct sc_object *o = &objs[i];
		if (o->gone || o->base != info->dlpi_addr || o->phdr != info->dlpi_phdr)
			continue;
		if (subs_of(info, size) == o->subs || !o->witness)
			return true;
		sc_leaf_lock();                 /* a bind may be rewriting it */
		bool same = *(void *const *)o->witness == o->witness_val;
		sc_leaf_unlock();
		if (same)
			return true;
		o->gone = true;
		struct sc_m_object m = {.id = o->id, .base = o->base};
		sc_meta_add(SC_M_UNLOAD, &m, sizeof(m), NULL);
		return false;
	}
	return false;
}

struct list_ctx {
	uint32_t n;
	struct { uintptr_t base; const void *phdr; } *seen;
};

static int list_cb(struct dl_phdr_info *info, size_t size, void *p)
{
	(void)size;
	struct list_ctx *c = p;
	if (c->n < SC_MAX_OBJECTS) {
		c->seen[c->n].base = info->dlpi_addr;
		c->seen[c->n].phdr = info->dlpi_phdr;
		c->n++;
	}
	return 0;
}

/* Marks objects that are no longer loaded as gone (SC_M_UNLOAD). Runs
 * after every dlclose and before registering new objects, so that a
 * library loaded again (often at the same address) is hooked afresh.
 * Caller holds the lock. */
void sc_objects_prune(void)
{
	/* the list lives only during this call: from mmap, not .bss, where
	 * 128 KB for SC_MAX_OBJECTS kept a page resident */
	struct { uintptr_t base; const void *phdr; } *seen =
		sc_mem_grow(NULL, (size_t)SC_MAX_OBJECTS * sizeof(*seen));
	if (!seen)
		return;
	struct list_ctx c = {0, (void *)seen};
	dl_iterate_phdr(list_cb, &c);
	for (uint32_t i = 0; i < n_objs; i++) {
		if (objs[i].gone)
			continue;
		bool found = false;
		for (uint32_t k = 0; k < c.n && !found; k++)
			found = seen[k].base == objs[i].base && seen[k].phdr == objs[i].phdr;
		if (!found) {
			objs[i].gone = true;
			struct sc_m_object m = {.id = objs[i].id, .base = objs[i].base};
			sc_meta_add(SC_M_UNLOAD, &m, sizeof(m), NULL);
		}
	}
	sc_mem_free(seen);
}

/* the executable's path, for its object (copied by the caller) */
static const char *main_path(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	if (n <= 0)
		return "a.out";
	buf[n] = 0;
	return buf;
}

/*
 * An object the scan found and has not registered: what dl_iterate_phdr
 * said of it, and the handle that pins it (see sc_objects_scan).
 */
struct cand {
	uintptr_t base;
	const ElfW(Phdr) *phdr;
	int phnum;
	unsigned long long subs;
	const char *name;       /* sc_mem_strdup: becomes the object's path */
	void *pin;
};

struct scan_ctx {
	struct cand *c;
	uint32_t n, cap;
	bool failed;
};

static int cand_cb(struct dl_phdr_info *info, size_t size, void *p)
{
	struct scan_ctx *ctx = p;
	if (is_known(info, size))
		return 0;
	if (ctx->n == ctx->cap) {
		uint32_t cap = ctx->cap ? ctx->cap * 2 : 64;
		struct cand *nc = sc_mem_grow(ctx->c, cap * sizeof(*nc));
		if (!nc) {
			ctx->failed = true;
			return 1;
		}
		ctx->c = nc;
		ctx->cap = cap;
	}
	const char *name = info->dlpi_name;
	char exe[PATH_MAX];
	if (n_objs == 0 && ctx->n == 0 && (!name || !name[0]))
		name = main_path(exe, sizeof(exe));
	else if (!name || !name[0])
		name = "linux-vdso.so.1";
	struct cand *c = &ctx->c[ctx->n++];
	*c = (struct cand){.base = info->dlpi_addr, .phdr = info->dlpi_phdr,
			   .phnum = info->dlpi_phnum, .subs = subs_of(info, size),
			   .name = sc_mem_strdup(name)};
	return 0;
}

static void add_object(const struct cand *c, uintptr_t self)
{
	struct sc_object *o = &objs[n_objs];
	memset(o, 0, sizeof(*o));
	o->id = n_objs;
	o->subs = c->subs;
	o->base = c->base;
	o->phdr = c->phdr;
	o->phnum = c->phnum;
	o->lo = UINTPTR_MAX;
	for (int i = 0; i < c->phnum; i++) {
		const ElfW(Phdr) *ph = &c->phdr[i];
		uintptr_t s = c->base + ph->p_vaddr;
		if (ph->p_type == PT_LOAD) {
			if (s < o->lo)
				o->lo = s;
			if (s + ph->p_memsz > o->hi)
				o->hi = s + ph->p_memsz;
		} else if (ph->p_type == PT_DYNAMIC) {
			o->dyn = (const void *)s;
		} else if (ph->p_type == PT_GNU_RELRO) {
			o->relro = s;
			o->relro_len = ph->p_memsz;
		}
	}
	o->path = c->name ? c->name : "?";
	if (o->base == self && self)
		o->skip = true;                 /* ourselves */
	if (strstr(o->path, "linux-vdso") || strstr(o->path, "/ld-linux") ||
	    strstr(o->path, "ld64.so"))
		o->skip = true;                 /* no imports worth hooking */
	struct sc_m_object m = {.id = o->id, .base = o->base,
				.flags = o->id == 0 ? SC_OBJ_MAIN : (sc_active ? SC_OBJ_DLOPEN : 0)};
	/* published whole: binds read objs without the runtime lock */
	__atomic_store_n(&n_objs, n_objs + 1, __ATOMIC_RELEASE);
	sc_meta_add(SC_M_OBJECT, &m, sizeof(m), o->path);
}

/*
 * A handle on the loaded object c names, taken with RTLD_NOLOAD, or NULL.
 * The loader adds an object to its list before relocating it, and
 * dl_iterate_phdr shows it then: a scan that patched it would see its
 * slots overwritten by the relocation still to come (calls lost). dlopen
 * waits for the loader's lock, i.e. for a dlopen in flight in another
 * thread to finish, and the handle keeps the object mapped until the
 * scan lets it go. (dl_iterate_phdr lists the caller's namespace only:
 * objects of other namespaces, from dlmopen, are not seen at all.)
 */
static void *pin(const struct cand *c)
{
	void *h = dlopen(c->name, RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		return NULL;
	struct link_map *lm = NULL;
	if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_addr == c->base)
		return h;
	dlclose(h);
	return NULL;
}

/* ---- GLOB_DAT classification --------------------------------------- */

struct got_use {
	uintptr_t slot;
	unsigned calls, loads;
	bool known;             /* decided without reading the code */
};

static int cmp_use(const void *a, const void *b)
{
	uintptr_t x = ((const struct got_use *)a)->slot, y = ((const struct got_use *)b)->slot;
	return x < y ? -1 : x > y;
}

static struct got_use *find_use(struct got_use *u, size_t n, uintptr_t slot)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (u[mid].slot == slot)
			return &u[mid];
		if (u[mid].slot < slot)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* sc_arch_got_refs callback: one more use of a slot (ctx: the sorted uses) */
struct use_set {
	struct got_use *u;
	size_t n;
};

static void count_use(void *ctx, uintptr_t slot, bool call)
{
	struct use_set *s = ctx;
	struct got_use *g = find_use(s->u, s->n, slot);
	if (!g)
		return;
	if (call)
		g->calls++;
	else
		g->loads++;
}

/*
 * Patching reads much more of every object than the program ever does:
 * the GOT-use scan above reads all of its code, and parsing relocations
 * and resolving targets (here and in dlsym/dlvsym, which walk the hash,
 * symbol and string tables of every loaded object) read the read-only
 * data. Each page read stays mapped in the process: redis-server's RSS
 * grew by 4-5 MB of library code before the scan gave it back, and by
 * 0.6 MB of symbol tables (libcrypto's alone 256 KB) after.
 *
 * So, before patching, keep_rss_note() notes which pages of every
 * object's read-only segments are mapped (the present bit of
 * /proc/self/pagemap), and keep_rss_drop() unmaps again, with
 * MADV_DONTNEED, those that were not and still are plain file pages (bit
 * 61: a page written since, copied on write, is anonymous and is never
 * touched): in each object after patching it, and in all at the end.
 * They are still in the page cache and come back on a minor fault if the
 * program uses them. Writable segments, objects with
 * text relocations and the runtime's own objects (skip: itself, ld.so,
 * the vDSO) are left alone. A pagemap that cannot be read, or a failed
 * allocation, leaves everything mapped: only memory is at stake.
 */
#define PM_PRESENT (1ull << 63)
#define PM_FILE (1ull << 61)

struct keep_seg {
	uintptr_t lo;
	size_t np, first;       /* pages, and index of the first in was[] */
	const struct sc_object *o;
};

struct keep_rss {
	int fd;
	size_t n, pages;
	struct keep_seg *seg;
	uint8_t *was;           /* one byte per page: present before */
};

static bool has_textrel(const struct sc_object *o)
{
	for (const ElfW(Dyn) *d = o->dyn; d && d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_TEXTREL || (d->d_tag == DT_FLAGS && (d->d_un.d_val & DF_TEXTREL)))
			return true;
	return false;
}

/* Calls fn(k, lo, npages) for each whole-page read-only segment to watch. */
static size_t keep_rss_segs(struct keep_rss *k, size_t page,
			    void (*fn)(struct keep_rss *, const struct sc_object *, uintptr_t, size_t))
{
	size_t n = 0;
	for (uint32_t i = 0; i < n_objs; i++) {
		const struct sc_object *o = &objs[i];
		if (o->skip || o->gone || !o->phdr || has_textrel(o))
			continue;
		for (int p = 0; p < o->phnum; p++) {
			const ElfW(Phdr) *ph = &o->phdr[p];
			if (ph->p_type != PT_LOAD || (ph->p_flags & PF_W))
				continue;
			uintptr_t lo = (o->base + ph->p_vaddr + page - 1) & ~(page - 1);
			uintptr_t hi = (o->base + ph->p_vaddr + ph->p_filesz) & ~(page - 1);
			if (hi <= lo)
				continue;
			if (fn)
				fn(k, o, lo, (hi - lo) / page);
			n++;
		}
	}
	return n;
}

static void keep_rss_add(struct keep_rss *k, const struct sc_object *o, uintptr_t lo, size_t np)
{
	k->seg[k->n] = (struct keep_seg){.lo = lo, .np = np, .first = k->pages, .o = o};
	k->n++;
	k->pages += np;
}

/* out[i] for each of npages pages from lo (512 pagemap entries a read):
 * present (now = false), or present and a plain file page (now = true) */
static bool pagemap_walk(int fd, uintptr_t lo, size_t npages, size_t page,
			 uint8_t *out, bool now)
{
	uint64_t buf[512];
	for (size_t i = 0; i < npages; i += 512) {
		size_t m = npages - i < 512 ? npages - i : 512;
		off_t off = (off_t)((lo / page + i) * sizeof(uint64_t));
		if (pread(fd, buf, m * sizeof(uint64_t), off) != (ssize_t)(m * sizeof(uint64_t)))
			return false;
		for (size_t j = 0; j < m; j++)
			out[i + j] = now ? (buf[j] & (PM_PRESENT | PM_FILE)) == (PM_PRESENT | PM_FILE)
					 : (buf[j] & PM_PRESENT) != 0;
	}
	return true;
}

static void keep_rss_note(struct keep_rss *k)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	memset(k, 0, sizeof(*k));
	k->fd = -1;
	size_t nseg = keep_rss_segs(k, page, NULL);
	if (!nseg)
		return;
	k->seg = sc_mem_grow(NULL, nseg * sizeof(*k->seg));
	if (!k->seg)
		return;
	keep_rss_segs(k, page, keep_rss_add);
	k->was = sc_mem_grow(NULL, k->pages ? k->pages : 1);
	k->fd = k->was ? open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC) : -1;
	for (size_t i = 0; k->fd >= 0 && i < k->n; i++)
		if (!pagemap_walk(k->fd, k->seg[i].lo, k->seg[i].np, page, k->was + k->seg[i].first, false)) {
			close(k->fd);
			k->fd = -1;
		}
}

/* Unmaps what was mapped since keep_rss_note in the segments of object
 * only (after patching it: the code its scan read), or of every object
 * (NULL: at the end, the symbol tables dlsym read in all of them). The
 * note stays true after a drop (what was mapped is mapped, what was not
 * is not again), so one note serves them all. */
static void keep_rss_drop(struct keep_rss *k, const struct sc_object *only)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint8_t now[512];
	for (size_t s = 0; k->fd >= 0 && s < k->n; s++) {
		const struct keep_seg *g = &k->seg[s];
		if (only && g->o != only)
			continue;
		for (size_t i = 0; i < g->np; i += sizeof(now)) {
			size_t m = g->np - i < sizeof(now) ? g->np - i : sizeof(now);
			if (!pagemap_walk(k->fd, g->lo + i * page, m, page, now, true))
				break;
			/* runs of pages mapped by patching, not written since */
			for (size_t j = 0; j < m;) {
				if (k->was[g->first + i + j] || !now[j]) {
					j++;
					continue;
				}
				size_t e = j;
				while (e < m && !k->was[g->first + i + e] && now[e])
					e++;
				madvise((void *)(g->lo + (i + j) * page), (e - j) * page, MADV_DONTNEED);
				j = e;
			}
		}
	}
}

static void keep_rss_free(struct keep_rss *k)
{
	if (k->fd >= 0)
		close(k->fd);
	sc_mem_free(k->seg);
	sc_mem_free(k->was);
}

/*
 * Counts, for each candidate slot, the calls through it and the loads of
 * it in the object's executable segments (the byte forms are in
 * arch/x86_64/gotscan.c). u is sorted by slot.
 */
static void classify(const struct sc_object *o, struct got_use *u, size_t n)
{
	struct use_set s = {.u = u, .n = n};
	for (int p = 0; p < o->phnum; p++) {
		const ElfW(Phdr) *ph = &o->phdr[p];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || !(ph->p_flags & PF_R))
			continue;
		sc_arch_got_refs((const uint8_t *)(o->base + ph->p_vaddr), ph->p_filesz,
				 u[0].slot, u[n - 1].slot, count_use, &s);
	}
}

/* ---- resolving and patching ----------------------------------------- */

static void *resolve(const struct sc_object *o, const char *name, const char *ver)
{
	void *r = ver ? dlvsym(RTLD_DEFAULT, name, ver) : dlsym(RTLD_DEFAULT, name);
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

struct patch {
	uintptr_t slot;
	void *code;
};

struct patch_ctx {
	struct sc_object *o;
	struct got_use *uses;
	size_t n_uses, cap_uses;
	size_t fini;            /* __cxa_finalize's GLOB_DAT candidate + 1 */
	bool fini_plt;          /* ... and it has a JUMP_SLOT too */
	struct patch *patches;
	size_t n, cap;
};

static int import_cb(void *p, const struct sc_import *imp)
{
	struct patch_ctx *c = p;
	struct sc_object *o = c->o;
	if (imp->st_type == STT_OBJECT || imp->st_type == STT_TLS ||
	    imp->st_type == STT_COMMON || imp->st_type == STT_SECTION)
		return 0;
	if (imp->kind == SC_ENT_GOT) {
		struct got_use *g = find_use(c->uses, c->n_uses, imp->slot);
		if (!g || !g->calls || g->loads)
			return 0;
	}
	uintptr_t cur = *(const uintptr_t *)imp->slot;
	if (!cur)
		return 0;                       /* weak and undefined */
	struct sc_object *callee = sc_object_of(cur);
	if (callee == o) {
		/* lazy PLT stub, or really bound inside the object */
		cur = (uintptr_t)resolve(o, imp->name, imp->version);
		if (!cur)
			return 0;
		callee = sc_object_of(cur);
		if (callee == o)
			return 0;
	}
	if (!callee || callee->skip) {
		if (!callee || (callee->skip && !strstr(callee->path, "ld-linux")))
			return 0;               /* unknown code, or the runtime itself */
	}
	void *wrapper;
	uint32_t flags = imp->kind | sc_entry_flags_for(imp->name, &wrapper);
	/* a wrapper lies in the runtime's own object: looked up */
	long n = sc_hook_new(wrapper ? wrapper : (void *)cur, wrapper ? NULL : callee, flags,
			     o->id, callee->id, imp->name, imp->slot);
	if (n == SC_HOOK_SKIP)
		return 0;                       /* this import stays as it is */
	if (n < 0)
		return 1;
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 256;
		struct patch *np = sc_mem_grow(c->patches, cap * sizeof(*np));
		if (!np)
			return 1;
		c->patches = np;
		c->cap = cap;
	}
	c->patches[c->n++] = (struct patch){imp->slot, sc_hook_code((uint32_t)n)};
	return 0;
}

/*
 * Lists the GLOB_DAT slots of functions that classify() must decide on.
 * Left out, as import_cb would leave them whatever the code does: a slot
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
 * would read a whole library (1 MB for libsqlite3) for that one slot.
 */
static int gotdat_cb(void *p, const struct sc_import *imp)
{
	struct patch_ctx *c = p;
	bool fini = !strcmp(imp->name, "__cxa_finalize");
	if (fini && imp->kind == SC_ENT_PLT)
		c->fini_plt = true;
	if (imp->kind != SC_ENT_GOT || imp->st_type == STT_OBJECT || imp->st_type == STT_TLS)
		return 0;
	uintptr_t cur = *(const uintptr_t *)imp->slot;
	struct sc_object *callee = cur ? sc_object_of(cur) : NULL;
	if (!callee || callee == c->o || (callee->skip && !strstr(callee->path, "ld-linux")))
		return 0;
	if (c->n_uses == c->cap_uses) {
		size_t cap = c->cap_uses ? c->cap_uses * 2 : 64;
		struct got_use *nu = sc_mem_grow(c->uses, cap * sizeof(*nu));
		if (!nu)
			return 1;
		c->uses = nu;
		c->cap_uses = cap;
	}
	c->uses[c->n_uses] = (struct got_use){.slot = imp->slot, .known = fini};
	c->n_uses++;
	if (fini)
		c->fini = c->n_uses;
	return 0;
}

static int seg_prot(const struct sc_object *o, uintptr_t a)
{
	for (int p = 0; p < o->phnum; p++) {
		const ElfW(Phdr) *ph = &o->phdr[p];
		if (ph->p_type == PT_LOAD && a >= o->base + ph->p_vaddr &&
		    a < o->base + ph->p_vaddr + ph->p_memsz)
			return ((ph->p_flags & PF_R) ? PROT_READ : 0) |
			       ((ph->p_flags & PF_W) ? PROT_WRITE : 0) |
			       ((ph->p_flags & PF_X) ? PROT_EXEC : 0);
	}
	return PROT_READ;
}

/* The protection slot's page is left with: read-only inside the whole
 * pages of PT_GNU_RELRO (as glibc's _dl_protect_relro rounds), the
 * segment's own otherwise. */
static int final_prot(const struct sc_object *o, uintptr_t slot)
{
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t page = slot & ~(uintptr_t)(pg - 1);
	uintptr_t r0 = o->relro & ~(uintptr_t)(pg - 1);
	uintptr_t r1 = (o->relro + o->relro_len) & ~(uintptr_t)(pg - 1);
	return o->relro_len && page >= r0 && page < r1 ? PROT_READ : seg_prot(o, slot);
}

/*
 * Writes the slots (sorted by address), opening each page for writing
 * only as long as needed and giving it back the protection the loader
 * left (final_prot). GOT pages are never executable. A page that cannot
 * be opened is skipped whole, with one warning.
 */
static void apply(struct sc_object *o, struct patch *pt, size_t n)
{
	/* a bind may repoint a slot on a page another thread is patching:
	 * one page's unprotect, writes and protect at a time */
	sc_leaf_lock();
	long pg = sysconf(_SC_PAGESIZE);
	for (size_t i = 0; i < n; i++) {
		uintptr_t page = pt[i].slot & ~(uintptr_t)(pg - 1);
		int final = final_prot(o, pt[i].slot);
		/* the batch of slots on this page */
		size_t j = i;
		while (j < n && (pt[j].slot & ~(uintptr_t)(pg - 1)) == page)
			j++;
		if (!(final & PROT_WRITE) &&
		    mprotect((void *)page, (size_t)pg, (final | PROT_WRITE) & ~PROT_EXEC) != 0) {
			sc_warn("cannot unprotect GOT of %s: %s", o->path, strerror(errno));
			i = j - 1;
			continue;
		}
		for (size_t k = i; k < j; k++) {
			__atomic_store_n((void **)pt[k].slot, pt[k].code, __ATOMIC_RELEASE);
			if (!o->witness)
				o->witness = pt[k].slot;        /* see is_known */
			if (o->witness == pt[k].slot)
				o->witness_val = pt[k].code;
		}
		if (!(final & PROT_WRITE))
			mprotect((void *)page, (size_t)pg, final);
		i = j - 1;
	}
	sc_leaf_unlock();
}

static int cmp_patch(const void *a, const void *b)
{
	uintptr_t x = ((const struct patch *)a)->slot, y = ((const struct patch *)b)->slot;
	return x < y ? -1 : x > y;
}

/*
 * Repoints held back. Writing a read-only GOT slot takes two mprotect
 * calls, each splitting and merging a VMA: at every import's first call
 * that was ~10 % of a short program's start-up under scaler (sqlite3's
 * executable is linked -z now, so its whole GOT is RELRO, and it binds
 * ~60 imports in its first millisecond). The main executable's slots
 * wait and are written together, a page's worth with one pair of calls,
 * once PEND_MAX wait or the oldest has waited PEND_NS. Only the main
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
#define PEND_NS 1000000ull
static struct patch pend[PEND_MAX];
static void *pend_old[PEND_MAX];
static uint32_t n_pend;
static uint64_t pend_since;
SC_HIDDEN int32_t sc_pend_budget = INT32_MAX;  /* shadow.S counts it down */

/* Writes the waiting slots that still hold their import's code. */
static void flush_pending(void)
{
	size_t n = 0;
	for (uint32_t i = 0; i < n_pend; i++)
		if (__atomic_load_n((void **)pend[i].slot, __ATOMIC_ACQUIRE) == pend_old[i])
			pend[n++] = pend[i];
	n_pend = 0;
	if (n) {
		qsort(pend, n, sizeof(pend[0]), cmp_patch);
		apply(&objs[0], pend, n);
	}
}

/* From sc_hook_bind: writes the waiting slots if it is time. */
void sc_objects_flush_due(void)
{
	if (n_pend && (n_pend == PEND_MAX || sc_mono_ns() - pend_since >= PEND_NS))
		flush_pending();
	__atomic_store_n(&sc_pend_budget, n_pend ? SC_PEND_CALLS : INT32_MAX, __ATOMIC_RELAXED);
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
	if (id >= n_objs || objs[id].gone || objs[id].id != id)
		return;
	if (__atomic_load_n((void **)slot, __ATOMIC_ACQUIRE) != old)
		return;
	struct patch pt = {slot, code};
	if (id == 0 && !(final_prot(&objs[0], slot) & PROT_WRITE)) {   /* 0: the executable */
		if (!n_pend)
			pend_since = sc_mono_ns();
		pend_old[n_pend] = old;
		pend[n_pend++] = pt;
		if (n_pend == PEND_MAX)
			flush_pending();
		return;
	}
	apply(&objs[id], &pt, 1);
}

/* Patches object o; true if its code was read (classify) */
static bool patch_object(struct sc_object *o)
{
	struct sc_reloc_info ri;
	if (o->skip || sc_reloc_parse(o->base, o->dyn, &ri) != 0)
		return false;
	struct patch_ctx c = {.o = o};
	sc_reloc_walk(&ri, gotdat_cb, &c);
	if (c.fini && !c.fini_plt)
		c.uses[c.fini - 1].calls = 1;   /* called through the slot (.plt.got) */
	bool read = false;
	for (size_t i = 0; i < c.n_uses && !read; i++)
		read = !c.uses[i].known;
	if (c.n_uses) {
		qsort(c.uses, c.n_uses, sizeof(*c.uses), cmp_use);
		if (read)
			classify(o, c.uses, c.n_uses);
	}
	sc_reloc_walk(&ri, import_cb, &c);
	qsort(c.patches, c.n, sizeof(*c.patches), cmp_patch);
	apply(o, c.patches, c.n);
	sc_mem_free(c.patches);
	sc_mem_free(c.uses);
	return read;
}

/*
 * The scan, in stages, under the runtime lock:
 *   1. forget objects no longer loaded (prune);
 *   2. list the objects not registered yet (dl_iterate_phdr);
 *   3. after start-up, pin each (pin(): waits out a dlopen in flight,
 *      keeps it mapped); one that cannot be pinned was unloaded meanwhile,
 *      or is still being loaded by a dlopen that will scan it itself;
 *   4. register them all, then patch each: every new object must be
 *      registered before any is patched, as a target is attributed to
 *      the object that contains it. The code an object's patching maps
 *      (when classify read it) is given back after the object, before the
 *      next is read, so the peak (VmHWM) grows by one object's code at
 *      most; the symbol tables resolving reads in every object, at the end;
 *   5. let the pins go; if that unloaded one, prune again.
 */
void sc_objects_scan(bool patch)
{
	sc_lock();
	sc_meta_batch(true);
	sc_objects_prune();
	struct scan_ctx ctx = {0};
	dl_iterate_phdr(cand_cb, &ctx);
	if (ctx.failed)
		sc_warn("out of memory listing objects; some not profiled");
	uint32_t first_new = n_objs, pins = 0;
	uintptr_t self = self_base();
	for (uint32_t i = 0; i < ctx.n && n_objs < SC_MAX_OBJECTS; i++) {
		/* at start-up every object is loaded and relocated, and
		 * some (the program, the vDSO) have no name to pin by */
		if (sc_active && !(ctx.c[i].pin = pin(&ctx.c[i])))
			continue;
		pins += ctx.c[i].pin != NULL;
		add_object(&ctx.c[i], self);
	}
	if (patch && first_new < n_objs) {
		struct keep_rss k;
		keep_rss_note(&k);
		for (uint32_t i = first_new; i < n_objs; i++)
			if (patch_object(&objs[i]))
				keep_rss_drop(&k, &objs[i]);
		keep_rss_drop(&k, NULL);
		keep_rss_free(&k);
	}
	for (uint32_t i = 0; i < ctx.n; i++)
		if (ctx.c[i].pin)
			dlclose(ctx.c[i].pin);
	if (pins)
		sc_objects_prune();
	sc_mem_free(ctx.c);
	sc_meta_batch(false);
	sc_unlock();
}

/* ---- the runtime's own imports ---------------------------------------- */

struct self_ctx {
	uintptr_t base;
	struct sc_object o;
};

static int self_cb(struct dl_phdr_info *info, size_t size, void *p)
{
	(void)size;
	struct self_ctx *c = p;
	if (info->dlpi_addr != c->base)
		return 0;
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
	return 1;
}

struct self_patch {
	void *libc;
	struct patch *pt;
	size_t n, cap;
};

static int self_import_cb(void *p, const struct sc_import *imp)
{
	struct self_patch *c = p;
	/* functions only: a variable such as environ lives where the loader
	 * put it (the executable's copy), not where libc defines it */
	if (imp->st_type == STT_OBJECT || imp->st_type == STT_TLS || imp->st_type == STT_COMMON)
		return 0;
	if (!imp->version || strncmp(imp->version, "GLIBC_", 6) != 0 || c->n == c->cap)
		return 0;
	void *r = dlvsym(c->libc, imp->name, imp->version);
	if (r && r != *(void **)imp->slot)
		c->pt[c->n++] = (struct patch){imp->slot, r};
	return 0;
}

/*
 * The runtime's own calls to libc (malloc, strlen, ...) are bound through
 * the global scope like anyone's, so a library the program interposes
 * (a malloc replacement, a wrapper that counts strlen) would see calls the
 * program never made. Bind every GLIBC-versioned import of ours to libc's
 * own definition instead. Runs first thing at start-up.
 */
void sc_bind_self_to_libc(void)
{
	struct self_ctx c = {.base = self_base()};
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	if (!c.base || !libc || dl_iterate_phdr(self_cb, &c) != 1 || !c.o.dyn)
		return;
	struct sc_reloc_info ri;
	struct patch pt[256];
	struct self_patch sp = {.libc = libc, .pt = pt, .cap = 256};
	if (sc_reloc_parse(c.o.base, c.o.dyn, &ri) == 0)
		sc_reloc_walk(&ri, self_import_cb, &sp);
	qsort(pt, sp.n, sizeof(pt[0]), cmp_patch);
	apply(&c.o, pt, sp.n);
	dlclose(libc);
}
