/*
 * sc_te_c.c - libsc_te_c.so for the "twoedge" e2e test: te_mid spins, then
 * calls back into libsc_te_b.so (te_inner), found in the global scope
 * (the program links both).
 */
#include "../analysis/spin.h"

void te_inner(long us);

static volatile int after;

/* the store after the call keeps it a call, not a tail jump */
void te_mid(long self_us, long inner_us)
{
	spin(self_us);
	te_inner(inner_us);
	after = 1;
}
