/*
 * sc_an.c - libsc_an.so for the "analysis" e2e test: functions that take a
 * known wall time, so the report's figures have known answers. They spin
 * (spin.h) so that all their time is their own: no call leaves the library.
 * an_outer nests a call into libsc_an2.so (an_inner), an_many thousands
 * (an_tick).
 */
#include <stdio.h>

#include "spin.h"

void an_inner(long us);
void an_tick(void);

/*
 * The truth the test compares the report with, measured here with the TSC
 * around the work itself (a spin preempted past its end runs long; these
 * sums include that, as the profiler's do). Printed by an_truth().
 */
static unsigned long long outer_incl, outer_self, serial, par_lo, par_hi, many;
/* ... and their CPU time (ns): what the parallel clock attributes where
 * preemptions are measured (a thread runs only on a CPU) */
static unsigned long long serial_cpu, par_cpu;

/* serial phase: called with one thread running */
void an_serial(long us)
{
	unsigned long long c0 = thread_cpu_ns();
	serial += spin(us);
	serial_cpu += thread_cpu_ns() - c0;
}

/* parallel phase: called from several threads at once; the truth is the
 * span from the first start to the last end */
void an_parallel(long us)
{
	unsigned long long c0 = thread_cpu_ns(), t0 = __rdtsc();
	spin(us);
	unsigned long long t1 = __rdtsc();
	__atomic_fetch_add(&par_cpu, thread_cpu_ns() - c0, __ATOMIC_SEQ_CST);
	__atomic_compare_exchange_n(&par_lo, &(unsigned long long){0}, t0, 0,
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	unsigned long long lo = __atomic_load_n(&par_lo, __ATOMIC_SEQ_CST);
	while (t0 < lo && !__atomic_compare_exchange_n(&par_lo, &lo, t0, 0,
						       __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		;
	unsigned long long hi = __atomic_load_n(&par_hi, __ATOMIC_SEQ_CST);
	while (t1 > hi && !__atomic_compare_exchange_n(&par_hi, &hi, t1, 0,
						       __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		;
}

/* holds a lock another thread is waiting for */
void an_hold(long us) { spin(us); }

/* self_us of its own, then inner_us inside an_inner (another library);
 * using the time after the call keeps it a call, not a tail jump */
void an_outer(long self_us, long inner_us)
{
	unsigned long long t0 = __rdtsc();
	outer_self += spin(self_us);
	an_inner(inner_us);
	outer_incl += __rdtsc() - t0;
}

/*
 * n spins of us each, with a call out (an_tick, which returns at once)
 * after each: its inclusive time is its spins' and nothing of what timing
 * the n calls cost, nor of re-measuring that cost, which the runtime may
 * do at any timed return (the truth leaves both out, unlike an_outer's).
 */
void an_many(long us, int n)
{
	for (int i = 0; i < n; i++) {
		many += spin(us);
		an_tick();
	}
}

/* "name=microseconds" lines on stderr, for checks/analysis.py */
void an_truth(FILE *f)
{
	fprintf(f, "outer_incl_us=%.0f\nouter_self_us=%.0f\nserial_us=%.0f\nparallel_span_us=%.0f\n"
		"many_us=%.0f\nserial_cpu_us=%llu\nparallel_cpu_us=%llu\n", outer_incl / ticks_per_us,
		outer_self / ticks_per_us, serial / ticks_per_us, (par_hi - par_lo) / ticks_per_us,
		many / ticks_per_us, serial_cpu / 1000, par_cpu / 1000);
}
