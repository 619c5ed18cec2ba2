/*
 * sc_bump.c - a preloaded allocator for the "args" e2e test
 * (checks/args.py, args-allocator): malloc and its family from a bump
 * arena, free a no-op; built twice, with its own malloc_usable_size
 * (-DUSABLE: libsc_bumpu.so) and without (libsc_bump.so). --args must
 * take free's size from this allocator's malloc_usable_size, or not at
 * all: glibc's would read a header this allocator never wrote.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define ARENA (256u << 20)
#define HDR 16u

static char *arena, *next;

void *memalign(size_t align, size_t size)
{
	if (!arena) {
		arena = mmap(NULL, ARENA, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
			     MAP_NORESERVE, -1, 0);
		if (arena == MAP_FAILED)
			return arena = NULL;
		next = arena;
	}
	if (align < HDR)
		align = HDR;
	uintptr_t p = ((uintptr_t)next + HDR + align - 1) & ~(uintptr_t)(align - 1);
	if (size > ARENA || p + size > (uintptr_t)arena + ARENA) {
		errno = ENOMEM;
		return NULL;
	}
	/* the size asked for plus 3, so that sizes tell the allocators apart */
	*(size_t *)(p - HDR) = size + 3;
	next = (char *)(p + size);
	return (void *)p;
}

void *malloc(size_t size) { return memalign(HDR, size); }
void free(void *p) { (void)p; }
void *aligned_alloc(size_t align, size_t size) { return memalign(align, size); }
void *valloc(size_t size) { return memalign(4096, size); }
void *pvalloc(size_t size) { return memalign(4096, (size + 4095) & ~(size_t)4095); }

void *calloc(size_t n, size_t size)
{
	size_t all;
	if (__builtin_mul_overflow(n, size, &all)) {
		errno = ENOMEM;
		return NULL;
	}
	void *p = malloc(all);
	return p ? memset(p, 0, all) : NULL;
}

void *realloc(void *old, size_t size)
{
	void *p = malloc(size);
	if (p && old) {
		size_t had = *(size_t *)((char *)old - HDR) - 3;
		memcpy(p, old, had < size ? had : size);
	}
	return p;
}

int posix_memalign(void **out, size_t align, size_t size)
{
	void *p = memalign(align, size);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

#ifdef USABLE
size_t malloc_usable_size(void *p)
{
	return p ? *(size_t *)((char *)p - HDR) : 0;
}
#endif
