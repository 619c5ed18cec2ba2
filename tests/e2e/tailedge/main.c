/*
 * main.c - sc_tailedge, the "tailedge" e2e program (checks/tailedge.py): a
 * call across libraries that ends in a tail jump across libraries again
 * (program -> libsc_tt_b tt_outer -> libsc_tt_c tt_mid, which ends with
 * `jmp tt_inner@plt` back into libsc_tt_b). ROUNDS rounds of: the
 * program's own 1 ms, tt_outer (0.5 ms of its own, tt_mid's 1 ms, then
 * tt_inner's 2 ms reached by tt_mid's tail jump), then the same through
 * tt_chain, which reaches tt_mid by a tail jump too: a chain of two
 * (program -> tt_chain, jmp tt_mid, jmp tt_inner). Prints on stderr
 * "rounds N" and the ns each function spun ("outer_ns": tt_outer's and
 * tt_chain's, "mid_ns", "inner_ns"), measured by the program's own clock.
 */
#include <stdio.h>

#include "../analysis/spin.h"

void tt_outer(long self_us, long mid_us, long inner_us);
void tt_chain(long self_us, long mid_us, long inner_us);
void tt_spun(double *outer_ns, double *mid_ns, double *inner_ns);

#define ROUNDS 60

int main(void)
{
	double o, m, i;
	for (int r = 0; r < ROUNDS; r++) {
		spin(1000);
		tt_outer(500, 1000, 2000);
		tt_chain(500, 1000, 2000);
	}
	tt_spun(&o, &m, &i);
	fprintf(stderr, "rounds %d\nouter_ns %.0f\nmid_ns %.0f\ninner_ns %.0f\n",
		ROUNDS, o, m, i);
	return 0;
}
