/*
 * main.c - the "dl" e2e program: dlopen("libsc_dl.so") through RUNPATH,
 * dlsym("dl_func") twice (the two pointers must be equal), 200003 calls
 * through the pointer, dlsym("dl_func") again (still the same pointer,
 * although its first call has given it counters meanwhile), and one call
 * of dl_lens which makes 4007 strlen calls inside the dlopen'd library.
 * See expect.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
	void *h = dlopen("libsc_dl.so", RTLD_NOW);
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	int (*f)(int) = (int (*)(int))dlsym(h, "dl_func");
	int (*g)(int) = (int (*)(int))dlsym(h, "dl_func");
	unsigned long (*lens)(const char *, int) =
		(unsigned long (*)(const char *, int))dlsym(h, "dl_lens");
	if (!f || !g || !lens) {
		fprintf(stderr, "dlsym: %s\n", dlerror());
		return 1;
	}
	printf("same=%d\n", f == g);
	long acc = 0;
	for (int i = 0; i < 200003; i++)
		acc += f(i & 0xffff);
	int (*k)(int) = (int (*)(int))dlsym(h, "dl_func");
	printf("same after calls=%d\n", f == k);
	char buf[32];
	snprintf(buf, sizeof(buf), "dynamic %s", "loading");
	unsigned long t = lens(buf, 4007);
	printf("acc=%ld lens=%lu\n", acc, t);
	return 0;
}
