/*
 * sc_lj.c - libsc_lj.so for the "longjmp" e2e test: lib_call runs a
 * callback that may longjmp out of it (abandoning a timed call), lib_work
 * is called in a loop and from a signal handler on a sigaltstack.
 */
#include <string.h>
#include <stdlib.h>
int lib_call(void (*cb)(int), int x) { cb(x); return (int)strlen("abc") + x; }
int lib_work(int x) { return (int)strlen("hello") + x; }
void lib_sort(int *a, int n, int (*cmp)(const void*, const void*)) { qsort(a, n, sizeof(int), cmp); }
