/*
 * main.c - the "abi" e2e program: calls every function of libsc_abi.so and
 * prints each result at full precision (%a, %La, %.21Lg, hex for __int128),
 * plus snprintf with %f/%Lf. The output under scaler must be identical to
 * the output without it. The loop counts give exact rows (see expect).
 */
#include <stdio.h>
#include <string.h>
#include "abi.h"

static void p128(const char *what, unsigned __int128 v)
{
	printf("%s=%016llx%016llx\n", what, (unsigned long long)(v >> 64),
	       (unsigned long long)v);
}

static double call_vlist(int n, ...)
{
	va_list ap;
	va_start(ap, n);
	double r = vlist(n, ap);
	va_end(ap);
	return r;
}

int main(void)
{
	char buf[256];

	/* repeated calls: exact counts in expect */
	float fs = 0;
	for (int i = 0; i < 1009; i++)
		fs += f_scale((float)i, 0.5f);
	long double lds = 0;
	for (int i = 0; i < 2003; i++)
		lds += ld_mul((long double)i, 1.0000001L);
	double vs = 0;
	for (int i = 0; i < 307; i++)
		vs += vsum(3, i, 0.5, 2, 1.25, -1, (double)i / 7);
	printf("f_scale=%a\nld_mul=%La %.21Lg\nvsum=%a\n", fs, lds, lds, vs);

	printf("d_poly=%a\n", d_poly(1.1, 2.2, 3.3, 4.4));
	long double complex z = cld_rot(1.5L + 2.5L * I, 0.75L);
	printf("cld_rot=%La %La\n", creall(z), cimagl(z));
	double complex c = cd_mul(1.0 + 2.0 * I, 3.0 - 4.0 * I);
	printf("cd_mul=%a %a\n", creal(c), cimag(c));
	float complex fc = cf_conj(1.5f + 0.25f * I);
	printf("cf_conj=%a %a\n", crealf(fc), cimagf(fc));
	printf("vmix=%a\n", vmix("idLlidd", 1, 2.5, 3.25L, 4L, -5, 6.125, 7e300));
	printf("vlist=%a\n", call_vlist(5, 1.0, 2.0, 3.0, 4.0, 5.0));
	int n = fmt_lib(buf, sizeof(buf), 3.141592653589793, 2.718281828459045235360L);
	printf("fmt_lib=%d %s\n", n, buf);
	snprintf(buf, sizeof(buf), "%f %Lf %.3e %g", 1.0 / 3, 2.0L / 3, 12345.678, 0.1);
	printf("snprintf=%s\n", buf);

	struct pt p = {3, -4, 0.5f};
	struct big b = big_make(11, 0.1);
	struct fl q = {1.5f, 2.5f, 3.5f, 4.5f};
	double m = many(1, 2, 3, 4, 5, 6, 7, 8, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5,
			10.5, p, b, 1.0L / 3, q);
	printf("many=%a\n", m);
	for (int i = 0; i < 9; i++)
		printf("big.v[%d]=%ld\n", i, b.v[i]);
	printf("big.w=%a %a %a\n", b.w[0], b.w[1], b.w[2]);
	struct small s = small_make(21, 100);
	printf("small=%ld %ld\n", s.a, s.b);
	struct dd d = dd_make(1.0, 3.0);
	printf("dd=%a %a\n", d.x, d.y);
	struct mixed mx = mixed_make(0.3, 7);
	printf("mixed=%a %ld\n", mx.d, mx.l);
	__int128 big128 = ((__int128)0x123456789abcdefLL << 64) | 0xfedcba987654321ULL;
	p128("i128_mul", (unsigned __int128)i128_mul(big128, -3));
	p128("u128_shift", u128_shift((unsigned __int128)big128, 77));
	return 0;
}
