/*
 * sc_dl.c - libsc_dl.so for the "dl" e2e test. Not linked into the program:
 * it is dlopen'd by bare name (found through the executable's RUNPATH) and
 * its functions are reached only through dlsym pointers. dl_lens calls
 * libc strlen from inside the dlopen'd library.
 */
#include <string.h>

int dl_func(int x)
{
	return x * 3 + 1;
}

unsigned long dl_lens(const char *s, int n)
{
	unsigned long t = 0;
	for (int i = 0; i < n; i++) {
		__asm__ volatile("" : : "r"(s) : "memory");
		t += strlen(s + (i & 1));
	}
	return t;
}
