/*
 * main.c - the "bt" e2e test: backtrace() taken inside a timed call must
 * walk past the interceptor to main and beyond (the runtime puts the real
 * return addresses back before a stack walker runs).
 */
#include <execinfo.h>
#include <stdio.h>
void lib_call(void (*cb)(int), int x);
static int depth;
static void cb(int x) { void *b[64]; depth = backtrace(b, 64); (void)x; }
int main(void) { lib_call(cb, 1); printf("frames>=4:%d\n", depth >= 4); return 0; }
