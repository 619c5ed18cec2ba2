/*
 * sc_est.c - libsc_est.so for the estimator's e2e checks (checks/
 * estimator.py): one API whose calls last as long as asked, spun on the
 * TSC so that a call's length does not move with the CPU's speed, and
 * that keeps the sum of its calls' lengths as the truth to hold scaler's
 * estimate against (the program's own clock, inside the calls: time the
 * program spends between the calls, preempted or not, is not in it).
 */
#include <stdint.h>
#include <x86intrin.h>

static uint64_t spent;

/* A call of `ticks` TSC ticks (0: as short as two TSC reads allow). */
void est_call(uint64_t ticks)
{
	uint64_t t0 = __rdtsc(), t1;

	do
		t1 = __rdtsc();
	while (t1 - t0 < ticks);
	spent += t1 - t0;
}

/* TSC ticks spent in est_call so far */
uint64_t est_spent(void)
{
	return spent;
}
