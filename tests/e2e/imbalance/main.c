/*
 * main.c - the "imbalance" e2e test: a two-stage pool with the work split
 * badly. Two "slow" threads each do ~10x the work of two "fast" threads,
 * then all four meet at a barrier, so the fast ones wait most of the time.
 * The report must flag the fast group as imbalanced and not the slow one.
 *
 * `sc_imbalance others` is the case that must not be flagged: two workers
 * beside a sleeper and a background thread that waits for a few jobs (as
 * redis' bio threads do), all joined by main. Neither the sleeper nor the
 * background thread is a stage of the workers', however long they wait.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int jobs, done;

static void *sleeper(void *a)
{
	(void)a;
	usleep(200000);
	return NULL;
}

/* waits for jobs until told to stop: a background thread */
static void *background(void *a)
{
	(void)a;
	pthread_mutex_lock(&mu);
	for (;;) {
		while (!jobs && !done)
			pthread_cond_wait(&cv, &mu);
		if (!jobs)
			break;
		jobs--;
		sink++;
	}
	pthread_mutex_unlock(&mu);
	return NULL;
}

static void *worker(void *a)
{
	(void)a;
	work(2000000);
	return NULL;
}

static int others(void)
{
	pthread_t t[4];

	pthread_create(&t[0], NULL, sleeper, NULL);
	pthread_create(&t[1], NULL, background, NULL);
	pthread_create(&t[2], NULL, worker, NULL);
	pthread_create(&t[3], NULL, worker, NULL);
	for (int i = 0; i < 3; i++) {
		pthread_mutex_lock(&mu);
		jobs++;
		pthread_cond_signal(&cv);
		pthread_mutex_unlock(&mu);
		usleep(20000);
	}
	pthread_join(t[2], NULL);
	pthread_join(t[3], NULL);
	pthread_join(t[0], NULL);
	pthread_mutex_lock(&mu);
	done = 1;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
	pthread_join(t[1], NULL);
	printf("done\n");
	return 0;
}

int main(int argc, char **argv)
{
	pthread_t t[4];

	if (argc > 1 && !strcmp(argv[1], "others"))
		return others();
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
