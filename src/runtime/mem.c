/*
 * mem.c - the runtime's own memory, kept out of the program's malloc.
 *
 * Why not malloc: the runtime calls glibc's malloc directly (its imports
 * are bound to libc), so in a program with another allocator its first
 * malloc would make glibc set up a heap that the program never uses, and
 * what it freed would stay resident in that heap. Memory here comes
 * straight from mmap:
 *   sc_mem_grow / sc_mem_free   arrays used during a scan, unmapped after
 *                               (RSS goes back to what it was)
 *   sc_mem_strdup               strings kept for the process's life
 *                               (object paths), packed into pages
 * Callers hold the runtime lock (sc_mem_strdup) or own the array.
 */
#include <string.h>
#include <sys/mman.h>

#include "runtime.h"

#define PAGE 4096u
#define HEAD 16u        /* the mapping's length, before the array */

static size_t round_up(size_t n)
{
	return (n + HEAD + PAGE - 1) / PAGE * PAGE;
}

/* p (from sc_mem_grow, or NULL) with room for n bytes, contents kept;
 * NULL if no memory (p is then still valid). */
void *sc_mem_grow(void *p, size_t n)
{
	size_t len = round_up(n);
	if (len < n)
		return NULL;
	char *h;
	if (!p) {
		h = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	} else {
		char *old = (char *)p - HEAD;
		size_t had;
		memcpy(&had, old, sizeof(had));
		if (had >= len)
			return p;
		h = mremap(old, had, len, MREMAP_MAYMOVE);
	}
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
	munmap(h, len);
}

/* A copy of s that lives as long as the process; NULL if no memory. */
const char *sc_mem_strdup(const char *s)
{
	static char *at;
	static size_t left;
	size_t n = strlen(s) + 1;
	if (n > left) {
		size_t len = (n + PAGE - 1) / PAGE * PAGE;
		char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return NULL;
		at = m;
		left = len;
	}
	char *r = at;
	memcpy(r, s, n);
	at += n;
	left -= n;
	return r;
}
