/*
 * main.c - the "tail" e2e test: tail calls through the PLT and chains of
 * them across three libraries, and callees that look at their caller.
 *   t1 x 1000      libsc_t1 jumps to t2, libsc_t2 jumps to t3: each of the
 *                  three cross-object calls counted 1000 times
 *   whoami x 10, whoami_framed x 10, via_tail x 10 (a tail call to
 *                  whoami): the address each returns lies in this program
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>

long t1(long x);
void *whoami(void);
void *whoami_framed(long n);
void *via_tail(void);

static int in_main(void *a)
{
	Dl_info self, ret;
	return dladdr((void *)in_main, &self) && dladdr(a, &ret) &&
	       self.dli_fbase == ret.dli_fbase;
}

int main(void)
{
	long acc = 0;
	int w = 0, f = 0, v = 0;
	for (long i = 0; i < 1000; i++)
		acc += t1(i);
	for (int i = 0; i < 10; i++) {
		w += in_main(whoami());
		f += in_main(whoami_framed(i));
		v += in_main(via_tail());
	}
	printf("t1 acc=%ld; caller seen in the program: whoami %d/10, framed %d/10, "
	       "via tail %d/10\n", acc, w, f, v);
	return 0;
}
