/*
 * main.c - sc_twoedge, the "twoedge" e2e program (checks/twoedge.py): a
 * library entered through two edges, one nested in the other
 * (program -> libsc_te_b -> libsc_te_c -> libsc_te_b), as python3 ->
 * libpython -> _json -> libpython. 20 rounds of: the program's own 10 ms,
 * te_outer (2 ms of its own, te_mid's 3 ms, te_inner's 5 ms inside).
 * libsc_te_b is on the stack 10 ms a round, not 15: te_inner's 5 ms are
 * inside te_outer's. Prints "rounds N" and te_inner's spun time
 * ("inner_ns N") on stderr.
 */
#include <stdio.h>

#include "../analysis/spin.h"

void te_outer(long self_us, long mid_us, long inner_us);
double te_inner_ns(void);

#define ROUNDS 20

int main(void)
{
	for (int i = 0; i < ROUNDS; i++) {
		spin(10000);
		te_outer(2000, 3000, 5000);
	}
	fprintf(stderr, "rounds %d\ninner_ns %.0f\n", ROUNDS, te_inner_ns());
	return 0;
}
