/*
 * main.c - the "analysis" e2e test: phases whose right answers are known,
 * for the report's Wait, nesting and serial vs parallel figures
 * (checks/analysis.py compares the report with the truth this
 * program measures itself and prints on stderr, name=us lines):
 *   sleep   20 x usleep(5 ms)                 -> ~100 ms of Wait in usleep
 *                                                 (the shortest and longest
 *                                                 sleep: where its p50 lies)
 *   lock    4 x: main holds a mutex 25 ms while a new thread blocks on it
 *                                              -> ~100 ms of Wait in
 *                                                 pthread_mutex_lock
 *   nest    20 x an_outer(2 ms self, 3 ms in an_inner)
 *                                              -> an_outer 100 ms inclusive,
 *                                                 40 ms exclusive
 *   many    an_many(2000 x (10 us, an_tick()))  -> an_many 20 ms inclusive
 *   serial  an_serial(60 ms), alone            -> attributed 60 ms
 *   parallel 4 threads x an_parallel(60 ms) at once
 *                                              -> 240 ms raw, 60 ms attributed
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

void an_serial(long us);
void an_parallel(long us);
void an_hold(long us);
void an_outer(long self_us, long inner_us);
void an_many(long us, int n);
void an_truth(FILE *f);

static long now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
}

static long lock_wait_us;

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t start;
static volatile int ready;

static void *locker(void *a)
{
	(void)a;
	__atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
	long t0 = now_us();
	pthread_mutex_lock(&m);         /* blocks until main lets go */
	lock_wait_us += now_us() - t0;
	pthread_mutex_unlock(&m);
	return NULL;
}

/* the barrier makes the four start together: the phase is 60 ms long */
static void *par_worker(void *a)
{
	(void)a;
	pthread_barrier_wait(&start);
	an_parallel(60000);
	return NULL;
}

int main(void)
{
	pthread_t t[4];

	long t0 = now_us(), lo = -1, hi = 0;
	for (int i = 0; i < 20; i++) {
		long s0 = now_us();
		usleep(5000);
		long d = now_us() - s0;
		lo = lo < 0 || d < lo ? d : lo;
		hi = d > hi ? d : hi;
	}
	long sleep_us = now_us() - t0;

	for (int i = 0; i < 4; i++) {
		pthread_mutex_lock(&m);
		ready = 0;
		pthread_create(&t[0], NULL, locker, NULL);
		while (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE))
			;
		an_hold(25000);
		pthread_mutex_unlock(&m);
		pthread_join(t[0], NULL);
	}

	for (int i = 0; i < 20; i++)
		an_outer(2000, 3000);
	an_many(10, 2000);

	an_serial(60000);

	pthread_barrier_init(&start, NULL, 4);
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, par_worker, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("done\n");
	fprintf(stderr, "sleep_us=%ld\nsleep_min_us=%ld\nsleep_max_us=%ld\nlock_wait_us=%ld\n",
		sleep_us, lo, hi, lock_wait_us);
	an_truth(stderr);
	return 0;
}
