/*
 * sc_est.c - libsc_est.so for the estimator's e2e checks (checks/
 * estimator.py): one API whose calls last as long as asked. A short call
 * (0) does est_work (work.h); a long one spins on the TSC, so that its
 * length does not move with the CPU's speed, and adds what it took,
 * measured inside the call, to the sum est_spent returns.
 */
#include <stdint.h>
#include <x86intrin.h>

#include "work.h"

static uint64_t spent;
static volatile unsigned long sink;

void est_call(uint64_t ticks)
{
	if (!ticks) {
		sink = est_work(sink);
		return;
	}
	uint64_t t0 = __rdtsc(), t1;
	do
		t1 = __rdtsc();
	while (t1 - t0 < ticks);
	spent += t1 - t0;
}

/* TSC ticks the long calls took so far */
uint64_t est_spent(void)
{
	return spent;
}
