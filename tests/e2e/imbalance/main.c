/*
 * main.c - the "imbalance" e2e test: a two-stage pool with the work split
 * badly. Two "slow" threads each do ~10x the work of two "fast" threads,
 * then all four meet at a barrier, so the fast ones wait most of the time.
 * The report must flag the fast group as imbalanced and not the slow one.
 */
#include <pthread.h>
#include <stdio.h>

int lib_work(int x);

static pthread_barrier_t bar;
static volatile long sink;

static void work(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += lib_work((int)i);
	sink += s;
}

static void *slow_stage(void *a)
{
	(void)a;
	work(20000000);
	pthread_barrier_wait(&bar);
	return NULL;
}

static void *fast_stage(void *a)
{
	(void)a;
	work(2000000);
	pthread_barrier_wait(&bar);
	return NULL;
}

int main(void)
{
	pthread_t t[4];
	pthread_barrier_init(&bar, NULL, 4);
	pthread_create(&t[0], NULL, slow_stage, NULL);
	pthread_create(&t[1], NULL, slow_stage, NULL);
	pthread_create(&t[2], NULL, fast_stage, NULL);
	pthread_create(&t[3], NULL, fast_stage, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("done\n");
	return 0;
}
