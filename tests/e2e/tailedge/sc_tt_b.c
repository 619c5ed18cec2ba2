/*
 * sc_tt_b.c - libsc_tt_b.so for the "tailedge" e2e test (checks/
 * tailedge.py): tt_outer is entered from the program and calls tt_mid in
 * libsc_tt_c.so, which tail-jumps back into this library (tt_inner);
 * tt_chain does the same but tail-jumps to tt_mid. Each spins for the
 * wall time it is given and keeps the ticks it spun.
 */
#include "../analysis/spin.h"

void tt_mid(long self_us, long inner_us);

static unsigned long long outer_ticks, inner_ticks;

void tt_inner(long us) { inner_ticks += spin(us); }

static volatile int after;

/* the store after the call keeps it a call, not a tail jump */
void tt_outer(long self_us, long mid_us, long inner_us)
{
	outer_ticks += spin(self_us);
	tt_mid(mid_us, inner_us);
	after = 1;
}

/* the same, reaching tt_mid by a tail jump: a chain of two (tt_chain ->
 * tt_mid -> tt_inner) ending at the program */
void tt_chain(long self_us, long mid_us, long inner_us)
{
	outer_ticks += spin(self_us);
	tt_mid(mid_us, inner_us);
}

/* what tt_outer (and tt_chain) and tt_inner spun, in ns; tt_mid's from libsc_tt_c */
double tt_mid_ns(void);
void tt_spun(double *outer_ns, double *mid_ns, double *inner_ns)
{
	*outer_ns = (double)outer_ticks / ticks_per_us * 1000.0;
	*mid_ns = tt_mid_ns();
	*inner_ns = (double)inner_ticks / ticks_per_us * 1000.0;
}
