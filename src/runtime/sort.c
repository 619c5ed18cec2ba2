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

/* by 8 bytes while it can (the runtime's arrays are of 8-byte fields) */
static void swap(unsigned char *a, unsigned char *b, size_t size)
{
	for (; size >= 8; size -= 8, a += 8, b += 8) {
		uint64_t x, y;
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		memcpy(a, &y, 8);
		memcpy(b, &x, 8);
	}
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

static void reverse(unsigned char *b, size_t lo, size_t hi, size_t size)
{
	while (lo + 1 < hi) {
		swap(b + lo * size, b + (hi - 1) * size, size);
		lo++;
		hi--;
	}
}

/*
 * A scan's slots come in relocation order: each of .rela.plt and
 * .rela.dyn in ascending order, the first (.got.plt) above the second
 * (.got): sorted, or two ascending runs to swap round. Those take O(n);
 * anything else a heapsort.
 */
void sc_rt_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	unsigned char *b = base;
	if (n < 2)
		return;
	size_t i = 1;
	while (i < n && cmp(b + (i - 1) * size, b + i * size) <= 0)
		i++;
	if (i == n)
		return;
	size_t j = i + 1;
	while (j < n && cmp(b + (j - 1) * size, b + j * size) <= 0)
		j++;
	if (j == n && cmp(b + (n - 1) * size, b) <= 0) {
		reverse(b, 0, i, size);
		reverse(b, i, n, size);
		reverse(b, 0, n, size);
		return;
	}
	for (size_t i = n / 2; i-- > 0;)
		sift(b, i, n, size, cmp);
	for (size_t end = n - 1; end > 0; end--) {
		swap(b, b + end * size, size);
		sift(b, 0, end, size, cmp);
	}
}
