/* fnlong/main.c - an own-object function whose calls book ~0 and whose
 * first call is long (spins 1 ms): sc_fnlong's adaptive period must not
 * stay capped by that one call (checks/fnlong.py). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

__attribute__((noinline, patchable_function_entry(5, 0))) long fl_step(long x, int spin)
{
	if (__builtin_expect(spin, 0)) {
		double end = now_ns() + 1e6;
		while (now_ns() < end)
			;
	}
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000000, s = 0;
	for (long i = 0; i < n; i++)
		s = fl_step(s, i == 0);
	printf("%ld\n", s);
	return 0;
}
