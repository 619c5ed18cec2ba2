/*
 * argdist.c - arithmetic of value distributions (argdist.h).
 */
#include "argdist.h"

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
}

void sc_argdist_scale(struct sc_argdist *d, long double f)
{
	d->calls *= f;
	d->sum *= f;
	d->neg *= f;
	for (int b = 0; b < (int)SC_ARGS_NHIST; b++)
		d->hist[b] *= f;
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
	long double n = d->calls - d->neg;
	return n > 0 ? d->sum / n : 0;
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
