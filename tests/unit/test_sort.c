/*
 * test_sort.c - the runtime's in-place sort (src/runtime/sort.c) against
 * qsort: the same order for arrays of every small length and of random,
 * sorted, reversed and repeated keys and two runs (a scan's slots), elements of 8 and of 24 bytes, and
 * no call of malloc (the reason it exists).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "runtime.h"

static int mallocs;

/* counts the calls of malloc: sc_rt_sort must make none (ASan has a
 * malloc of its own: that build checks the order only) */
#ifndef __SANITIZE_ADDRESS__
void *malloc(size_t n);
extern void *__libc_malloc(size_t n);
void *malloc(size_t n)
{
	mallocs++;
	return __libc_malloc(n);
}
#endif

struct wide { uint64_t key, a, b; };

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

static int cmp_wide(const void *x, const void *y)
{
	const struct wide *a = x, *b = y;
	return a->key < b->key ? -1 : a->key > b->key;
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

int main(void)
{
	static uint64_t a[4096], b[4096];
	static struct wide w[1000], v[1000];
	int bad = 0, wbad = 0;

	for (size_t n = 0; n <= 4096; n = n < 40 ? n + 1 : n * 2 + 1) {
		for (int kind = 0; kind < 5; kind++) {
			if (n > 4096)
				break;
			/* random, sorted, reversed, few keys, two ascending runs
			 * with the second below the first (a scan's slots) */
			for (size_t i = 0; i < n; i++)
				a[i] = kind == 0 ? next() : kind == 1 ? i : kind == 2 ? n - i
				     : kind == 3 ? next() % 5 : (i + n / 3) % n;
			memcpy(b, a, n * sizeof(a[0]));
			mallocs = 0;
			sc_rt_sort(a, n, sizeof(a[0]), cmp_u64);
			bad += mallocs != 0;
			qsort(b, n, sizeof(b[0]), cmp_u64);
			bad += memcmp(a, b, n * sizeof(a[0])) != 0;
		}
	}
	CHECK(bad == 0, "8-byte keys, lengths 0-40 and up to 4095, five orders: as qsort, "
	      "no malloc (%d differ)", bad);
	for (size_t i = 0; i < 1000; i++)
		w[i] = (struct wide){next() % 100, i, ~i};
	memcpy(v, w, sizeof(w));
	mallocs = 0;
	sc_rt_sort(w, 1000, sizeof(w[0]), cmp_wide);
	for (size_t i = 1; i < 1000; i++)
		wbad += w[i - 1].key > w[i].key || w[i].b != ~w[i].a;
	CHECK(wbad == 0 && mallocs == 0, "24-byte elements: keys in order, each element moved "
	      "whole, no malloc");
	return check_summary();
}
