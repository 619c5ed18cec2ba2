/*
 * test_span.c - the runtime's geometric span table (src/runtime/span.c):
 * each row is the geometric law of its period p, so that under adaptive
 * timing every call is timed with chance 1/p, which the estimator's
 * weight p relies on; and sc_span_draw's edge cases.
 */
#include <math.h>

#include "check.h"
#include "runtime.h"

int main(void)
{
	for (int k = SC_SPAN_KMIN; k <= SC_SPAN_KMAX; k++) {
		const uint16_t *row = sc_span_geo[k - SC_SPAN_KMIN];
		double p = (double)((1u << k) - 1), sum = 0, worst = 0;
		int ordered = row[0] >= 1;

		for (int j = 0; j < 256; j++) {
			sum += row[j];
			if (j && row[j] < row[j - 1])
				ordered = 0;
		}
		CHECK(ordered, "p = %.0f: spans >= 1, in increasing order", p);
		CHECK(fabs(sum / 256 - p) / p < 0.005, "p = %.0f: mean span %.3f within 0.5 %%",
		      p, sum / 256);
		/* the share of spans <= s against the law's 1 - (1 - 1/p)^s */
		for (int s = 1; s <= row[255]; s++) {
			int n = 0;

			while (n < 256 && row[n] <= s)
				n++;
			double d = fabs(n / 256.0 - (1 - pow(1 - 1 / p, s)));
			if (d > worst)
				worst = d;
		}
		CHECK(worst <= 1.0 / 256 + 1e-9, "p = %.0f: every span's chance within 1/256 of "
		      "the geometric law's (off by %.4f at most)", p, worst);
	}
	uint64_t rng = 12345;
	CHECK_EQ(sc_span_draw(0, &rng), 1, "a record never timed: span 1");
	CHECK_EQ(sc_span_draw(1, &rng), 1, "p = 1: span 1");
	CHECK_EQ(sc_span_draw(0x7fffffff, &rng), 0x7fffffff, "timing none: the period itself");
	/*
	 * Each period: the mean of many draws is the period (the chance of
	 * being timed is 1/p only if the draws follow the table's law), also
	 * from a generator started at 0 (a thread whose seed was not set).
	 */
	for (int k = SC_SPAN_KMIN; k <= SC_SPAN_KMAX; k++) {
		uint32_t p = (1u << k) - 1, lo = ~0u, hi = 0;
		double sum = 0;

		rng = 0;
		for (int i = 0; i < 1 << 20; i++) {
			uint32_t s = sc_span_draw(p, &rng);
			sum += s;
			lo = s < lo ? s : lo;
			hi = s > hi ? s : hi;
		}
		CHECK(fabs(sum / (1 << 20) - p) / p < 0.01 && lo == 1 &&
		      hi == sc_span_geo[k - SC_SPAN_KMIN][255],
		      "p = %u: 2^20 draws average %.3f, from %u to %u", p, sum / (1 << 20), lo, hi);
	}
	return check_summary();
}
