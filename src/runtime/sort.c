/*
 * sort.c - the runtime's sort, in place (heapsort).
 *
 * glibc's qsort sorts through a buffer from malloc once the array passes
 * 1 KB, and first asks the kernel for the machine's memory (sysinfo): in
 * a program that never calls malloc, or has an allocator of its own, the
 * runtime's first sort of a scan's slots would set up glibc's heap (brk,
 * getrandom, page faults) at every start. This one allocates nothing;
 * like qsort it is not stable.
 */
#include "runtime.h"

static void swap(unsigned char *a, unsigned char *b, size_t size)
{
	while (size--) {
		unsigned char t = *a;
		*a++ = *b;
		*b++ = t;
	}
}

/* Moves element i of the heap [0, n) down to its place. */
static void sift(unsigned char *base, size_t i, size_t n, size_t size,
		 int (*cmp)(const void *, const void *))
{
	for (;;) {
		size_t big = i, l = 2 * i + 1, r = l + 1;
		if (l < n && cmp(base + l * size, base + big * size) > 0)
			big = l;
		if (r < n && cmp(base + r * size, base + big * size) > 0)
			big = r;
		if (big == i)
			return;
		swap(base + i * size, base + big * size, size);
		i = big;
	}
}

void sc_rt_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	unsigned char *b = base;
	if (n < 2)
		return;
	for (size_t i = n / 2; i-- > 0;)
		sift(b, i, n, size, cmp);
	for (size_t end = n - 1; end > 0; end--) {
		swap(b, b + end * size, size);
		sift(b, 0, end, size, cmp);
	}
}
