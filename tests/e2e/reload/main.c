/*
 * main.c - the "reload" e2e test: dlopen libsc_dl.so, call through dlsym
 * pointers, dlclose it (it really unloads: nothing else holds it), dlopen
 * it again (often at the same address) and call again. The reloaded copy
 * must be hooked afresh: its calls to libc are counted, and no stale
 * shadow entry jumps into the unmapped first copy.
 */
#include <dlfcn.h>
#include <stdio.h>

static unsigned long round_trip(int calls, int lens_n)
{
	void *h = dlopen("libsc_dl.so", RTLD_NOW);
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 0;
	}
	int (*f)(int) = (int (*)(int))dlsym(h, "dl_func");
	unsigned long (*lens)(const char *, int) =
		(unsigned long (*)(const char *, int))dlsym(h, "dl_lens");
	unsigned long sum = 0;
	for (int i = 0; i < calls; i++)
		sum += (unsigned long)f(i);
	sum += lens("reload", lens_n);
	dlclose(h);
	return sum;
}

int main(void)
{
	unsigned long a = round_trip(1001, 301);
	unsigned long b = round_trip(2003, 503);
	printf("%lu %lu\n", a, b);
	return 0;
}
