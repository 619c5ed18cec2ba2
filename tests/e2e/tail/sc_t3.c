/*
 * sc_t3.c - libsc_t3.so for the "tail" e2e test: the end of the t1 -> t2
 * -> t3 chain, and two functions that return their caller's address
 * (__builtin_return_address, like code that attributes memory or locks
 * to call sites): they must see the real caller, never the runtime.
 */
__attribute__((noinline)) long t3(long x) { return x + 5; }

__attribute__((noinline)) void *whoami(void) { return __builtin_return_address(0); }

/* the same from a function with a stack frame and calls of its own */
__attribute__((noinline)) void *whoami_framed(long n)
{
	void *r = __builtin_return_address(0);
	long acc = 0;
	for (long i = 0; i < n; i++)
		acc += t3(i);
	return acc == -1 ? 0 : r;
}
