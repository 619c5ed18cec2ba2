/*
 * argdist.c - arithmetic of value distributions (argdist.h).
 */
#include "argdist.h"

#include <math.h>
#include <string.h>

#include "xalloc.h"

void sc_argdist_add(struct sc_argdist *dst, const struct sc_argdist *src)
{
	if (!src->seen)
		return;
	if (!dst->seen) {
		*dst = *src;
		return;
	}
	if (src->flags & SC_ARGV_SIGNED) {
		if ((int64_t)src->min < (int64_t)dst->min)
			dst->min = src->min;
		if ((int64_t)src->max > (int64_t)dst->max)
			dst->max = src->max;
	} else {
		if (src->min < dst->min)
			dst->min = src->min;
		if (src->max > dst->max)
			dst->max = src->max;
	}
	dst->seen += src->seen;
	dst->calls += src->calls;
	dst->sum += src->sum;
	dst->neg += src->neg;
	for (int b = 0; b < (int)SC_ARGS_NHIST; b++)
		dst->hist[b] += src->hist[b];
	if (src->flags & SC_ARGV_DISTINCT) {
		/* the union of the exact sets while it stays exact */
		for (uint32_t i = 0; i < src->nexact && i < SC_ARGS_EXACT; i++) {
			uint32_t k = 0;
			while (k < dst->nexact && k < SC_ARGS_EXACT && dst->exact[k] != src->exact[i])
				k++;
			if (k == dst->nexact && k < SC_ARGS_EXACT)
				dst->exact[dst->nexact++] = src->exact[i];
			else if (k == SC_ARGS_EXACT)
				dst->nexact = SC_ARGS_EXACT + 1;
		}
		if (src->nexact > SC_ARGS_EXACT)
			dst->nexact = SC_ARGS_EXACT + 1;
		for (uint32_t r = 0; r < SC_ARGS_HLL; r++)
			if (src->hll[r] > dst->hll[r])
				dst->hll[r] = src->hll[r];
	}
	for (uint32_t i = 0; i < src->nerr; i++) {
		uint32_t k = 0;
		while (k < dst->nerr && dst->errs[k].err != src->errs[i].err)
			k++;
		if (k == dst->nerr && k == SC_ARGDIST_NERR) {
			dst->err_other += src->errs[i].calls;
			continue;
		}
		if (k == dst->nerr)
			dst->errs[dst->nerr++] = (struct sc_argerr){ src->errs[i].err, 0 };
		dst->errs[k].calls += src->errs[i].calls;
	}
	dst->err_other += src->err_other;
}

double sc_argdist_distinct(const struct sc_argdist *d, int *exact)
{
	*exact = d->nexact <= SC_ARGS_EXACT;
	if (*exact)
		return d->nexact;
	/* HyperLogLog (Flajolet et al. 2007) with its linear counting for
	 * small counts: ~9 % standard error with 128 registers */
	double m = SC_ARGS_HLL, z = 0, zeros = 0;
	for (uint32_t r = 0; r < SC_ARGS_HLL; r++) {
		z += ldexp(1.0, -(int)d->hll[r]);
		zeros += d->hll[r] == 0;
	}
	double e = 0.7213 / (1 + 1.079 / m) * m * m / z;
	if (e <= 2.5 * m && zeros > 0)
		e = m * log(m / zeros);
	/* never fewer than the exact set held */
	return e < SC_ARGS_EXACT + 1 ? SC_ARGS_EXACT + 1 : round(e);
}

long double sc_argdist_failed(const struct sc_argdist *d)
{
	long double n = d->err_other;
	for (uint32_t i = 0; i < d->nerr; i++)
		n += d->errs[i].calls;
	return n;
}

void sc_argdist_scale(struct sc_argdist *d, long double f)
{
	d->calls *= f;
	d->sum *= f;
	d->neg *= f;
	for (int b = 0; b < (int)SC_ARGS_NHIST; b++)
		d->hist[b] *= f;
	for (uint32_t i = 0; i < d->nerr; i++)
		d->errs[i].calls *= f;
	d->err_other *= f;
}

void sc_argdist_merge(struct sc_argdist **d, uint32_t *nd, const struct sc_argdist *src,
		      uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k;
		for (k = 0; k < *nd; k++)
			if (!strcmp((*d)[k].name, src[i].name))
				break;
		if (k == *nd) {
			*d = sc_xrealloc(*d, (*nd + 1) * sizeof(**d));
			memset(&(*d)[k], 0, sizeof(**d));
			(*d)[k].name = src[i].name;
			(*d)[k].flags = src[i].flags;
			(*nd)++;
		}
		sc_argdist_add(&(*d)[k], &src[i]);
	}
}

long double sc_argdist_mean(const struct sc_argdist *d)
{
	long double n = d->calls - d->neg, m, lo, hi;
	if (!(n > 0))
		return 0;
	m = d->sum / n;
	/* The runtime's sum saturates (values near SIZE_MAX): the mean is
	 * then known only to lie within the exact min and max of the
	 * values it is over (the non-negative ones, when signed). */
	if (d->flags & SC_ARGV_SIGNED) {
		lo = (int64_t)d->min < 0 ? 0 : (long double)(int64_t)d->min;
		hi = (int64_t)d->max < 0 ? 0 : (long double)(int64_t)d->max;
	} else {
		lo = (long double)d->min;
		hi = (long double)d->max;
	}
	if (d->seen && lo <= hi)
		m = m < lo ? lo : m > hi ? hi : m;
	return m;
}

uint64_t sc_argdist_lo(int b)
{
	return b <= 0 ? 0 : (uint64_t)1 << (b - 1);
}

int sc_argdist_mode(const struct sc_argdist *d)
{
	int m = -1;
	for (int b = 0; b < (int)SC_ARGS_NHIST; b++)
		if (d->hist[b] > 0 && (m < 0 || d->hist[b] > d->hist[m]))
			m = b;
	return m;
}

int sc_argdist_signed(const struct sc_argdist *d)
{
	return (d->flags & SC_ARGV_SIGNED) != 0;
}
