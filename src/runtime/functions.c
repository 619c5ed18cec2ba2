/*
 * functions.c - patching the entries of the functions `scaler record
 * --functions` names (SCALER_FUNCTIONS), in every object as it is
 * registered: at start-up, before main, and after each dlopen, before the
 * dlopen returns.
 *
 * SCALER_FUNCTIONS is PATTERN[,PATTERN...], PATTERN = [COMPONENT:]GLOB;
 * COMPONENT is an object's basename (none: the executable), GLOB matches
 * a function's name (`*`, `?`), or `object+0xoffset` for one known only
 * from .eh_frame (symbols.c). Unless SCALER_PYEXT=0, every function of a
 * Python extension module it does not name is patched too, for its calls
 * from other components only (patch_object).
 *
 * A patched function F: its first instructions (after an endbr64, kept in
 * place) become `jmp` to its code in a page mapped within 2 GB of the
 * object; that code runs the overwritten instructions moved there
 * (fnpatch.c) and jumps back into F. Before, it tells calls by the
 * return address: from F's own object, it counts the call in F's record
 * (an import of F's own, caller and callee its object, flag SC_ENT_FUNC,
 * bound at once, so the reader names it as any other) and times a sample
 * of them through fnown.S, whose return path keeps every register: a
 * caller of a local function may keep values live across the call in
 * registers the ABI does not promise (-fipa-ra). From another object,
 * the call goes to that caller's shadow entry for F (sc_fn_caller_code),
 * timed like an import's, whose return path is the common one.
 *
 * Functions that cannot be patched safely are written as SC_M_SKIP with
 * the reason. No page is ever writable and executable: the code pages are
 * written, then made read+exec; entries are written as open_code says.
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "args.h"
#include "fnsite.h"
#include "fnpatch.h"
#include "names.h"
#include "runtime.h"
#include "symbols.h"

_Static_assert(SC_ENT_FUNC < (1u << (32 - HK_IDX_BITS)), "SC_ENT_FUNC fits struct sc_hook");

#define SLOT 256u               /* one function's code: head, replay, tail */
_Static_assert(SC_FN_HEAD + SC_FN_REPLAY_MAX + SC_FN_TAIL <= SLOT, "slot");

/*
 * An object's patched functions live in one mapping near it: their code
 * (read+exec once written), then data the code reads and the runtime
 * writes (read+write, never exec):
 *   struct data   the object's range, for "is the caller this object?",
 *                 the two pointers the code jumps through and the two
 *                 return points it compares with
 *   cache[k]      per function: the first other object that called it,
 *                 {lo, span, its shadow entry's code}; span 0: none yet
 */
struct data {
	uint64_t lo, span;
	void *own, *miss;
	void *ret[2];           /* the return points of timed calls */
	uint64_t pad[2];
};
#define CACHE 32u

/*
 * Every patched function, by number (the code's %r11 for SLOW_FUNC), and
 * the callers from other objects that have a shadow entry for it: their
 * calls are timed like an import's (their caller keeps nothing the ABI
 * does not promise), and counted once when they come through a GOT slot
 * or dlsym pointer (sc_functions_target sends the import's entry to the
 * replay copy). Written under the leaf lock (callers) or the runtime lock
 * (new functions), read without.
 */
#define MAX_FNS (1u << 20)
#define FN_CALLERS 6u
struct fnrec {
	uintptr_t entry;
	void *replay;
	const char *name;
	uint64_t *cache;
	uint64_t kept[3];       /* the cache while paused (pause_object) */
	uint32_t obj, n;
	struct { uint32_t caller, idx; } callers[FN_CALLERS];
};
static struct fnrec *fns;
static uint32_t n_fns;
/* each object's functions: fns[first .. first + n), sorted by entry; the
 * data their code reads */
static struct {
	uint32_t first, n;
	struct data *d;
} obj_fns[SC_MAX_OBJECTS] SC_LARGE_BSS;


static const char *spec;        /* SCALER_FUNCTIONS, NULL: none named */
static bool pyext;              /* Python extension modules by default */
static int ready;               /* decoder and table: 0 not yet, 1 ready, -1 failed */
static int32_t lim_off, recs_off;

/* Reads SCALER_FUNCTIONS and SCALER_PYEXT: at the first scan. */
static void functions_init(void)
{
	/* attached, the environment is the program's: scaler_attach's
	 * patterns alone, and no Python extension module by default */
	const char *s = sc_attached ? sc_fnsites_spec() : sc_getenv("SCALER_FUNCTIONS");
	const char *e = sc_attached ? "0" : sc_getenv("SCALER_PYEXT");
	intptr_t lo = sc_arch_tls_offset(&sc_tls_lim), ro = sc_arch_tls_offset(&sc_tls_recs);
	if (lo != (int32_t)lo || ro != (int32_t)ro)
		return;
	lim_off = (int32_t)lo;
	recs_off = (int32_t)ro;
	spec = s && s[0] ? sc_mem_strdup(s) : NULL;
	pyext = !(e && !strcmp(e, "0"));
}

/*
 * The decoder and the function table, loaded when the first object is to
 * be patched (most processes never load them); false if they cannot be.
 * Without libZydis, `--functions` patches nothing and says so; the
 * default for Python extension modules goes on with insnlen.c's tables
 * alone (a function holding an instruction they leave to Zydis is
 * refused).
 */
static bool functions_ready(void)
{
	const char *why;
	if (ready)
		return ready > 0;
	ready = -1;
	if (sc_arch_decoder_load(&why) != 0 && spec) {
		sc_warn("--functions: %s; no function patched", why);
		return false;
	}
	void *m = mmap(NULL, (size_t)MAX_FNS * sizeof(*fns), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED) {
		sc_warn("--functions: cannot reserve its table; no function patched");
		return false;
	}
	fns = m;
	ready = 1;
	return true;
}

/* A Python extension module, by its file's name (PEP 3149: _json.cpython-
 * 311-x86_64-linux-gnu.so; the stable ABI's *.abi3.so). */
static bool python_extension(const char *comp)
{
	size_t n = strlen(comp);
	return n > 3 && !strcmp(comp + n - 3, ".so") &&
	       (strstr(comp, ".cpython-") || (n > 8 && !strcmp(comp + n - 8, ".abi3.so")));
}

bool sc_functions_decoder(const char *path)
{
	const char *d = sc_arch_decoder_path();
	return ready > 0 && d && path && !strcmp(d, path);
}

/* glob: `*` any run, `?` any one character */
static bool glob(const char *p, size_t pn, const char *s)
{
	const char *star = NULL, *back = NULL;
	size_t i = 0, si = 0;
	while (s[si]) {
		if (i < pn && (p[i] == '?' || p[i] == s[si])) {
			i++;
			si++;
		} else if (i < pn && p[i] == '*') {
			star = p + i++;
			back = s + si;
		} else if (star) {
			i = (size_t)(star - p) + 1;
			si = (size_t)(++back - s);
		} else {
			return false;
		}
	}
	while (i < pn && p[i] == '*')
		i++;
	return i == pn;
}

/*
 * Steps over the pattern at *pp; true if it is for component comp (main:
 * the executable, which patterns without a component name), with its glob
 * in *g, *gn bytes.
 */
static bool next_pattern(const char **pp, const char *comp, bool main, const char **g,
			 size_t *gn)
{
	const char *p = *pp, *end = strchr(p, ',');
	size_t n = end ? (size_t)(end - p) : strlen(p), cn = strlen(comp);
	*pp = p + n + (end != NULL);
	const char *colon = memchr(p, ':', n);
	if (colon && colon[1] == ':')
		colon = NULL;                   /* a C++ name's "::" */
	*g = colon ? colon + 1 : p;
	*gn = n - (size_t)(*g - p);
	return colon ? (size_t)(colon - p) == cn && !memcmp(p, comp, cn) : main;
}

/* Whether a pattern names component comp at all. */
static bool named(const char *comp, bool main)
{
	const char *g;
	size_t gn;
	for (const char *p = spec ? spec : ""; *p;)
		if (next_pattern(&p, comp, main, &g, &gn))
			return true;
	return false;
}

/* Whether a pattern for component comp matches function name. */
static bool wanted(const char *comp, bool main, const char *name)
{
	const char *g;
	size_t gn;
	for (const char *p = spec ? spec : ""; *p;)
		if (next_pattern(&p, comp, main, &g, &gn) && glob(g, gn, name))
			return true;
	return false;
}

struct fn {
	uint64_t addr, size;
	uint32_t name;          /* offset in the names */
	bool anon;              /* known only from .eh_frame */
	/* branches from other functions to its first bytes: into the ones
	 * the jump overwrites, to its entry by call, by jump */
	bool into, called, jumped;
	struct sc_fn_plan plan;
	const char *why;        /* NULL: patch it */
	uint8_t *code;          /* its slot */
	uint32_t fn;            /* its number in fns */
};

struct collect {
	const struct sc_object *o;
	const char *comp;
	bool all;               /* every function (a Python extension module) */
	struct fn *f;
	size_t n, cap;
	char *names;
	size_t nlen, ncap;
	/* the jumps, branches and calls of the functions scanned that leave
	 * them, for the checks across functions (refuse()) */
	struct branch { uint64_t target; bool call; } *out;
	size_t nout, capout;
	bool oom;
};

static void out_cb(void *p, uint64_t target, bool call)
{
	struct collect *c = p;
	if (c->nout == c->capout) {
		size_t cap = c->capout ? c->capout * 2 : 1024;
		struct branch *nb = sc_mem_grow(c->out, cap * sizeof(*nb));
		if (!nb) {
			c->oom = true;
			return;
		}
		c->out = nb;
		c->capout = cap;
	}
	c->out[c->nout++] = (struct branch){target, call};
}

static int collect_cb(void *p, const char *name, uint64_t addr, uint64_t size)
{
	struct collect *c = p;
	char anon[256];
	bool unnamed = !name;
	if (unnamed) {
		sc_syms_anon_name(anon, sizeof(anon), c->o->path, addr);
		name = anon;
	}
	if (!c->all && !wanted(c->comp, c->o->id == 0, name))
		return 0;
	size_t len = strlen(name) + 1;
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 256;
		struct fn *nf = sc_mem_grow(c->f, cap * sizeof(*nf));
		if (!nf)
			return c->oom = true;
		c->f = nf;
		c->cap = cap;
	}
	if (c->nlen + len > c->ncap) {
		size_t cap = (c->nlen + len) * 2;
		char *nn = sc_mem_grow(c->names, cap);
		if (!nn)
			return c->oom = true;
		c->names = nn;
		c->ncap = cap;
	}
	memcpy(c->names + c->nlen, name, len);
	c->f[c->n++] = (struct fn){.addr = addr, .size = size, .name = (uint32_t)c->nlen,
				   .anon = unnamed};
	c->nlen += len;
	return 0;
}

static int by_addr(const void *a, const void *b)
{
	const struct fn *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Marks what a branch from another function finds in the function of
 * fs[0..n) (sorted) whose first bytes it lands in, if any. */
static void mark_branch(struct fn *fs, size_t n, uint64_t base, const struct branch *b)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (base + fs[mid].addr <= b->target)
			lo = mid + 1;
		else
			hi = mid;
	}
	struct fn *f = lo ? &fs[lo - 1] : NULL;
	uint64_t F = f ? base + f->addr : 0;
	if (!f || f->why || b->target >= F + f->plan.at + f->plan.len)
		return;
	if (b->target != F && b->target != F + f->plan.at)
		f->into = true;
	else if (b->call)
		f->called = true;
	else
		f->jumped = true;
}

/*
 * The checks across functions, once every matched function was scanned
 * and its branches marked (mark_branch): a jump or call from another
 * function into the bytes the jump would overwrite (its first one
 * excepted: a call or tail call); and, for a function known only from
 * .eh_frame, an entry reached by jumps but by no call: it may be another
 * function's .cold part, entered with that function's red zone live below
 * the stack pointer (symbols.c drops the parts entered inside a frame). A
 * function reached only by tail calls is refused with them.
 */
static const char *refuse(const struct fn *f)
{
	if (f->into)
		return "a branch from another function into the overwritten bytes";
	if (f->anon && f->jumped && !f->called)
		return "entered only by jumps (maybe another function's .cold part)";
	return NULL;
}

static void skip(const struct sc_object *o, const char *name, const char *why)
{
	char a[sizeof(struct sc_m_skip) + 128];
	struct sc_m_skip m = {.obj = o->id};
	size_t wl = strlen(why);
	if (wl > 127)
		wl = 127;
	memcpy(a, &m, sizeof(m));
	memcpy(a + sizeof(m), why, wl);
	a[sizeof(m) + wl] = 0;
	sc_meta_add(SC_M_SKIP, a, sizeof(m) + wl + 1, name);
}

/* len bytes of address space within reach (rel32) of all of [lo, hi), or
 * NULL: the first free range after hi, else before lo. */
static uint8_t *map_near(uintptr_t lo, uintptr_t hi, size_t len)
{
	const uintptr_t step = 1u << 20, reach = (1u << 31) - (1u << 24);
	uintptr_t start = (hi + step - 1) & ~(step - 1);
	for (uintptr_t a = start; a + len - lo < reach; a += step) {
		void *m = mmap((void *)a, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (m != MAP_FAILED) {
			if ((uintptr_t)m == a)
				return m;
			munmap(m, len);         /* an old kernel took it as a hint */
		}
	}
	for (uintptr_t a = (lo & ~(step - 1)) - step; a > step && hi - a < reach; a -= step) {
		void *m = mmap((void *)(a - len), len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (m != MAP_FAILED) {
			if ((uintptr_t)m == a - len)
				return m;
			munmap(m, len);
		}
	}
	return NULL;
}

#define IDX_MASK ((1u << HK_IDX_BITS) - 1)

/* Gives f its number, import and entry, and writes its code at f->code;
 * false with f->why set if it cannot. */
static bool make_code(struct sc_object *o, struct fn *f, const char *name, struct data *d,
		      uint64_t *cache, bool own_calls)
{
	uintptr_t F = o->base + f->addr;
	uint8_t *code = f->code, *replay = code + SC_FN_HEAD, *tail = code + SLOT - SC_FN_TAIL;
	if (n_fns == MAX_FNS) {
		f->why = "too many functions";
		return false;
	}
	if (!sc_arch_fn_replay(replay, (uintptr_t)replay, (const uint8_t *)F, F, &f->plan)) {
		f->why = "an operand out of reach of the moved code";
		return false;
	}
	const char *kept = sc_mem_strdup(name);
	long n = kept ? sc_hook_new((void *)F, o, SC_ENT_FUNC, o->id, o->id, name, 0) : -1;
	if (n < 0) {
		f->why = "no room in the shadow table";
		return false;
	}
	sc_hook_bind((uint32_t)n);
	uint32_t b = __atomic_load_n(&sc_hook_table[n].bound, __ATOMIC_ACQUIRE) & IDX_MASK;
	if (!b) {
		f->why = "no room in the shadow table";
		return false;
	}
	sc_entry_table[b - 1].target = replay;
	struct sc_fn_refs r = {.idx = b - 1, .fn = n_fns, .lim_off = lim_off,
			       .recs_off = recs_off, .own_lo = (uintptr_t)&d->lo,
			       .cache = (uintptr_t)cache, .own_ptr = (uintptr_t)&d->own,
			       .miss_ptr = (uintptr_t)&d->miss, .ret_ptrs = (uintptr_t)d->ret,
			       .own_calls = own_calls};
	if (!sc_arch_fn_head(code, (uintptr_t)code, tail, (uintptr_t)tail, &r)) {
		f->why = "an entry index too large";
		return false;
	}
	f->fn = n_fns;
	fns[n_fns++] = (struct fnrec){.entry = F, .replay = replay, .name = kept, .cache = cache,
				      .obj = o->id};
	return true;
}

/*
 * A writable view of the code pages [p, p + len) while entries are
 * written there. At start-up (no other thread exists) the pages
 * themselves, made read+write; later (a dlopen: another thread may run
 * the object's code) a copy, made read+exec and moved over the pages by
 * one mremap, so that no thread ever finds them not executable. Either
 * way, never writable and executable at once.
 */
static uint8_t *open_code(uintptr_t p, size_t len)
{
	if (!sc_active)
		return mprotect((void *)p, len, PROT_READ | PROT_WRITE) == 0 ? (uint8_t *)p : NULL;
	uint8_t *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	memcpy(m, (const void *)p, len);
	return m;
}

/* Ends open_code's view w: the code pages read+exec again (the code
 * patched lies in a read+exec segment: sc_object_code_len). False if the
 * copy could not take the pages' place (they are unchanged then). */
static bool close_code(uintptr_t p, size_t len, uint8_t *w)
{
	if (w == (uint8_t *)p)
		return mprotect((void *)p, len, PROT_READ | PROT_EXEC) == 0;
	if (mprotect(w, len, PROT_READ | PROT_EXEC) == 0 &&
	    mremap(w, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)p) == (void *)p)
		return true;
	munmap(w, len);
	return false;
}

/*
 * Where the jumps written with the one at fs[i] end: at start-up (no other
 * thread runs), that of the last one in the same segment, so that the
 * pages are opened once for all (two mprotect calls in all, not two per
 * page: python3's 6000 functions took ~10 ms of those); later, its own
 * end (a page or two at a time: open_code copies what it opens).
 */
static uintptr_t jumps_end(const struct sc_object *o, const struct fn *fs, size_t n, size_t i)
{
	uintptr_t at = o->base + fs[i].addr + fs[i].plan.at, end = at + fs[i].plan.len;
	if (sc_active)
		return end;
	uintptr_t seg_end = at + sc_object_code_len(at);
	for (size_t k = i + 1; k < n; k++) {
		uintptr_t gat = o->base + fs[k].addr + fs[k].plan.at;
		if (fs[k].why)
			continue;
		if (gat + fs[k].plan.len > seg_end)
			break;
		end = gat + fs[k].plan.len;
	}
	return end;
}

/* Writes the jumps at the entries of fs[0..n) (sorted), a range of pages
 * at a time (jumps_end). Attached, each is noted (fnsites.c): during
 * scaler_attach, to be written by scaler with every thread stopped; later
 * (a dlopen), written here and noted to be put back at the detach. */
static void write_jumps(struct sc_object *o, struct fn *fs, size_t n)
{
	long pg = SC_PAGE;
	for (size_t i = 0; i < n; i++) {
		if (fs[i].why)
			continue;
		if (sc_fnsites_deferred()) {
			uintptr_t at = o->base + fs[i].addr + fs[i].plan.at;
			uint8_t jmp[32];
			if (!sc_arch_fn_jump(jmp, at, (uintptr_t)fs[i].code, fs[i].plan.len))
				fs[i].why = "its code out of reach";
			else if (!sc_fnsites_add(at, (const uint8_t *)at, jmp, fs[i].plan.len,
						 fs[i].fn, SC_FNSITE_PENDING))
				fs[i].why = "attached: no room to note its entry";
			continue;
		}
		size_t mark = sc_fnsites_mark();
		uintptr_t at = o->base + fs[i].addr + fs[i].plan.at;
		uintptr_t p0 = at & ~(uintptr_t)(pg - 1);
		size_t len = ((jumps_end(o, fs, n, i) - 1) & ~(uintptr_t)(pg - 1)) - p0 + (size_t)pg;
		uint8_t *w = open_code(p0, len);
		if (!w) {
			fs[i].why = "its code page cannot be written";
			continue;
		}
		/* every entry on these pages while they are open */
		size_t k;
		for (k = i; k < n; k++) {
			struct fn *g = &fs[k];
			uintptr_t gat = o->base + g->addr + g->plan.at;
			if (g->why)
				continue;
			if (gat < p0 || gat + g->plan.len > p0 + len)
				break;
			uint8_t jmp[32];
			if (sc_arch_fn_jump(jmp, gat, (uintptr_t)g->code, g->plan.len)) {
				if (sc_attached)
					sc_fnsites_add(gat, w + (gat - p0), jmp, g->plan.len, g->fn,
						       SC_FNSITE_PATCHED);
				memcpy(w + (gat - p0), jmp, g->plan.len);
			} else
				g->why = "its code out of reach";
		}
		if (!close_code(p0, len, w)) {
			sc_fnsites_truncate(mark);      /* nothing to put back */
			for (size_t j = i; j < k; j++)
				if (!fs[j].why)
					fs[j].why = "its code page cannot be written";
		}
		i = k - 1;
	}
}

/*
 * Pausing (pause.c): every call of o's patched functions goes straight to
 * the function's replay copy, neither counted nor timed, however it came
 * (a function pointer, a table of them as Python extensions have, a call
 * from its own object), by the data the code reads alone: the code pages
 * stay as they are. Each function's cache becomes {0, ~0, replay}, which
 * every return address matches, then the return points of timed calls
 * become 0, which none is, then the object's own span 0, which sends its
 * own calls the way of the others: to the cache, which keeps every
 * register but the flags, as the counted path does. Resuming writes them
 * back in the reverse order. Each state between is a mix whose calls go
 * to the replay copy, the counted path, or (foreign calls) sc_slowpath,
 * whose sc_fn_caller_code lets them through while paused. Under the leaf
 * lock (sc_fn_caller_code fills the caches under it).
 */
static void pause_object(const struct sc_object *o, bool on)
{
	struct data *d = obj_fns[o->id].d;
	uint32_t first = obj_fns[o->id].first, n = obj_fns[o->id].n;
	if (!d)
		return;
	if (on) {
		for (uint32_t i = first; i < first + n; i++) {
			uint64_t *c = fns[i].cache;
			memcpy(fns[i].kept, c, sizeof(fns[i].kept));
			__atomic_store_n(&c[2], (uintptr_t)fns[i].replay, __ATOMIC_RELEASE);
			__atomic_store_n(&c[1], UINT64_MAX, __ATOMIC_RELEASE);
			__atomic_store_n(&c[0], 0, __ATOMIC_RELEASE);
		}
		__atomic_store_n(&d->ret[0], NULL, __ATOMIC_RELEASE);
		__atomic_store_n(&d->ret[1], NULL, __ATOMIC_RELEASE);
		__atomic_store_n(&d->span, 0, __ATOMIC_RELEASE);
		return;
	}
	__atomic_store_n(&d->span, o->hi - o->lo, __ATOMIC_RELEASE);
	__atomic_store_n(&d->ret[0], (void *)sc_return_point, __ATOMIC_RELEASE);
	__atomic_store_n(&d->ret[1], (void *)sc_fn_return_point, __ATOMIC_RELEASE);
	for (uint32_t i = first; i < first + n; i++) {
		uint64_t *c = fns[i].cache;
		__atomic_store_n(&c[0], fns[i].kept[0], __ATOMIC_RELEASE);
		__atomic_store_n(&c[1], fns[i].kept[1], __ATOMIC_RELEASE);
		__atomic_store_n(&c[2], fns[i].kept[2], __ATOMIC_RELEASE);
	}
}

void sc_functions_refused(uint32_t fn, const char *why)
{
	if (fn < n_fns)
		skip(sc_object_get(fns[fn].obj), fns[fn].name, why);
}

void sc_functions_pause(bool on)
{
	for (uint32_t i = 0, n = sc_object_count(); i < n; i++) {
		struct sc_object *o = sc_object_get(i);
		if (o && !o->gone && o->id == i)
			pause_object(o, on);
	}
}

/*
 * Patches the functions of o that SCALER_FUNCTIONS names or, when it
 * names none of o and o is a Python extension module, all of them for
 * their calls from other components only (SCALER_PYEXT): the interpreter
 * calls an extension's functions through pointers (PyCFunction tables),
 * which no GOT slot sees, and without them the extension's calls out
 * would have no call in to come from. Its own calls go straight on.
 */
static void patch_object(struct sc_object *o)
{
	const char *comp = sc_basename(o->path);
	bool mine = named(comp, o->id == 0), ext = !mine && pyext && python_extension(comp);
	if ((!mine && !ext) || !functions_ready())
		return;
	if (!strncmp(comp, "libc.so", 7)) {
		sc_warn("--functions: libc is not patched (the runtime runs on it)");
		return;
	}
	struct collect c = {.o = o, .comp = comp, .all = ext};
	sc_syms_each(o->path, NULL, collect_cb, &c);
	if (c.oom)
		sc_warn("--functions: out of memory reading %s; some functions not patched", comp);
	sc_rt_sort(c.f, c.n, sizeof(*c.f), by_addr);
	size_t n = 0;
	for (size_t i = 0; i < c.n; i++) {       /* one per address: aliases */
		if (n && c.f[n - 1].addr == c.f[i].addr)
			continue;
		struct fn *f = &c.f[n++];
		*f = c.f[i];
		const char *name = c.names + f->name;
		uintptr_t F = o->base + f->addr;
		if (strstr(name, ".cold"))
			f->why = "a .cold part of another function";
		else if (!f->size)
			f->why = "size unknown";
		else if (sc_object_code_len(F) < f->size)
			f->why = "not in the object's code";
		else
			sc_arch_fn_plan((const uint8_t *)F, f->size, F, &f->plan, &f->why, out_cb, &c);
	}
	for (size_t i = 0; i < c.nout; i++)
		mark_branch(c.f, n, o->base, &c.out[i]);
	size_t ok = 0;
	for (size_t i = 0; i < n; i++) {
		if (!c.f[i].why)
			c.f[i].why = refuse(&c.f[i]);
		ok += !c.f[i].why;
	}
	uint8_t *area = NULL;
	size_t code_len = 0, len = 0;
	if (ok) {
		long pg = SC_PAGE;
		code_len = (ok * SLOT + (size_t)pg - 1) & ~(size_t)(pg - 1);
		len = code_len + ((sizeof(struct data) + ok * CACHE + (size_t)pg - 1) &
				  ~(size_t)(pg - 1));
		area = map_near(o->lo, o->hi, len);
	}
	uint32_t first = n_fns;
	if (area) {
		struct data *d = (struct data *)(area + code_len);
		*d = (struct data){.lo = o->lo, .span = o->hi - o->lo, .own = (void *)sc_fn_own,
				   .miss = (void *)sc_slowpath,
				   .ret = {(void *)sc_return_point, (void *)sc_fn_return_point}};
		uint8_t *cache = (uint8_t *)(d + 1);
		memset(area, 0xcc, code_len);
		size_t k = 0;
		for (size_t i = 0; i < n; i++) {
			if (c.f[i].why)
				continue;
			c.f[i].code = area + k * SLOT;
			make_code(o, &c.f[i], c.names + c.f[i].name, d, (uint64_t *)(cache + k * CACHE),
				  !ext);
			k++;
		}
		if (mprotect(area, code_len, PROT_READ | PROT_EXEC) != 0) {
			munmap(area, len);
			area = NULL;
			n_fns = first;
		}
	}
	for (size_t i = 0; i < n && !area; i++)
		if (!c.f[i].why)
			c.f[i].why = "no memory within 2 GB of it";
	if (area) {
		obj_fns[o->id].first = first;
		obj_fns[o->id].d = (struct data *)(area + code_len);
		__atomic_store_n(&obj_fns[o->id].n, n_fns - first, __ATOMIC_RELEASE);
		if (sc_paused) {
			sc_leaf_lock();
			pause_object(o, true);
			sc_leaf_unlock();
		}
		write_jumps(o, c.f, n);
	}
	for (size_t i = 0; i < n; i++)
		if (c.f[i].why)
			skip(o, c.names + c.f[i].name, c.f[i].why);
	sc_mem_free(c.f);
	sc_mem_free(c.names);
	sc_mem_free(c.out);
}

/*
 * Where a shadow entry made for target should jump (sc_entry_new): a
 * patched function's replay copy, so that a call counted by an import's
 * entry (a GOT slot, a dlsym pointer) is not counted again by the
 * function's own code. Under the leaf lock.
 */
void *sc_functions_target(void *target)
{
	struct sc_object *o = fns ? sc_object_of((uintptr_t)target) : NULL;
	if (!o)
		return target;
	uint32_t lo = obj_fns[o->id].first;
	uint32_t hi = lo + __atomic_load_n(&obj_fns[o->id].n, __ATOMIC_ACQUIRE);
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (fns[mid].entry < (uintptr_t)target)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < obj_fns[o->id].first + obj_fns[o->id].n && fns[lo].entry == (uintptr_t)target
		       ? fns[lo].replay : target;
}

/*
 * A call of function fn from another object, not the one its code caches
 * (sc_slowpath's SLOW_FUNC, every register the function may receive
 * saved): where it
 * goes on. Its caller's shadow entry (made at the first call from that
 * object: an import of fn for it, timed like any; the first such caller
 * is cached in the function's code), or the replay copy, uncounted, for a
 * call from runtime code, the runtime's own (a trampoline: counted by the
 * import that made it), or past FN_CALLERS callers.
 */
void *sc_fn_caller_code(uint32_t fn, uintptr_t ret)
{
	struct fnrec *r = &fns[fn];
	struct sc_thread *t = sc_tls_thread;
	if (!sc_active || __atomic_load_n(&sc_paused, __ATOMIC_RELAXED) || sc_lock_held() ||
	    sc_leaf_held() ||
	    (t && t != &sc_idle_thread && t->busy))
		return r->replay;
	struct sc_object *co = sc_object_of(ret);
	if (co && co->skip)
		return r->replay;
	uint32_t caller = co ? co->id : r->obj;
	uint32_t n = __atomic_load_n(&r->n, __ATOMIC_ACQUIRE);
	for (uint32_t i = 0; i < n; i++)
		if (r->callers[i].caller == caller)
			return sc_entry_code(r->callers[i].idx);
	void *to = r->replay;
	sc_leaf_lock();
	if (sc_paused) {                /* paused meanwhile: pause_object */
		sc_leaf_unlock();
		return to;
	}
	n = r->n;
	for (uint32_t i = 0; i < n; i++)
		if (r->callers[i].caller == caller)
			to = sc_entry_code(r->callers[i].idx);
	if (to == r->replay && n < FN_CALLERS) {
		/* unknown code calling (no object): counted as its own. Values
		 * (--args) only here: this entry's timed calls return through
		 * the common path that sc_args_stub serves, fnown.S's do not */
		uint32_t fl = co ? (sc_args_wants(r->name) ? SC_ENT_ARGS : 0) : SC_ENT_NOTIME;
		long h = sc_hook_new((void *)r->entry, sc_object_get(r->obj), SC_ENT_FUNC | fl,
				     caller, r->obj, r->name, 0);
		uint32_t b = h < 0 ? 0 : (sc_hook_bind((uint32_t)h),
				       __atomic_load_n(&sc_hook_table[h].bound, __ATOMIC_ACQUIRE) & IDX_MASK);
		if (b) {
			r->callers[n].caller = caller;
			r->callers[n].idx = b - 1;
			__atomic_store_n(&r->n, n + 1, __ATOMIC_RELEASE);
			to = sc_entry_code(b - 1);
			if (co && !r->cache[1]) {
				/* the code reads lo, span, then code: span last */
				r->cache[2] = (uintptr_t)to;
				r->cache[0] = co->lo;
				__atomic_store_n(&r->cache[1], co->hi - co->lo, __ATOMIC_RELEASE);
			}
		}
	}
	sc_leaf_unlock();
	return to;
}

/*
 * A call from a function's own object that fnown.S cannot finish alone
 * (everything saved): no record for entry idx yet (reason 0), or a frame
 * a longjmp left on top (SLOW_STALE). Where it goes on: the function's
 * own code again, to be counted now, or its replay copy.
 */
long sc_slow(uint64_t idx, int reason, void **entry_rsp);
void *sc_fn_own_slow(uint64_t idx, int reason, void **entry_rsp);
SC_HIDDEN void *sc_fn_own_slow(uint64_t idx, int reason, void **entry_rsp)
{
	uint8_t *replay = sc_entry_table[idx].target;
	if (!reason)
		reason = sc_tls_thread ? SLOW_NOREC : SLOW_NOTHREAD;
	return sc_slow(idx, reason, entry_rsp) == SLOW_REDISPATCH ? replay - SC_FN_HEAD : replay;
}

/* Patches the functions wanted in the objects registered from first on
 * (after their GOT slots: sc_objects_scan). Under the runtime lock. */
void sc_functions_patch(uint32_t first)
{
	static bool tried;
	if (!tried) {
		tried = true;
		functions_init();
	}
	if (!spec && !pyext)
		return;
	for (uint32_t i = first, n = sc_object_count(); i < n; i++) {
		struct sc_object *o = sc_object_get(i);
		if (!o->skip && !o->gone && !sc_functions_decoder(o->path))
			patch_object(o);
	}
}
