/*
 * xalloc.c - the CLI's allocation helpers (xalloc.h): out of memory is
 * fatal.
 */
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>

void *sc_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q) {
		fputs("scaler: out of memory\n", stderr);
		exit(1);
	}
	return q;
}

void *sc_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p) {
		fputs("scaler: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

void *sc_grow(void *arr, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap;

	if (need <= c)
		return arr;
	c = c ? c : 8;
	while (c < need)
		c *= 2;
	*cap = c;
	return sc_xrealloc(arr, c * size);
}

void sc_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}
