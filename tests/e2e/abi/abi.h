/*
 * abi.h - the interface of libsc_abi.so (the "abi" e2e test): one function
 * per x86-64 SysV calling-convention corner the interceptor must preserve.
 */
#ifndef SC_ABI_H
#define SC_ABI_H
#include <complex.h>
#include <stdarg.h>

struct small { long a, b; };              /* returned in rax:rdx */
struct dd { double x, y; };               /* returned in xmm0:xmm1 */
struct mixed { double d; long l; };       /* returned in xmm0 + rax */
struct big { long v[9]; double w[3]; };   /* returned via hidden pointer */
struct pt { int x, y; float f; };         /* passed in registers */
struct fl { float a, b, c, d; };          /* two xmm halves */

float f_scale(float x, float y);
double d_poly(double x, double a, double b, double c);
long double ld_mul(long double x, long double y);            /* st0 */
long double complex cld_rot(long double complex z, long double a);
double complex cd_mul(double complex a, double complex b);
float complex cf_conj(float complex a);
double vsum(int n, ...);                  /* n pairs (int, double) */
double vmix(const char *types, ...);      /* i=int l=long d=double L=long double */
double vlist(int n, va_list ap);
int fmt_lib(char *out, int n, double d, long double ld);
double many(int i1, int i2, int i3, int i4, int i5, int i6, int i7, int i8,
	    double d1, double d2, double d3, double d4, double d5, double d6,
	    double d7, double d8, double d9, double d10,
	    struct pt p, struct big b, long double ld, struct fl q);
struct big big_make(long seed, double w);
struct small small_make(long a, long b);
struct dd dd_make(double a, double b);
struct mixed mixed_make(double d, long l);
__int128 i128_mul(__int128 a, __int128 b);
unsigned __int128 u128_shift(unsigned __int128 a, int s);
#endif
