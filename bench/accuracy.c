/*
 * accuracy.c - the program bench/accuracy.sh profiles: calls each acclib
 * function in a loop. Argument: scale (1 = about 0.5 s natively).
 *
 * The truth is measured in the same run, beside the calls: the machines
 * we measure on change speed by up to 2x from one run to the next (and
 * within a run), so a profiled run cannot be held against an unprofiled
 * one. Every block of BLOCK calls of an API is followed by the same BLOCK
 * computations done by a private copy of the library's code (acclib.c
 * built into this program, reached by a plain call, never interposed),
 * and only those are timed here. Both run in the same moments, so the
 * copy's total is what the API's calls took of their own, at the speed
 * the machine had while they ran. What the loop, the call and the return
 * cost is measured the same way, with an empty function in the copy's
 * place, and taken off: the profilers report a function's own time.
 *
 * Prints on stderr, per API: "name copy_ns": the bench holds each
 * profiler's figure for the API against it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

unsigned acc_cheap(unsigned x);
void acc_short(unsigned i);
void acc_mixed(unsigned i);
void acc_period(unsigned i);

/* the private copy: the same source under other names */
#define acc_cheap copy_cheap
#define acc_short copy_short
#define acc_mixed copy_mixed
#define acc_period copy_period
#define ACC_LINKAGE static __attribute__((noinline))
#include "acclib.c"
#undef acc_cheap
#undef acc_short
#undef acc_mixed
#undef acc_period

/* the empty stand-ins: the loop, call and return around the copy */
static __attribute__((noinline)) unsigned none_u(unsigned x)
{
	__asm__ volatile("" : "+r"(x));
	return x;
}
static __attribute__((noinline)) void none_v(unsigned i)
{
	__asm__ volatile("" : : "r"(i));
}

#define BLOCK 1000u

static long long now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static unsigned s;

/* n calls of api(i), i = 0 .. n-1, in blocks; returns the ns the copy
 * took beyond the empty stand-in */
#define RUN(api, copy, none, n, use)                                    \
	({                                                              \
		long long t_ = 0;                                       \
		for (unsigned b_ = 0; b_ < (n); b_ += BLOCK) {          \
			for (unsigned i = b_; i < b_ + BLOCK; i++)      \
				use(api(i));                            \
			long long t0_ = now();                          \
			for (unsigned i = b_; i < b_ + BLOCK; i++)      \
				use(copy(i));                           \
			long long t1_ = now();                          \
			for (unsigned i = b_; i < b_ + BLOCK; i++)      \
				use(none(i));                           \
			t_ += 2 * t1_ - t0_ - now();                    \
		}                                                       \
		t_;                                                     \
	})
#define SUM(x) (s += (x))
#define VOID(x) (x)

int main(int argc, char **argv)
{
	unsigned scale = argc > 1 ? (unsigned)atoi(argv[1]) : 1;
	long long cheap = RUN(acc_cheap, copy_cheap, none_u, 20000000u * scale, SUM);
	long long shrt = RUN(acc_short, copy_short, none_v, 2000000u * scale, VOID);
	long long mixed = RUN(acc_mixed, copy_mixed, none_v, 1000000u * scale, VOID);
	long long period = RUN(acc_period, copy_period, none_v, 1000000u * scale, VOID);
	printf("%u\n", s);
	fprintf(stderr, "acc_cheap %lld\nacc_short %lld\nacc_mixed %lld\nacc_period %lld\n",
		cheap, shrt, mixed, period);
	return 0;
}
