/*
 * shadow.c - the Universal Shadow Table.
 *
 * Two kinds of index, because most hooked imports are never called:
 *
 *  - An import number for every hooked (calling object, imported function)
 *    pair and every pointer handed out by dlsym, given when it is hooked.
 *    sc_hook_table[n] holds where the call goes, the GOT slot, flags,
 *    and once it has been called, its entry index (16 bytes, as offsets
 *    from the objects' load bias). The slot points at the
 *    import's code (16 bytes, sc_pending_common), written as SC_M_ENTRY
 *    with idx = the import number.
 *  - An entry index, given to an import at its first call (sc_hook_bind)
 *    in the order the process first calls them. It selects
 *      sc_entry_table[idx]   where the call goes, flags and edge (global)
 *      code of entry idx     64 bytes: count the call, jump on to the
 *                            API (or off to sc_shadow_rare)
 *      recs[idx]             the counters, in each thread's own array
 *    and the binding is written as SC_M_BIND {import, idx}. The GOT slot
 *    is pointed at the entry's code then, so later calls go straight
 *    there; a copy of the pointer (dlsym's answer, a GLOB_DAT pointer the
 *    program kept) still works through the import's code, one load more.
 *
 * Why: the counters of a thread are indexed by the entry index, and a
 * page of them holds 16 records. A program calls few of its imports:
 * numbered at hooking, a thread that makes ten different calls would touch
 * up to ten pages of counters; numbered by first call they fill the first
 * pages of every thread's file.
 *
 * Code is generated a page at a time (a 64-byte head holding the pointer
 * every stub jumps through, then the stubs) and made read+exec before any
 * stub in it is handed out, so no page is ever writable and executable
 * and no live code is ever rewritten. Indices only grow; an entry whose
 * object is unloaded keeps its index (counters stay valid).
 *
 * An import's stub is 16 bytes (252 a page) that enter sc_pending_common.
 * An entry's code is 64 bytes (63 a page) holding its whole counted path
 * and its own jump to the API (arch.h says why); it reaches its target in
 * sc_entry_table by a 32-bit displacement, so the entries' pages are
 * reserved in the same mapping. All of it (the tables, the edges, room
 * for both kinds of code) is one mapping (a mapping and an mprotect less
 * per table and chunk at every start-up, doc/performance.md): the tables
 * and edges first, readable and writable, then the room for code, which
 * has no access until a family's chunks are made writable, STEP at a
 * time (one mprotect), and each is made read+exec once written; a page
 * of code never made is neither writable nor executable. Room for code
 * that was writable would be charged whole to the commit limit where the
 * kernel never overcommits (85 MB in every process and at every fork).
 *
 * Every process touches the first page of the tables and of both kinds of
 * code at start-up, and each page far from the others costs a page-table
 * page of its own too. So two arrays meet at their starts twice: the
 * imports' stubs grow down from where the entries' code grows up (their
 * first chunks, made together at start-up, are one page pair and one
 * mprotect), and the imports' edges grow down from where the import table
 * grows up. That second meeting point lies in the middle of a page (MEET),
 * so the first 512 edges and the first 128 hooks share one page.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "args.h"
#include "reloc.h"
#include "runtime.h"

#define CHUNK_HEAD 64u
#define CHUNK_BYTES 4096u
#define PER_CHUNK(size) ((CHUNK_BYTES - CHUNK_HEAD) / (size))
#define MAX_CHUNKS (SC_MAX_ENTRIES / PER_CHUNK(HOOK_STUB_SIZE) + 1)
#define ENTRY_CHUNKS (SC_MAX_ENTRIES / PER_CHUNK(ENTRY_CODE_SIZE) + 1)
#define TABLE_BYTES ((size_t)SC_MAX_ENTRIES * sizeof(struct sc_entry))
#define STEP 16u        /* chunks of a family made writable at once */

/* the two families of stubs (zero-initialized: .bss, not .data, whose
 * file pages fault in 16 at a time). Chunks are made in order, each in
 * its place: chunk c of the entries at area + c pages, of the imports at
 * area - (c + 1) pages. */
struct family {
	uint32_t n;                     /* indices given */
	uint32_t made;                  /* chunks made (and read+exec) */
	uint32_t writable;              /* chunks made or writable */
	uint8_t *area;
};
static struct family entries, imports;

/* bytes of code per index (not a field: an initializer would move both
 * families, 66 KB, into .data) */
static uint32_t size_of(const struct family *f)
{
	return f == &entries ? ENTRY_CODE_SIZE : HOOK_STUB_SIZE;
}
static int32_t lim_off, recs_off;       /* of sc_tls_lim, sc_tls_recs */
static bool bare;                       /* SCALER_BARE=1: entries only jump on */

SC_HIDDEN struct sc_entry *sc_entry_table;
SC_HIDDEN struct sc_hook *sc_hook_table;
/*
 * The edge of each import (and of its entry, sc_entry's), set when it is
 * made: caller << 16 | callee (object ids, 16 bits as in sc_hook), or 0
 * for a call within one object, which is on no edge. Equal keys mean the
 * same edge, so a call nested in a call on its own edge is counted once
 * in the edge's time.
 */
static uint32_t *import_edge_top;       /* import n's is import_edge_top[-1 - n] */
#define IMPORT_EDGE(n) (import_edge_top[-1 - (long)(n)])

static uint32_t edge_key(uint32_t caller, uint32_t callee)
{
	return caller == callee ? 0 : (caller & 0xffffu) << 16 | (callee & 0xffffu);
}

static uint8_t *chunk_at(const struct family *f, uint32_t c)
{
	return f == &entries ? f->area + (size_t)c * CHUNK_BYTES : f->area - (size_t)(c + 1) * CHUNK_BYTES;
}

/* Writes the code of chunk c of f in its place (still writable). */
static bool write_chunk(struct family *f, uint32_t c)
{
	uint8_t *m = chunk_at(f, c);
	void *common = f == &entries ? (void *)sc_shadow_rare : (void *)sc_pending_common;
	memcpy(m, &common, sizeof(common));
	uint32_t per = PER_CHUNK(size_of(f));
	bool ok = true;
	for (uint32_t i = 0; i < per && ok; i++) {
		uint32_t idx = c * per + i;
		uint8_t *code = m + CHUNK_HEAD + i * size_of(f);
		if (f != &entries)
			sc_arch_write_stub(code, idx, m);
		else if (idx < SC_MAX_ENTRIES)
			ok = bare ? sc_arch_write_bare_entry(code, &sc_entry_table[idx].target)
				  : sc_arch_write_entry(code, idx, m, &sc_entry_table[idx].target,
							lim_off, recs_off);
	}
	if (!ok)
		errno = ERANGE;
	return ok;
}

/* Makes f's next STEP chunks (fewer at the end of its room) writable. */
static int next_step(struct family *f)
{
	uint32_t max = f == &entries ? ENTRY_CHUNKS : MAX_CHUNKS;
	uint32_t to = f->writable + STEP < max ? f->writable + STEP : max;
	if (to <= f->writable) {
		errno = ENOSPC;
		return -1;
	}
	uint8_t *lo = f == &entries ? chunk_at(f, f->writable) : chunk_at(f, to - 1);
	if (mprotect(lo, (size_t)(to - f->writable) * CHUNK_BYTES, PROT_READ | PROT_WRITE) != 0)
		return -1;
	f->writable = to;
	return 0;
}

/* Writes chunk c of f, then makes it read+exec. */
static int new_chunk(struct family *f, uint32_t c)
{
	uint8_t *m = chunk_at(f, c);
	if ((c >= f->writable && next_step(f) != 0) || !write_chunk(f, c) ||
	    mprotect(m, CHUNK_BYTES, PROT_READ | PROT_EXEC) != 0)
		return -1;
	__atomic_store_n(&f->made, c + 1, __ATOMIC_RELEASE);
	return 0;
}

/* the entry table, the imports' edges, the import table (TABLES_BYTES,
 * writable), then room for every import's stub and
 * every entry's code: ~125 MB of address space, nothing committed */
#define ENTRY_CODE_BYTES ((size_t)ENTRY_CHUNKS * CHUNK_BYTES)
#define HOOKS_BYTES ((size_t)SC_MAX_ENTRIES * sizeof(struct sc_hook))
#define EDGES_BYTES ((size_t)SC_MAX_ENTRIES * sizeof(uint32_t))
#define STUBS_BYTES ((size_t)MAX_CHUNKS * CHUNK_BYTES)
/* where the import table starts past a page boundary: the imports' edges
 * and the import table meet in one page (each first page was a fault);
 * the tables keep a whole page for it, so the code's room stays aligned */
#define MEET ((size_t)CHUNK_BYTES / 2)
#define TABLES_BYTES (TABLE_BYTES + EDGES_BYTES + CHUNK_BYTES + HOOKS_BYTES)

size_t sc_shadow_bytes(size_t *rw)
{
	*rw = TABLES_BYTES;
	return TABLES_BYTES + STUBS_BYTES + ENTRY_CODE_BYTES;
}

int sc_shadow_init(void)
{
	uint8_t *m = sc_mem_table(TABLES_BYTES + STUBS_BYTES + ENTRY_CODE_BYTES, TABLES_BYTES);
	if (!m) {
		sc_warn("cannot reserve the shadow table: %s", strerror(errno));
		return -1;
	}
	sc_entry_table = (struct sc_entry *)m;
	import_edge_top = (uint32_t *)(m + TABLE_BYTES + EDGES_BYTES + MEET);
	sc_hook_table = (struct sc_hook *)import_edge_top;
	imports.area = entries.area = m + TABLES_BYTES + STUBS_BYTES;
	intptr_t lo = sc_arch_tls_offset(&sc_tls_lim), ro = sc_arch_tls_offset(&sc_tls_recs);
	if (lo != (int32_t)lo || ro != (int32_t)ro) {
		sc_warn("thread-local state out of reach of the shadow code");
		return -1;
	}
	lim_off = (int32_t)lo;
	recs_off = (int32_t)ro;
	const char *b = sc_getenv("SCALER_BARE");
	bare = b && !strcmp(b, "1");
	/* both families' first chunks, which every process uses: one page
	 * pair, one mprotect, in the first step of both, another */
	if (mprotect(chunk_at(&imports, STEP - 1), 2 * STEP * CHUNK_BYTES,
		     PROT_READ | PROT_WRITE) != 0 ||
	    !write_chunk(&imports, 0) || !write_chunk(&entries, 0) ||
	    mprotect(chunk_at(&imports, 0), 2 * CHUNK_BYTES, PROT_READ | PROT_EXEC) != 0) {
		sc_warn("cannot map shadow code: %s", strerror(errno));
		return -1;
	}
	imports.made = entries.made = 1;
	imports.writable = entries.writable = STEP;
	return 0;
}

static void *code_of(const struct family *f, uint32_t idx)
{
	uint32_t per = PER_CHUNK(size_of(f));
	return chunk_at(f, idx / per) + CHUNK_HEAD + (idx % per) * size_of(f);
}

/* The next index of f with its code in place, or -1. Under the lock. */
static long next_index(struct family *f)
{
	uint32_t idx = f->n, per = PER_CHUNK(size_of(f));
	if (idx >= SC_MAX_ENTRIES)
		return -1;
	if (idx % per == 0 && idx / per >= f->made && new_chunk(f, idx / per) != 0) {
		sc_warn("cannot map shadow code: %s", strerror(errno));
		return -1;
	}
	return idx;
}

void *sc_entry_code(uint32_t idx)
{
	return code_of(&entries, idx);
}

void *sc_hook_code(uint32_t n)
{
	return code_of(&imports, n);
}

uint32_t sc_hook_count(void)
{
	return __atomic_load_n(&imports.n, __ATOMIC_ACQUIRE);
}

bool sc_shadow_code_has(uintptr_t pc)
{
	uintptr_t a = (uintptr_t)entries.area;
	return a && pc >= a && pc - a < (uintptr_t)ENTRY_CHUNKS * CHUNK_BYTES;
}

uint32_t sc_entry_count(void)
{
	return __atomic_load_n(&entries.n, __ATOMIC_ACQUIRE);
}

/* Whether p is code of an entry or of an import: what a slot the runtime
 * wrote holds. */
bool sc_shadow_code(const void *p)
{
	const uint8_t *c = p;
	if (sc_shadow_code_has((uintptr_t)p))
		return true;
	uint32_t made = __atomic_load_n(&imports.made, __ATOMIC_ACQUIRE);
	return imports.area && c < imports.area && c >= imports.area - (size_t)made * CHUNK_BYTES;
}

/*
 * Every import forgets its entry: a call through its stub (a pointer dlsym
 * handed out) then takes the general path to sc_hook_pass, which sends it
 * to the target unseen once the runtime is no longer active (detached).
 * Under the leaf lock.
 */
void sc_hooks_unbind(void)
{
	for (uint32_t n = 0; n < imports.n; n++)
		__atomic_and_fetch(&sc_hook_table[n].bound, ~((1u << HK_IDX_BITS) - 1),
				   __ATOMIC_RELEASE);
}

/* Takes the leaf lock: an import's first call makes entries without the
 * runtime lock (sc_hook_bind). */
long sc_entry_new(void *target, uint32_t flags, uint32_t edge)
{
	sc_leaf_lock();
	long idx = next_index(&entries);
	if (idx < 0) {
		sc_leaf_unlock();
		return -1;
	}
	/* a callee that reads its return address must see its real caller */
	size_t code = flags & SC_ENT_NOTIME ? 0 : sc_object_code_len((uintptr_t)target);
	if (code && sc_arch_reads_return_address(target, code < 256 ? code : 256))
		flags |= SC_ENT_NOTIME;
	target = sc_functions_target(target);   /* not through a patched entry */
	sc_entry_table[idx].target = target;
	sc_entry_table[idx].flags = flags;
	sc_entry_table[idx].edge = edge;
	__atomic_store_n(&entries.n, (uint32_t)idx + 1, __ATOMIC_RELEASE);
	sc_leaf_unlock();
	return idx;
}

#define IDX_MASK ((1u << HK_IDX_BITS) - 1)

/* Under the leaf lock: a scan (runtime lock held) and dlsym (no runtime
 * lock, see lock.c) both add imports. */
long sc_hook_new(void *target, struct sc_object *to, uint32_t flags, uint32_t caller,
		 uint32_t callee, const char *name, uintptr_t slot)
{
	if (!to)
		to = sc_object_of((uintptr_t)target);
	uintptr_t cbase = sc_object_base(caller);
	if (!to || (uintptr_t)target - to->base > UINT32_MAX ||
	    (slot && (slot - cbase == 0 || slot - cbase > UINT32_MAX)))
		return SC_HOOK_SKIP;            /* not an offset we can keep */
	sc_leaf_lock();
	long n = next_index(&imports);
	if (n < 0) {
		sc_leaf_unlock();
		return -1;
	}
	struct sc_hook *h = &sc_hook_table[n];
	if ((flags & SC_ENT_ARGS) && !sc_args_hook((uint32_t)n, name, callee))
		flags &= ~SC_ENT_ARGS;
	h->target_off = (uint32_t)((uintptr_t)target - to->base);
	h->tobj = (uint16_t)to->id;
	h->caller = (uint16_t)caller;
	h->slot_off = slot ? (uint32_t)(slot - cbase) : 0;
	h->bound = flags << HK_IDX_BITS;
	IMPORT_EDGE(n) = edge_key(caller, callee);
	__atomic_store_n(&imports.n, (uint32_t)n + 1, __ATOMIC_RELEASE);
	struct sc_m_entry e = {.idx = (uint32_t)n, .caller = caller, .callee = callee,
			       .flags = flags};
	sc_meta_add(SC_M_ENTRY, &e, sizeof(e), name);
	sc_leaf_unlock();
	return n;
}

void *sc_hook_target(uint32_t n)
{
	const struct sc_hook *h = &sc_hook_table[n];
	return (void *)(sc_object_base(h->tobj) + h->target_off);
}

/*
 * Where a call through import n goes when it cannot bind now (sc_slow:
 * runtime code, or a lock held): on to its entry, counted, if it has one
 * (the call came because sc_pend_budget ran out, patch.c: the waiting
 * slots wait for the next chance, and the budget starts again), else to
 * the target itself, unseen.
 */
void *sc_hook_pass(uint32_t n)
{
	uint32_t b = __atomic_load_n(&sc_hook_table[n].bound, __ATOMIC_ACQUIRE) & IDX_MASK;
	if (!b)
		return sc_hook_target(n);
	__atomic_store_n(&sc_pend_budget, SC_PEND_CALLS, __ATOMIC_RELAXED);
	return sc_entry_code(b - 1);
}

/*
 * The first call through import n (from sc_slow, every register of the
 * call saved): gives it an entry, writes SC_M_BIND, points its GOT slot at
 * the entry's code, and answers where the call goes on: the entry's code,
 * or the target itself (uncounted) when an entry cannot be made now.
 * Also a later call of a bound import whose slot waits to be repointed,
 * when sc_pend_budget runs out (patch.c): the flush may be due.
 */
void *sc_hook_bind(uint32_t n)
{
	struct sc_hook *h = &sc_hook_table[n];
	/* the leaf lock, not the runtime lock: see lock.c */
	sc_leaf_lock();
	if (sc_detached) {                      /* lost the race with detaching */
		sc_leaf_unlock();
		return sc_hook_target(n);
	}
	uint32_t b = h->bound & IDX_MASK;
	if (b)
		sc_objects_flush_due();         /* sc_pend_budget ran out */
	if (!b) {
		uint32_t flags = h->bound >> HK_IDX_BITS;
		long idx = sc_entry_new(sc_hook_target(n), flags, IMPORT_EDGE(n));
		if (idx < 0) {
			sc_leaf_unlock();
			return sc_hook_target(n);
		}
		if (flags & SC_ENT_ARGS)
			sc_args_bind(n, (uint32_t)idx);
		struct sc_m_bind mb = {.import = n, .idx = (uint32_t)idx,
				       .flags = sc_entry_table[idx].flags};
		sc_meta_add(SC_M_BIND, &mb, sizeof(mb), NULL);
		b = (uint32_t)idx + 1;
		__atomic_store_n(&h->bound, h->bound | b, __ATOMIC_RELEASE);
		if (h->slot_off)
			sc_objects_repoint(h->caller, sc_object_base(h->caller) + h->slot_off,
					   sc_hook_code(n), sc_entry_code(b - 1));
		sc_objects_flush_due();
	}
	sc_leaf_unlock();
	return sc_entry_code(b - 1);
}

/*
 * APIs that must not have their return address replaced, and why. This is
 * the one table of them; patch.c and wrap.c consult it by name.
 *   - return twice: the second return would find its frame popped
 *   - never return: their frame would only be dropped later
 *   - unwinders: must see real return addresses (SC_ENT_UNWIND restores
 *     those of calls in flight before they run)
 *   - look at their caller: wrapped (wrap.c), so they see the real one;
 *     other functions that read their return address are found by their
 *     code (arch peek.c, in sc_entry_new)
 *   - keep every register: mcount and its kin are called from function
 *     prologues with the arguments live, while a timed call's return may
 *     change what the ABI lets a callee change (trampoline.S). They read their
 *     return address too, so peek.c finds them; the names make sure.
 */
static const char *const notime_names[] = {
	/* return twice */
	"setjmp", "_setjmp", "sigsetjmp", "__sigsetjmp", "vfork", "getcontext",
	"fork", "_Fork", "clone", "clone3", "savectx",
	/* never return */
	"exit", "_exit", "_Exit", "quick_exit", "abort", "pthread_exit",
	"longjmp", "_longjmp", "siglongjmp", "__longjmp_chk", "setcontext",
	"swapcontext", "__libc_start_main", "__stack_chk_fail", "__chk_fail",
	"__fortify_fail", "__assert_fail", "__assert_perror_fail", "__assert",
	"err", "errx", "verr", "verrx", "__cxa_throw", "__cxa_rethrow",
	"__cxa_bad_cast", "__cxa_bad_typeid", "__cxa_throw_bad_array_new_length",
	"__cxa_pure_virtual", "__cxa_deleted_virtual", "_ZSt9terminatev",
	"__cxa_call_terminate", "__cxa_call_unexpected", "execve", "execv",
	"execvp", "execvpe", "execl", "execlp", "execle", "fexecve", "execveat",
	/* keep every register */
	"mcount", "_mcount", "__fentry__",
	NULL,
};
static const char *const unwind_names[] = {
	"_Unwind_RaiseException", "_Unwind_Resume", "_Unwind_Resume_or_Rethrow",
	"_Unwind_ForcedUnwind", "__cxa_rethrow", "__cxa_throw",
	/* thread exit and cancellation unwind the thread's stack: glibc
	 * reaches libgcc's unwinder through pointers, never a PLT, but the
	 * unwinder asks the loader for each frame's FDE through its GOT
	 * (wrap.c makes sure libgcc_s is hooked before a cancellation) */
	"pthread_exit", "__pthread_unwind_next", "_dl_find_object",
	/* stack walkers: they must see real return addresses too */
	"backtrace", "_Unwind_Backtrace", NULL,
};

/*
 * Blocking APIs: time in them is reported as Wait, apart from the work of
 * the component that waits (the paper's Wait slice). Condition variables,
 * barriers, joins, semaphores, sleeps, I/O multiplexing and child waits.
 * Every call of them is timed (in adaptive mode too), and while one is in
 * flight its thread does not count as running for the parallel clock.
 */
static const char *const wait_names[] = {
	"pthread_cond_wait", "pthread_cond_timedwait", "pthread_cond_clockwait",
	"pthread_barrier_wait", "pthread_join", "pthread_timedjoin_np",
	"pthread_clockjoin_np", "sem_wait", "sem_timedwait", "sem_clockwait",
	"nanosleep", "clock_nanosleep", "usleep", "sleep", "poll", "ppoll",
	"select", "pselect", "epoll_wait", "epoll_pwait", "epoll_pwait2",
	"waitpid", "wait", "wait3", "wait4", "waitid", "sigwait", "sigwaitinfo",
	"sigtimedwait", "pause", "sigsuspend", "msgrcv", "mq_receive",
	"mq_timedreceive", NULL,
};

/*
 * APIs that may or may not block: reads of pipes and sockets, accepting
 * and connecting, mutex and rwlock acquisition. Whether a call blocked
 * cannot be told before it returns, so the part of their time spent in
 * calls longer than the blocking threshold (sc_block_ticks, 10 us: a
 * wake-up alone takes a few) is reported as Wait, the rest as work. A
 * read of a large cached file that takes over 10 us is misread as Wait;
 * the thread is not taken off the parallel clock for them.
 */
static const char *const mayblock_names[] = {
	"read", "readv", "recv", "recvfrom", "recvmsg", "recvmmsg", "accept",
	"accept4", "connect", "pthread_mutex_lock", "pthread_mutex_timedlock",
	"pthread_mutex_clocklock", "pthread_rwlock_rdlock", "pthread_rwlock_wrlock",
	"pthread_rwlock_timedrdlock", "pthread_rwlock_timedwrlock",
	"pthread_rwlock_clockrdlock", "pthread_rwlock_clockwrlock", "flock",
	"lockf", NULL,
};

static bool in(const char *const *list, const char *name)
{
	for (; *list; list++)
		if (sc_name_eq(*list, name))
			return true;
	return false;
}

/*
 * A Bloom filter of the names of the four lists above and of every API
 * with a wrapper (sc_wrapper_names; two bits of each name's GNU hash
 * among 4096), made at the first lookup: most imports are in none of
 * them, and comparing each with every name cost python3's start (~500
 * imports) tens of microseconds. state: 0 not made, 1 being made (a
 * thread that finds it so reads the lists), 2 made.
 */
#define BLOOM_BITS 4096u
static uint64_t bloom[BLOOM_BITS / 64];        /* .bss: see SC_LARGE_BSS */
static int bloom_state;

static void bloom_add_one(const char *name)
{
	uint32_t h = sc_gnu_hash(name);
	bloom[(h % BLOOM_BITS) / 64] |= 1ull << (h % 64);
	bloom[((h >> 12) % BLOOM_BITS) / 64] |= 1ull << ((h >> 12) % 64);
}

static void bloom_add(const char *const *list)
{
	for (; *list; list++)
		bloom_add_one(*list);
}

/* false if name is in none of the lists and has no wrapper; true if it
 * may be or have */
static bool maybe_listed(const char *name)
{
	int st = __atomic_load_n(&bloom_state, __ATOMIC_ACQUIRE);
	if (st == 0 && __atomic_compare_exchange_n(&bloom_state, &st, 1, false,
						   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		bloom_add(notime_names);
		bloom_add(unwind_names);
		bloom_add(wait_names);
		bloom_add(mayblock_names);
		sc_wrapper_names(bloom_add_one);
		__atomic_store_n(&bloom_state, 2, __ATOMIC_RELEASE);
		st = 2;
	}
	if (st != 2)
		return true;
	uint32_t h = sc_gnu_hash(name);
	return (bloom[(h % BLOOM_BITS) / 64] >> (h % 64) & 1) &&
	       (bloom[((h >> 12) % BLOOM_BITS) / 64] >> ((h >> 12) % 64) & 1);
}

uint32_t sc_entry_flags_for(const char *name, void **wrapper)
{
	uint32_t f = 0;
	bool timed = false;
	*wrapper = NULL;
	bool maybe = maybe_listed(name);
	if (maybe)
		*wrapper = sc_wrapper_for(name, &timed);
	if (*wrapper)
		f |= SC_ENT_WRAP | (timed ? 0 : SC_ENT_NOTIME);
	if (maybe) {
		if (in(notime_names, name))
			f |= SC_ENT_NOTIME;
		if (in(unwind_names, name))
			f |= SC_ENT_UNWIND | SC_ENT_NOTIME;
		if (in(wait_names, name))
			f |= SC_ENT_WAIT;
		if (in(mayblock_names, name))
			f |= SC_ENT_MAYBLOCK;
	}
	if (!(f & (SC_ENT_NOTIME | SC_ENT_WRAP)) && sc_args_wants(name))
		f |= SC_ENT_ARGS;
	return f;
}
