/*
 * rss.c - giving back the pages patching read.
 *
 * Patching reads much more of every object than the program ever does:
 * the GOT-use scan (gotuse.c) reads all of its code, and parsing
 * relocations and resolving targets (patch.c, and dlsym/dlvsym, which
 * walk the hash, symbol and string tables of every loaded object) read
 * the read-only data. Each page read stays mapped in the process.
 *
 * So, before a scan first reads an object's code (sc_keep_rss_reading(),
 * from gotuse.c, once sc_keep_rss_arm() armed it for a scan),
 * sc_keep_rss_note() notes which pages of every object's read-only
 * segments are mapped (the present bit of /proc/self/pagemap), and
 * sc_keep_rss_drop() unmaps again, with
 * MADV_DONTNEED, those that were not and still are plain file pages (bit
 * 61: a page written since, copied on write, is anonymous and is never
 * touched): in each object after patching it, and in all at the end.
 * They are still in the page cache and come back on a minor fault if the
 * program uses them. Writable segments, objects with text relocations and
 * the runtime's own objects (skip: itself, ld.so, the vDSO) are left
 * alone. A pagemap that cannot be read, or a failed allocation, leaves
 * everything mapped: only memory is at stake.
 *
 * A scan whose every object is answered by the GOT-use cache (usecache.c)
 * reads no code and takes no note: the tables it reads are, in practice,
 * those the loader read already (with the cache warm, the final drop gave
 * back no page of /bin/true, python3, sqlite3 or git), and the note and
 * drop cost an open and 14-44 reads of pagemap per process.
 */
#include <elf.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "patch.h"

#define PM_PRESENT (1ull << 63)
#define PM_FILE (1ull << 61)

struct sc_keep_seg {
	uintptr_t lo;
	size_t np, first;       /* pages, and index of the first in was[] */
	const struct sc_object *o;
};

static bool has_textrel(const struct sc_object *o)
{
	for (const ElfW(Dyn) *d = o->dyn; d && d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_TEXTREL || (d->d_tag == DT_FLAGS && (d->d_un.d_val & DF_TEXTREL)))
			return true;
	return false;
}

/* Calls fn(k, lo, npages) for each whole-page read-only segment to watch. */
static size_t keep_rss_segs(struct sc_keep_rss *k, size_t page,
			    void (*fn)(struct sc_keep_rss *, const struct sc_object *, uintptr_t, size_t))
{
	size_t n = 0;
	for (uint32_t i = 0, n_objs = sc_object_count(); i < n_objs; i++) {
		const struct sc_object *o = sc_object_get(i);
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

static void keep_rss_add(struct sc_keep_rss *k, const struct sc_object *o, uintptr_t lo, size_t np)
{
	k->seg[k->n] = (struct sc_keep_seg){.lo = lo, .np = np, .first = k->pages, .o = o};
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

static void sc_keep_rss_note(struct sc_keep_rss *k)
{
	size_t page = (size_t)SC_PAGE;
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

static struct sc_keep_rss *armed;     /* to note before the first code read */

/* Makes k empty (nothing to drop) and to be noted when a scan first reads
 * code. Caller holds the runtime lock until sc_keep_rss_free(k). */
void sc_keep_rss_arm(struct sc_keep_rss *k)
{
	memset(k, 0, sizeof(*k));
	k->fd = -1;
	armed = k;
}

/* The scan is about to read an object's code: the armed note, once. */
void sc_keep_rss_reading(void)
{
	if (armed) {
		struct sc_keep_rss *k = armed;
		armed = NULL;
		sc_keep_rss_note(k);
	}
}

/* Unmaps what was mapped since sc_keep_rss_note in the segments of object
 * only (after patching it: the code its scan read), or of every object
 * (NULL: at the end, the symbol tables dlsym read in all of them). The
 * note stays true after a drop (what was mapped is mapped, what was not
 * is not again), so one note serves them all. */
void sc_keep_rss_drop(struct sc_keep_rss *k, const struct sc_object *only)
{
	size_t page = (size_t)SC_PAGE;
	uint8_t now[512];
	for (size_t s = 0; k->fd >= 0 && s < k->n; s++) {
		const struct sc_keep_seg *g = &k->seg[s];
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

void sc_keep_rss_free(struct sc_keep_rss *k)
{
	if (armed == k)
		armed = NULL;
	if (k->fd >= 0)
		close(k->fd);
	sc_mem_free(k->seg);
	sc_mem_free(k->was);
}
