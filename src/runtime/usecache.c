/*
 * usecache.c - what the GOT-use scan (gotuse.c) found in an object file,
 * kept for the other processes of the run.
 *
 * Deciding which GLOB_DAT slots are calls reads all of an object's code:
 * ~0.7 ms for git's or python3's executable, ~0.25 ms for libc when
 * python3 interposes malloc, in every process that loads them, and a
 * build starts the same compiler thousands of times. What the scan finds
 * depends on the file's bytes only, so the first process of a run that
 * reads an object writes, for every GLOB_DAT slot of a function in it,
 * its offset from the load base and whether it is a call (never loaded),
 * and the others read that instead of the code.
 *
 * The file is <profile dir>/g<build-id in hex>.use (format.h): an object
 * without a GNU build-id note is always read. A cache is a file someone
 * else could plant, and as root the directory is writable by all: it is
 * opened without following links and used only if it is a regular file
 * owned by this process's effective user, with the header's magic,
 * version and length of code (the sum of the executable segments, as
 * loaded) matching the object and offsets in increasing order. It is
 * created exclusively, mode 0600, with one write; a reader that finds it
 * short (being written, or its writer died) reads the code itself, and a
 * name that is taken is left as it is. Nothing here is essential: any
 * failure means the code is read, as without a cache. SCALER_USE_CACHE=0
 * turns it off (tests compare both ways).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "patch.h"

#define USE_MAGIC "SCALERG1"
#define USE_VERSION 1u
#define USE_MAX (1u << 20)      /* slots: far above any object's GOT */

struct use_header {
	char magic[8];
	uint32_t version, n;
	uint64_t code_len;
};

static int enabled = -1;

/* "<dir>/g<hex>.use" for o's build-id into buf (NULL: only whether it has
 * one; else of len bytes); false if it has none. By hand, not snprintf
 * (its code: pages of libc a small program never touches). */
static bool cache_path(const struct sc_object *o, char *buf, size_t len)
{
	for (int p = 0; p < o->phnum; p++) {
		const ElfW(Phdr) *ph = &o->phdr[p];
		if (ph->p_type != PT_NOTE)
			continue;
		const uint8_t *a = (const uint8_t *)(o->base + ph->p_vaddr), *end = a + ph->p_filesz;
		size_t align = ph->p_align > 4 ? 8 : 4;
		while (a + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)a;
			const uint8_t *name = a + sizeof(*nh);
			const uint8_t *desc = name + ((nh->n_namesz + align - 1) & ~(align - 1));
			if (desc + nh->n_descsz > end || desc < name)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    !memcmp(name, "GNU", 4) && nh->n_descsz >= 8 && nh->n_descsz <= 64) {
				static const char hex[] = "0123456789abcdef";
				if (!buf)
					return true;
				if (strlen(sc_dir) + 2 + 2 * nh->n_descsz + 5 > len)
					return false;
				char *d = sc_put_s(buf, sc_dir);
				d = sc_put_s(d, "/g");
				for (uint32_t i = 0; i < nh->n_descsz; i++) {
					*d++ = hex[desc[i] >> 4];
					*d++ = hex[desc[i] & 15];
				}
				*sc_put_s(d, ".use") = 0;
				return true;
			}
			a = desc + ((nh->n_descsz + align - 1) & ~(align - 1));
		}
	}
	return false;
}

static bool cache_on(void)
{
	if (enabled < 0) {
		const char *e = sc_getenv("SCALER_USE_CACHE");
		enabled = !(e && !strcmp(e, "0"));
	}
	return enabled;
}

/* Whether o's findings are kept (it has a build-id, the cache is on). */
bool sc_use_cache_wanted(const struct sc_object *o)
{
	return cache_on() && cache_path(o, NULL, 0);
}

/* open(2) of o's cache file, or -1 (no build-id, the cache is off). The
 * path is made in scratch, not on the stack: the scan runs deep, and
 * each page of stack below what the program uses is one more page
 * fault. */
static int cache_open(const struct sc_object *o, int flags)
{
	size_t len = strlen(sc_dir) + 2 + 2 * 64 + 5;
	char *path = cache_on() ? sc_mem_grow(NULL, len) : NULL;
	int fd = path && cache_path(o, path, len) ? open(path, flags, 0600) : -1;
	sc_mem_free(path);
	return fd;
}

/*
 * The cache of object o, whose executable segments hold code_len bytes:
 * its words (offset | 1 if the slot is a call, sorted) into *w (sc_mem),
 * their number into *n. False if there is none that can be trusted.
 */
bool sc_use_cache_get(const struct sc_object *o, uint64_t code_len, uint64_t **w, size_t *n)
{
	int fd = cache_open(o, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct stat st;
	struct use_header h;
	uint64_t *v = NULL;
	size_t size = 0;
	/* the whole file with one read, into the block the words are kept in */
	bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
		  st.st_size >= (off_t)sizeof(h) &&
		  st.st_size <= (off_t)(sizeof(h) + (size_t)USE_MAX * sizeof(uint64_t)) &&
		  (v = sc_mem_grow(NULL, size = (size_t)st.st_size)) &&
		  read(fd, v, size) == (ssize_t)size;
	close(fd);
	if (ok) {
		memcpy(&h, v, sizeof(h));
		ok = !memcmp(h.magic, USE_MAGIC, 8) && h.version == USE_VERSION && h.n <= USE_MAX &&
		     h.code_len == code_len && size == sizeof(h) + (size_t)h.n * sizeof(uint64_t);
	}
	if (ok) {
		memmove(v, (const char *)v + sizeof(h), (size_t)h.n * sizeof(uint64_t));
		for (uint32_t i = 1; ok && i < h.n; i++)
			ok = (v[i] & ~1ull) > (v[i - 1] & ~1ull);
	}
	if (!ok) {
		sc_mem_free(v);
		return false;
	}
	*w = v;
	*n = h.n;
	return true;
}

/* Writes the cache of object o (words as sc_use_cache_get gives them),
 * unless one exists. */
void sc_use_cache_put(const struct sc_object *o, uint64_t code_len, const uint64_t *w, size_t n)
{
	if (!cache_on() || n > USE_MAX || !cache_path(o, NULL, 0))
		return;
	size_t bytes = sizeof(struct use_header) + n * sizeof(uint64_t);
	struct use_header *h = sc_mem_grow(NULL, bytes);
	if (!h)
		return;
	memcpy(h->magic, USE_MAGIC, 8);
	h->version = USE_VERSION;
	h->n = (uint32_t)n;
	h->code_len = code_len;
	memcpy(h + 1, w, n * sizeof(uint64_t));
	int fd = cache_open(o, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t r = write(fd, h, bytes);
		(void)r;                        /* short: readers refuse it */
		close(fd);
	}
	sc_mem_free(h);
}
