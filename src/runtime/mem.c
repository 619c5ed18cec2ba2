/*
 * mem.c - the runtime's own memory, kept out of the program's malloc.
 *
 * Why not malloc: the runtime calls glibc's malloc directly (its imports
 * are bound to libc), so in a program with another allocator its first
 * malloc would make glibc set up a heap that the program never uses, and
 * what it freed would stay resident in that heap. Memory here comes
 * straight from mmap:
 *   sc_mem_grow / sc_mem_free   zeroed arrays used during a scan, given
 *                               back after (RSS goes back to what it was,
 *                               but for SCRATCH_KEEP bytes at most)
 *   sc_mem_trim                 gives back the scratch region's pages
 *                               (all but its first SCRATCH_KEEP bytes)
 *   sc_mem_strdup               strings kept for the process's life
 *                               (object paths), packed into pages
 * Callers hold the runtime lock (sc_mem_strdup) or own the array.
 *
 * A scan makes a dozen short-lived arrays, and a mapping of its own for
 * each cost an mmap, a page fault and a munmap (a third of the start-up
 * of a small program, doc/performance.md). So arrays that fit come from
 * one scratch region, reserved once: a stack of blocks, where freeing the
 * top block (or all of them) makes room again, and growing the top block
 * grows it in place. sc_mem_trim, at the end of a scan, gives its pages
 * past the first SCRATCH_KEEP back with one madvise once every block is
 * free. The region is taken by
 * an atomic flag, never waited for: a thread that finds it taken (another
 * thread allocating, as wrap.c's lookups may) maps its array as before,
 * and a block freed meanwhile stays in use until the process ends, which
 * only costs the region's room.
 *
 * At start-up (sc_mem_init) one mapping reserves the scratch region, the
 * strings' first page right after it and the shadow tables (sc_mem_table):
 * a mapping each cost an mmap, and their first pages, which every process
 * writes, then share a page-table page. The region's first page also holds
 * rawfork.c's mark (sc_mem_wipe_page). The tables' room past what is
 * writable from the start (the shadow code's, made writable a step at a
 * time) has no access: where the kernel never overcommits
 * (vm.overcommit_memory=2 ignores MAP_NORESERVE), writable private memory
 * is charged to the commit limit whole, at the start and at every fork,
 * and memory once writable stays charged.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "runtime.h"

#define PAGE SC_PAGE
#define HEAD 16u        /* the block's length, before the array */
#define SCRATCH (1024u * 1024u)
/* sc_mem_trim keeps the region's first pages: a small program's whole
 * scan fits in them, and giving them back (an madvise, its TLB flush) then
 * faulting them in again at the next scan cost more than the room they
 * hold; a process never keeps more than this much of the region */
#define SCRATCH_KEEP (256u * 1024u)

/* A block's length for n bytes: a page multiple, or for a small array a
 * multiple of 64 bytes, so that the scan's small arrays share pages (a
 * small program's scan wrote ten pages of page-sized blocks, each one
 * page fault, doc/performance.md) */
#define SMALL 64u
static size_t round_up(size_t n)
{
	if (n + HEAD <= PAGE / 2)
		return (n + HEAD + SMALL - 1) / SMALL * SMALL;
	return (n + HEAD + PAGE - 1) / PAGE * PAGE;
}

static char *scratch;           /* SCRATCH bytes, reserved by sc_mem_init or
				   mapped at first use */
static size_t top;              /* bytes of it in blocks */
static size_t base;             /* where its blocks start: past the mark's room */
static bool wipes;              /* its first page is MADV_WIPEONFORK (sc_mem_wipe_page) */
static size_t dirty;            /* bytes of it written since mapped or trimmed */
static uint32_t live;           /* blocks in use */
static bool busy;               /* taken by a thread (never waited for) */

static bool take(void)
{
	return !__atomic_test_and_set(&busy, __ATOMIC_ACQUIRE);
}

static void give(void)
{
	__atomic_clear(&busy, __ATOMIC_RELEASE);
}

static bool in_scratch(const char *h)
{
	return scratch && h >= scratch && h < scratch + SCRATCH;
}

/* Zeroes [at, at + n) of the region where it may have been written. */
static void clean(size_t at, size_t n)
{
	if (at < dirty)
		memset(scratch + at, 0, (at + n < dirty ? at + n : dirty) - at);
	if (at + n > dirty)
		dirty = at + n;
}

/* A zeroed block of len bytes (its header included) from the region, or
 * NULL. Holds the region. */
static char *scratch_block(size_t len)
{
	if (!scratch) {
		void *m = mmap(NULL, SCRATCH, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (m == MAP_FAILED)
			return NULL;
		scratch = m;
	}
	if (len > SCRATCH - top)
		return NULL;
	char *h = scratch + top;
	clean(top, len);
	top += len;
	live++;
	return h;
}

/* A zeroed block of len bytes (its header included), or NULL. */
static char *new_block(size_t len)
{
	char *h = NULL;
	if (len <= SCRATCH / 4 && take()) {
		h = scratch_block(len);
		give();
	}
	if (!h) {
		len = (len + PAGE - 1) / PAGE * PAGE;
		h = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (h == MAP_FAILED)
			return NULL;
	}
	memcpy(h, &len, sizeof(len));
	return h;
}

/* Grows the region's top block h to len bytes in place; false if h is not
 * the top block or there is no room. */
static bool grow_top(char *h, size_t had, size_t len)
{
	bool ok = false;
	if (take()) {
		size_t at = (size_t)(h - scratch);
		if (at + had == top && len <= SCRATCH - at) {
			clean(top, len - had);
			top = at + len;
			memcpy(h, &len, sizeof(len));
			ok = true;
		}
		give();
	}
	return ok;
}

/* p (from sc_mem_grow, or NULL) with room for n bytes, contents kept and
 * the rest zeroed; NULL if no memory (p is then still valid). */
void *sc_mem_grow(void *p, size_t n)
{
	size_t len = round_up(n);
	if (len < n)
		return NULL;
	if (!p) {
		char *h = new_block(len);
		return h ? h + HEAD : NULL;
	}
	char *old = (char *)p - HEAD;
	size_t had;
	memcpy(&had, old, sizeof(had));
	if (had >= len)
		return p;
	if (in_scratch(old)) {
		if (grow_top(old, had, len))
			return p;
		char *h = new_block(len);
		if (!h)
			return NULL;
		memcpy(h + HEAD, p, had - HEAD);
		sc_mem_free(p);
		return h + HEAD;
	}
	char *h = mremap(old, had, len, MREMAP_MAYMOVE);
	if (h == MAP_FAILED)
		return NULL;
	memcpy(h, &len, sizeof(len));
	return h + HEAD;
}

void sc_mem_free(void *p)
{
	if (!p)
		return;
	char *h = (char *)p - HEAD;
	size_t len;
	memcpy(&len, h, sizeof(len));
	if (!in_scratch(h)) {
		munmap(h, len);
		return;
	}
	if (!take())
		return;                 /* left in use (see the top of the file) */
	if (--live == 0)
		top = base;
	else if ((size_t)(h - scratch) + len == top)
		top = (size_t)(h - scratch);
	give();
}

/* Gives back the scratch region's pages past SCRATCH_KEEP if no block is
 * in use. */
void sc_mem_trim(void)
{
	if (!take())
		return;
	if (!live && dirty > SCRATCH_KEEP) {
		madvise(scratch + SCRATCH_KEEP, (dirty - SCRATCH_KEEP + PAGE - 1) / PAGE * PAGE,
			MADV_DONTNEED);
		dirty = SCRATCH_KEEP;
	}
	give();
}

static char *str_at;            /* sc_mem_strdup's room: left bytes at str_at */
static size_t str_left;
static char *table;             /* room sc_mem_init kept for sc_mem_table */
static size_t table_len, table_rw;

/* len bytes of zeroed address space, nothing committed, the first rw
 * writable and the rest without access; NULL if none. */
static char *reserve(size_t len, size_t rw)
{
	char *m = mmap(NULL, len, rw < len ? PROT_NONE : PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	if (rw < len && mprotect(m, rw, PROT_READ | PROT_WRITE) != 0) {
		munmap(m, len);
		return NULL;
	}
	return m;
}

/*
 * The start-up reservation: the scratch region, a page for strings and
 * table_bytes for sc_mem_table (its first table_rw_bytes writable), one
 * mapping. Before any other call here (else it does nothing); failing,
 * each part is mapped when first needed, as without it.
 */
void sc_mem_init(size_t table_bytes, size_t table_rw_bytes)
{
	if (scratch || str_at || table)
		return;
	char *m = reserve(SCRATCH + PAGE + table_bytes, SCRATCH + PAGE + table_rw_bytes);
	if (!m)
		return;
	/* before any page of it is written: a VMA without pages splits
	 * at half the cost */
	wipes = madvise(m, PAGE, MADV_WIPEONFORK) == 0;
	scratch = m;
	str_at = m + SCRATCH;
	str_left = PAGE;
	table = str_at + PAGE;
	table_len = table_bytes;
	table_rw = table_rw_bytes;
}

/* bytes of zeroed address space (nothing committed), the first rw
 * writable and the rest without access, for a table kept as long as the
 * process: sc_mem_init's room when it was made for it, else a mapping of
 * its own; NULL if none. */
void *sc_mem_table(size_t bytes, size_t rw)
{
	if (table && table_len == bytes && table_rw == rw) {
		void *t = table;
		table = NULL;
		return t;
	}
	return reserve(bytes, rw);
}

/*
 * The scratch region's first page, marked MADV_WIPEONFORK by sc_mem_init
 * (a fork child gets it zeroed), for rawfork.c's mark: its first 64 bytes
 * are the caller's from now on; blocks start past them. Every start-up's
 * scan writes that page anyway: a page fault and a mapping less than a
 * page of the mark's own. What else the page holds is dead in a fork
 * child: a block is in use only inside a call of the runtime's, and no
 * fork happens there (a libc fork waits for the runtime lock, which a scan
 * holds; a thread in another call is not copied into the child, where its
 * block is never read again). Not for a child made by a raw fork in a
 * signal handler that interrupted the runtime's own work in that thread.
 * NULL without the reservation or the advice, once a block was made, or
 * at a second call.
 */
void *sc_mem_wipe_page(void)
{
	if (!wipes || !take())
		return NULL;
	char *p = NULL;
	if (!base && !top && !live && !dirty) {
		base = top = SMALL;
		p = scratch;
	}
	give();
	return p;
}

/* A copy of s that lives as long as the process; NULL if no memory. */
const char *sc_mem_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	if (n > str_left) {
		size_t len = (n + PAGE - 1) / PAGE * PAGE;
		char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return NULL;
		str_at = m;
		str_left = len;
	}
	char *r = str_at;
	memcpy(r, s, n);
	str_at += n;
	str_left -= n;
	return r;
}
