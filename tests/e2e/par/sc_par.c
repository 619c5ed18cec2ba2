/*
 * sc_par.c - libsc_par.so for the parallel clock's check (checks/
 * parclock.py): calls that hold other calls, so that what a thread does
 * inside them is seen by the interceptor (libsc_par's own GOT).
 *
 *   par_sleeps(n, ns)  n nanosleeps of ns each: a call that waits nearly
 *                      all its time, in a Wait API (by name)
 *   par_read(fd)       one read of a pipe: a call that blocks until the
 *                      writer writes, in an API that is no Wait by name
 *   par_spin(ticks)    on the CPU for that many TSC ticks, no calls
 *   par_work(n)        n rounds of arithmetic on the CPU, no calls (oncpu.c)
 */
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

void par_sleeps(int n, long ns)
{
	struct timespec ts = {0, ns};

	for (int i = 0; i < n; i++)
		nanosleep(&ts, NULL);
}

long par_read(int fd)
{
	char c;

	return read(fd, &c, 1);
}

void par_spin(uint64_t ticks)
{
	uint64_t t0 = __rdtsc();

	while (__rdtsc() - t0 < ticks)
		;
}

/* par_work(n): n rounds of arithmetic on the CPU, no calls; returns a
 * value that depends on all of them, so none is left out */
uint64_t par_work(uint64_t n)
{
	uint64_t x = n;

	for (uint64_t i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}
