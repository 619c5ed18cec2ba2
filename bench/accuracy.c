/*
 * accuracy.c - the program bench/accuracy.sh profiles: calls each acclib
 * function in a loop. Argument: scale (1 = about 0.5 s natively).
 * Prints each loop's wall time on stderr ("api ns"): run without the
 * profiler, that is the truth both modes are compared with (it includes
 * the loop's own ~1 ns per call, so it slightly overstates the API).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

unsigned acc_cheap(unsigned x);
void acc_short(unsigned i);
void acc_mixed(unsigned i);
void acc_period(unsigned i);

static long long now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	unsigned scale = argc > 1 ? (unsigned)atoi(argv[1]) : 1, s = 0;
	long long t0 = now(), t1, t2, t3, t4;
	for (unsigned i = 0; i < 20000000u * scale; i++)
		s += acc_cheap(i);
	t1 = now();
	for (unsigned i = 0; i < 2000000u * scale; i++)
		acc_short(i);
	t2 = now();
	for (unsigned i = 0; i < 1000000u * scale; i++)
		acc_mixed(i);
	t3 = now();
	for (unsigned i = 0; i < 1000000u * scale; i++)
		acc_period(i);
	t4 = now();
	printf("%u\n", s);
	fprintf(stderr, "acc_cheap %lld\nacc_short %lld\nacc_mixed %lld\nacc_period %lld\n",
		t1 - t0, t2 - t1, t3 - t2, t4 - t3);
	return 0;
}
