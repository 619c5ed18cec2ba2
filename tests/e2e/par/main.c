/*
 * main.c - sc_par, the program checks/parclock.py holds the parallel
 * clock against: one thread busy on the CPU for 300 ms (par_spin) next to
 * threads that block nearly all that time, two in nanosleep inside
 * par_sleeps (30 x 10 ms) and one in a read of a pipe inside par_read,
 * which the main thread writes after its own 300 ms nanosleep. Only the
 * busy thread runs, so the critical time is about its 300 ms, and no call
 * made by the others can have more than their few us on the CPU of it.
 * Prints "spin_ns N", the busy call's time by its own clock.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

void par_sleeps(int n, long ns);
long par_read(int fd);
void par_spin(uint64_t ticks);

static int fds[2];
static long long spin_ns;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *busy(void *arg)
{
	uint64_t ticks = *(uint64_t *)arg;
	long long t0 = now_ns();

	par_spin(ticks);
	spin_ns = now_ns() - t0;
	return NULL;
}

static void *sleeper(void *arg)
{
	(void)arg;
	par_sleeps(30, 10000000);
	return NULL;
}

static void *reader(void *arg)
{
	(void)arg;
	par_read(fds[0]);
	return NULL;
}

int main(void)
{
	pthread_t t[4];
	struct timespec ts = {0, 300000000};
	uint64_t ticks;
	long long t0 = now_ns();
	uint64_t c0 = __rdtsc();

	while (now_ns() - t0 < 20000000)
		;
	ticks = (uint64_t)((double)(__rdtsc() - c0) / (double)(now_ns() - t0) * 300e6);
	if (pipe(fds) || pthread_create(&t[0], NULL, busy, &ticks) ||
	    pthread_create(&t[1], NULL, sleeper, NULL) || pthread_create(&t[2], NULL, sleeper, NULL) ||
	    pthread_create(&t[3], NULL, reader, NULL))
		return 1;
	nanosleep(&ts, NULL);
	if (write(fds[1], "x", 1) != 1)
		return 1;
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("spin_ns %lld\n", spin_ns);
	return 0;
}
