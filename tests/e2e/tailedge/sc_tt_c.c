/*
 * sc_tt_c.c - libsc_tt_c.so for the "tailedge" e2e test: tt_mid spins,
 * then tail-jumps (gcc -O2 sibling call: `jmp` through the PLT, or the
 * GOT with -fno-plt) to tt_inner in libsc_tt_b.so. The test checks the
 * jump is there (objdump).
 */
#include "../analysis/spin.h"

void tt_inner(long us);

static unsigned long long mid_ticks;

void tt_mid(long self_us, long inner_us)
{
	mid_ticks += spin(self_us);
	tt_inner(inner_us);
}

double tt_mid_ns(void) { return (double)mid_ticks / ticks_per_us * 1000.0; }
