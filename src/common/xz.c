/*
 * xz.c - xz streams decompressed in memory (xz.h), with the system's
 * liblzma loaded by dlopen when first needed: the runtime reads
 * .gnu_debugdata only for `--functions`, and no other process may get an
 * extra library. Both the buffer and liblzma's own allocations are
 * anonymous mappings, never the profiled program's heap.
 */
#include <dlfcn.h>
#include <lzma.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

#include "xz.h"

#define XZ_SO "liblzma.so.5"
#define XZ_MAX ((size_t)256 << 20)

typedef lzma_ret (*buffer_decode_fn)(uint64_t *, uint32_t, const lzma_allocator *,
				     const uint8_t *, size_t *, size_t, uint8_t *, size_t *,
				     size_t);

static buffer_decode_fn decode;
static pthread_once_t loaded = PTHREAD_ONCE_INIT;

static void load(void)
{
	void *h = dlopen(XZ_SO, RTLD_NOW | RTLD_LOCAL);

	if (h)
		decode = (buffer_decode_fn)(uintptr_t)dlsym(h, "lzma_stream_buffer_decode");
}

/* liblzma's allocations: a mapping with its length in front. */
static void *xz_alloc(void *opaque, size_t nmemb, size_t size)
{
	size_t n;
	(void)opaque;
	if (__builtin_mul_overflow(nmemb, size, &n) || n > XZ_MAX)
		return NULL;
	n += 16;
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	memcpy(p, &n, sizeof(n));
	return (uint8_t *)p + 16;
}

static void xz_release(void *opaque, void *ptr)
{
	size_t n;
	(void)opaque;
	if (!ptr)
		return;
	memcpy(&n, (uint8_t *)ptr - 16, sizeof(n));
	munmap((uint8_t *)ptr - 16, n);
}

static const lzma_allocator mmap_allocator = { xz_alloc, xz_release, NULL };

int sc_xz_decode(const uint8_t *in, size_t n, struct sc_xz_buf *out)
{
	size_t cap = n < (XZ_MAX >> 4) ? n << 4 : XZ_MAX;

	memset(out, 0, sizeof(*out));
	pthread_once(&loaded, load);
	if (!decode || n == 0)
		return -1;
	if (cap < 65536)
		cap = 65536;
	/* the stream's size is in its index; a buffer that grows until it
	 * fits is simpler, and untouched pages of a mapping cost nothing */
	for (;;) {
		uint64_t memlimit = XZ_MAX;
		size_t in_pos = 0, out_pos = 0;
		uint8_t *p = mmap(NULL, cap, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED)
			return -1;
		lzma_ret r = decode(&memlimit, 0, &mmap_allocator, in, &in_pos, n, p, &out_pos, cap);
		if (r == LZMA_OK) {
			out->data = p;
			out->len = out_pos;
			out->map_len = cap;
			return 0;
		}
		munmap(p, cap);
		if (r != LZMA_BUF_ERROR || cap >= XZ_MAX)
			return -1;
		cap = cap > XZ_MAX / 2 ? XZ_MAX : cap * 2;
	}
}

void sc_xz_free(struct sc_xz_buf *b)
{
	if (b->data)
		munmap(b->data, b->map_len);
	memset(b, 0, sizeof(*b));
}
