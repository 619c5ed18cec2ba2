/*
 * sc_a.c - libsc_a.so for the "basic" e2e test: a trivial function the app
 * calls a million times, a loop that calls libc strlen from inside the
 * library, and calls into a second library (libsc_b.so) to exercise
 * library-to-library attribution. a_outer() calls a_inner() of this same
 * object, which must never be reported (calls inside one object).
 */
#include <string.h>

int b_mul(int x, int y);

int a_add(int x, int y)
{
	return x + y;
}

/* strlen n times on a buffer the compiler must assume changes each time */
unsigned long a_lens(const char *s, int n)
{
	unsigned long t = 0;
	for (int i = 0; i < n; i++) {
		__asm__ volatile("" : : "r"(s) : "memory");
		t += strlen(s + (i & 3));
	}
	return t;
}

/* n calls of libsc_b.so's b_mul */
long a_chain(int n)
{
	long t = 0;
	for (int i = 0; i < n; i++)
		t += b_mul(i, 3);
	return t;
}

__attribute__((noinline)) int a_inner(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x * 2 + 1;
}

int a_outer(int n)
{
	int t = 0;
	for (int i = 0; i < n; i++)
		t += a_inner(i);
	return t;
}
