/*
 * sc_te_b.c - libsc_te_b.so for the "twoedge" e2e test (checks/
 * twoedge.py): te_outer is entered from the program and calls te_mid in
 * libsc_te_c.so, which calls back into this library (te_inner): a second
 * edge into this library, nested in a call on the first. Each spins for
 * the wall time it is given (no call out besides the one shown).
 */
#include "../analysis/spin.h"

void te_mid(long self_us, long inner_us);

/* spun inside te_inner, for the test's truth */
static unsigned long long inner_ticks;

void te_inner(long us) { inner_ticks += spin(us); }

static volatile int after;

/* the store after the call keeps it a call, not a tail jump */
void te_outer(long self_us, long mid_us, long inner_us)
{
	spin(self_us);
	te_mid(mid_us, inner_us);
	after = 1;
}

/* ns spun by te_inner */
double te_inner_ns(void) { return (double)inner_ticks / ticks_per_us * 1000.0; }
