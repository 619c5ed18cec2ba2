/*
 * span.c - how many calls a sampled call's span covers under adaptive
 * timing: the geometric table trampoline.S (and sc_span_draw, for C)
 * draws each next span from.
 *
 * A timed call stands for the period p in force when its span was drawn
 * (trampoline.S): that is the inverse of the chance each call had of
 * being the timed one only if that chance did not depend on how many
 * calls went by since the last timed call, i.e. if spans are geometric
 * (memoryless) with mean p. Then every call, whatever came before it, is
 * timed with probability 1/p and a timed call's weight p makes the sum
 * unbiased (Horvitz-Thompson), however the period adapts to what the
 * calls took. With spans of any other law the chance depends on the
 * position in the span, and the call that ends a long span (the first
 * slow call of a slow phase, after a period grown on fast calls) would
 * be weighted by what the calls before it did not take (doc/design.md,
 * "The estimator").
 *
 * Row k - SC_SPAN_KMIN is p = 2^k - 1 (the periods the rule in
 * trampoline.S makes: 1, 3, 7, 15, 31; p = 1 needs no draw). Entry j is
 * the geometric law's quantile at (j + 0.5) / 256, the least s with
 * 1 - (1 - 1/p)^s >= (j + 0.5) / 256, so each span has the law's chance
 * to within 1/256 and the row's mean is p to within 0.2 % (the tail past
 * the 511/512 quantile is cut; tests/unit/test_span.c checks both).
 * Written out as constants, not computed at start-up: 2 KB of .rodata
 * shared by every process instead of private pages in each.
 */
#include "runtime.h"

SC_HIDDEN const uint16_t sc_span_geo[SC_SPAN_ROWS][256] = {
	/* p = 3 */ {
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
		2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
		2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
		2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3,
		3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
		3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
		3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
		4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5,
		5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 6, 6,
		6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7,
		7, 8, 8, 8, 8, 8, 9, 9, 9, 10, 10, 10, 11, 12, 13, 16,
	},
	/* p = 7 */ {
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
		2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
		2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
		3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 4,
		4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
		4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5,
		5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6,
		6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7,
		7, 7, 7, 7, 7, 7, 7, 7, 7, 8, 8, 8, 8, 8, 8, 8,
		8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9,
		10, 10, 10, 10, 10, 10, 10, 10, 10, 11, 11, 11, 11, 11, 11, 11,
		11, 12, 12, 12, 12, 12, 12, 12, 13, 13, 13, 13, 13, 14, 14, 14,
		14, 14, 15, 15, 15, 15, 15, 16, 16, 16, 17, 17, 17, 18, 18, 18,
		19, 19, 20, 20, 21, 21, 22, 23, 23, 24, 25, 27, 28, 31, 34, 41,
	},
	/* p = 15 */ {
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
		1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
		2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
		4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5,
		5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6,
		6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7,
		7, 7, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 9, 9, 9,
		9, 9, 9, 9, 9, 9, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10,
		11, 11, 11, 11, 11, 11, 11, 11, 12, 12, 12, 12, 12, 12, 12, 12,
		13, 13, 13, 13, 13, 13, 13, 13, 14, 14, 14, 14, 14, 14, 14, 15,
		15, 15, 15, 15, 15, 16, 16, 16, 16, 16, 16, 17, 17, 17, 17, 17,
		17, 18, 18, 18, 18, 18, 19, 19, 19, 19, 19, 20, 20, 20, 20, 20,
		21, 21, 21, 21, 22, 22, 22, 22, 23, 23, 23, 23, 24, 24, 24, 25,
		25, 25, 26, 26, 26, 27, 27, 27, 28, 28, 28, 29, 29, 30, 30, 30,
		31, 31, 32, 32, 33, 33, 34, 35, 35, 36, 36, 37, 38, 39, 39, 40,
		41, 42, 43, 44, 45, 47, 48, 50, 52, 54, 56, 59, 63, 68, 75, 91,
	},
	/* p = 31 */ {
		1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2,
		3, 3, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 5,
		5, 5, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 7,
		7, 7, 7, 7, 7, 8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9,
		9, 10, 10, 10, 10, 10, 10, 10, 11, 11, 11, 11, 11, 11, 12, 12,
		12, 12, 12, 13, 13, 13, 13, 13, 13, 14, 14, 14, 14, 14, 15, 15,
		15, 15, 15, 16, 16, 16, 16, 16, 16, 17, 17, 17, 17, 18, 18, 18,
		18, 18, 19, 19, 19, 19, 19, 20, 20, 20, 20, 21, 21, 21, 21, 22,
		22, 22, 22, 22, 23, 23, 23, 23, 24, 24, 24, 25, 25, 25, 25, 26,
		26, 26, 26, 27, 27, 27, 28, 28, 28, 28, 29, 29, 29, 30, 30, 30,
		31, 31, 31, 32, 32, 32, 33, 33, 33, 34, 34, 34, 35, 35, 35, 36,
		36, 37, 37, 37, 38, 38, 39, 39, 39, 40, 40, 41, 41, 42, 42, 43,
		43, 44, 44, 44, 45, 46, 46, 47, 47, 48, 48, 49, 49, 50, 51, 51,
		52, 53, 53, 54, 55, 55, 56, 57, 57, 58, 59, 60, 61, 62, 63, 63,
		64, 65, 66, 67, 69, 70, 71, 72, 73, 75, 76, 77, 79, 81, 82, 84,
		86, 88, 90, 93, 95, 98, 101, 104, 108, 113, 118, 124, 131, 142, 157, 191,
	},
};

/*
 * The next span of a record whose period is now `per`, drawn from the
 * thread's generator *rng as trampoline.S draws it: 1 for per <= 1, per
 * itself past the table (timing "none" sets a period no call reaches).
 * The generator is Knuth's 64-bit linear congruential one (its top bits
 * are the good ones), seeded from the TSC when the thread starts.
 */
uint32_t sc_span_draw(uint32_t per, uint64_t *rng)
{
	uint32_t k, u;

	if (per <= 1 || per > 0xffff)
		return per ? per : 1;
	k = 31 - (uint32_t)__builtin_clz(per + 1);
	if (k < SC_SPAN_KMIN)
		k = SC_SPAN_KMIN;
	if (k > SC_SPAN_KMAX)
		k = SC_SPAN_KMAX;
	*rng = *rng * SC_SPAN_LCG_A + 1;
	u = (uint32_t)(*rng >> 56);
	return sc_span_geo[k - SC_SPAN_KMIN][u];
}
