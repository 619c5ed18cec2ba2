/*
 * sc_ac.c - libsc_ac.so for the "args" e2e test (checks/args.py): APIs
 * whose arguments --args captures, each checking that it received what
 * its caller passed and returning values in rax:rdx, xmm0 and through
 * a variadic list (AL), so that a capture that changed a register shows;
 * ac_apply calls back into the executable through a pointer (a function
 * --functions patches, called from another component).
 */
#include <stdarg.h>

struct ac_pair { long a, b; };          /* returned in rax:rdx */

struct ac_pair ac_six(long a, long b, long c, long d, long e, long f)
{
	struct ac_pair p = { a + b + c + d + e, f };
	if (a != 1 || b != 2 || c != 3 || d != 4 || e != 5 || f != 0x123456789abcdef0L)
		p.a = -1;
	return p;
}

double ac_dbl(int n, double x, double y)
{
	return n * x + y;               /* xmm0 in, xmm1 in, xmm0 out */
}

double ac_var(int n, ...)
{
	va_list ap;
	double t = 0;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		t += va_arg(ap, double);
	va_end(ap);
	return t;
}

long ac_apply(long (*f)(long), long x)
{
	long r = f(x);
	__asm__ volatile("" ::: "memory");      /* a call, not a tail call */
	return r;
}
