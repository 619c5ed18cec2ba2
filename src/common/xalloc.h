/*
 * xalloc.h - memory for the CLI's profile reader and model: running out of
 * memory is fatal there (a message and exit(1)). Never for the runtime,
 * which must not exit inside someone else's process.
 */
#ifndef SCALER_XALLOC_H
#define SCALER_XALLOC_H

#include <stddef.h>

/* realloc / calloc that never return NULL (a zero size is made 1) */
void *sc_xrealloc(void *p, size_t n);
void *sc_xcalloc(size_t n, size_t size);

/* Grow arr (element size `size`, capacity *cap) so that index `need - 1`
 * fits, doubling from 8. */
void *sc_grow(void *arr, size_t *cap, size_t need, size_t size);

/* qsort, which may not be passed the NULL of an empty array */
void sc_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

#endif
