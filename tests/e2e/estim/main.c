/*
 * main.c - sc_estim, the programs checks/estimator.py holds adaptive
 * timing's estimates against (issue 19):
 *
 *   sc_estim phased [ROUNDS]  est_call in phases: 20000 calls of ~10 ns,
 *                             then 40 of ~50 us, ROUNDS times (30)
 *   sc_estim mutex [N]        4 threads contend on one mutex: lock,
 *                             counter++, unlock, N times each (1000000)
 *
 * Each prints on stdout what it measured with its own clock: `inside_ns`
 * the time of est_call's calls (the long ones measured inside each call;
 * the short ones as the same work done by a private copy after each
 * phase, less the same loop around an empty function, as
 * bench/accuracy.c does), `phased_ns` the time of its phases' loops,
 * `threads_ns` the 4 threads' time in their loops (nearly all of it in
 * pthread_mutex_lock/unlock) and `counter` (4 N when the lock held); and,
 * as *_cpu_ns, the CPU time of the same: what is missing from it is time
 * the thread was off the CPU (preempted, or asleep in the lock).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

#include "work.h"

void est_call(uint64_t ticks);
uint64_t est_spent(void);

static long long clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* this thread's CPU time: wall time less it is time the thread was off
 * the CPU (preempted by other work on the machine, or blocked) */
static long long cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* TSC ticks per us, measured over 20 ms */
static double ticks_per_us(void)
{
	long long t0 = now_ns();
	uint64_t c0 = __rdtsc();
	while (now_ns() - t0 < 20000000)
		;
	return (double)(__rdtsc() - c0) / ((double)(now_ns() - t0) / 1000.0);
}

static volatile unsigned long sink;

static __attribute__((noinline)) void copy_call(void)
{
	sink = est_work(sink);
}

static __attribute__((noinline)) void empty_call(void)
{
	__asm__ volatile("");
}

/* ns of n short calls' own work: the private copy less an empty call */
static long long short_truth(int n)
{
	long long t0 = now_ns();
	for (int i = 0; i < n; i++)
		copy_call();
	long long t1 = now_ns();
	for (int i = 0; i < n; i++)
		empty_call();
	return 2 * t1 - t0 - now_ns();
}

static int phased(int rounds)
{
	double tpu = ticks_per_us();
	uint64_t slow = (uint64_t)(50 * tpu);
	long long total = 0, cpu = 0, fast = 0;

	for (int r = 0; r < rounds; r++) {
		long long c0 = cpu_ns(), t0 = now_ns();
		for (int i = 0; i < 20000; i++)
			est_call(0);
		for (int i = 0; i < 40; i++)
			est_call(slow);
		total += now_ns() - t0;
		cpu += cpu_ns() - c0;
		fast += short_truth(20000);
	}
	printf("calls %d\nphased_ns %lld\nphased_cpu_ns %lld\ninside_ns %lld\n", rounds * 20040,
	       total, cpu, fast + (long long)((double)est_spent() / tpu * 1000.0));
	return 0;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t start;
static long counter, iters;
static long long spent[4][2];

static void *worker(void *arg)
{
	long long *out = arg;

	pthread_barrier_wait(&start);
	long long c0 = cpu_ns(), t0 = now_ns();
	for (long i = 0; i < iters; i++) {
		pthread_mutex_lock(&lock);
		counter++;
		pthread_mutex_unlock(&lock);
	}
	out[0] = now_ns() - t0;
	out[1] = cpu_ns() - c0;
	return NULL;
}

static int mutex(void)
{
	pthread_t t[4];
	long long sum = 0, cpu = 0;

	pthread_barrier_init(&start, NULL, 4);
	for (int i = 0; i < 4; i++)
		if (pthread_create(&t[i], NULL, worker, spent[i]))
			return 1;
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		sum += spent[i][0];
		cpu += spent[i][1];
	}
	printf("counter %ld\nthreads_ns %lld\nthreads_cpu_ns %lld\n", counter, sum, cpu);
	return counter == 4 * iters ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "phased"))
		return phased(argc > 2 ? atoi(argv[2]) : 30);
	if (argc > 1 && !strcmp(argv[1], "mutex")) {
		iters = argc > 2 ? atol(argv[2]) : 1000000;
		return mutex();
	}
	fprintf(stderr, "usage: sc_estim phased [ROUNDS] | mutex [N]\n");
	return 2;
}
