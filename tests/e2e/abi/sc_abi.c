/*
 * sc_abi.c - libsc_abi.so for the "abi" e2e test: functions taking and
 * returning every kind of value the x86-64 SysV ABI has a special rule for
 * (x87 long double, complex, variadic with %al, stack arguments, structs by
 * value in registers and in memory, hidden return pointer, __int128).
 */
#include <stdio.h>
#include "abi.h"

float f_scale(float x, float y) { return x * y + 0.25f; }

double d_poly(double x, double a, double b, double c) { return ((a * x) + b) * x + c; }

long double ld_mul(long double x, long double y) { return x * y / 3.0L; }

long double complex cld_rot(long double complex z, long double a)
{
	return z * (a + 1.0L * I) + 0.5L;
}

double complex cd_mul(double complex a, double complex b) { return a * b; }

float complex cf_conj(float complex a) { return conjf(a) * 2.0f; }

double vsum(int n, ...)
{
	va_list ap;
	double t = 0;
	va_start(ap, n);
	for (int i = 0; i < n; i++) {
		int k = va_arg(ap, int);
		double d = va_arg(ap, double);
		t += k * d;
	}
	va_end(ap);
	return t;
}

double vlist(int n, va_list ap)
{
	double t = 0;
	for (int i = 0; i < n; i++)
		t = t * 1.5 + va_arg(ap, double);
	return t;
}

double vmix(const char *types, ...)
{
	va_list ap;
	double t = 0;
	va_start(ap, types);
	for (const char *c = types; *c; c++) {
		switch (*c) {
		case 'i': t = t * 3 + va_arg(ap, int); break;
		case 'l': t = t * 3 + (double)va_arg(ap, long); break;
		case 'd': t = t * 3 + va_arg(ap, double); break;
		case 'L': t = t * 3 + (double)va_arg(ap, long double); break;
		}
	}
	va_end(ap);
	return t;
}

int fmt_lib(char *out, int n, double d, long double ld)
{
	return snprintf(out, (size_t)n, "%.17g|%.21Lg|%f|%Lf", d, ld, d, ld);
}

double many(int i1, int i2, int i3, int i4, int i5, int i6, int i7, int i8,
	    double d1, double d2, double d3, double d4, double d5, double d6,
	    double d7, double d8, double d9, double d10,
	    struct pt p, struct big b, long double ld, struct fl q)
{
	double t = i1 + 2.0 * i2 + 3.0 * i3 + 4.0 * i4 + 5.0 * i5 + 6.0 * i6 + 7.0 * i7 + 8.0 * i8;
	t += d1 + d2 / 2 + d3 / 3 + d4 / 4 + d5 / 5 + d6 / 6 + d7 / 7 + d8 / 8 + d9 / 9 + d10 / 10;
	t += p.x * 100.0 + p.y * 1000.0 + p.f;
	for (int i = 0; i < 9; i++)
		t += (double)b.v[i] * (i + 1);
	t += b.w[0] + b.w[1] * 2 + b.w[2] * 3;
	t += (double)(ld * 7.0L);
	t += q.a + q.b * 2 + q.c * 3 + q.d * 4;
	return t;
}

struct big big_make(long seed, double w)
{
	struct big b;
	for (int i = 0; i < 9; i++)
		b.v[i] = seed * (i + 1) - i;
	b.w[0] = w;
	b.w[1] = w * w;
	b.w[2] = -w / 3;
	return b;
}

struct small small_make(long a, long b) { return (struct small){a * 2, b - a}; }

struct dd dd_make(double a, double b) { return (struct dd){a / b, a * b}; }

struct mixed mixed_make(double d, long l) { return (struct mixed){d * l, l * 5 - 1}; }

__int128 i128_mul(__int128 a, __int128 b) { return a * b - 1; }

unsigned __int128 u128_shift(unsigned __int128 a, int s) { return (a << s) | (a >> (128 - s)); }
