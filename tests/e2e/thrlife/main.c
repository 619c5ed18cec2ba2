/*
 * main.c - the "thrlife" e2e test: threads that do not simply return.
 * Every thread calls libsc_thr.so t_work an exact number of times first:
 *   exiter    10  then pthread_exit from a qsort callback (the unwind
 *                 crosses a timed qsort; a cleanup variable must run)
 *   exiter2   20  then pthread_exit
 *   detached  40  never joined
 *   forever   2 x 80, then blocked in read() on a pipe when main returns
 *   cancel    2 x 100, then cancelled while blocked in read() / in
 *                 pthread_cond_wait: pthread_cleanup_push handlers and
 *                 __attribute__((cleanup)) variables must run exactly as
 *                 without scaler (built with -fexceptions, so cleanups are
 *                 landing pads found by the unwinder)
 *   serial    1000 x 1, created and joined one after the other
 * t_work total = 10 + 20 + 40 + 160 + 200 + 1000 = 1430; 1008 threads.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

long t_work(long x, int k);

static int fds[2];
static sem_t ready;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static volatile long sink;
static int cleanups, scoped;

static void work(int n)
{
	for (int i = 0; i < n; i++)
		sink += t_work(sink + i, n);
}

static void on_cancel(void *p) { (void)p; __atomic_add_fetch(&cleanups, 1, __ATOMIC_SEQ_CST); }
static void on_scope(int *p) { (void)p; __atomic_add_fetch(&scoped, 1, __ATOMIC_SEQ_CST); }

static int cmp_exit(const void *a, const void *b)
{
	(void)a;
	(void)b;
	pthread_exit((void *)7);
}

static void *exiter(void *a)
{
	(void)a;
	__attribute__((cleanup(on_scope))) int guard = 0;
	(void)guard;
	work(10);
	int v[4] = {4, 3, 2, 1};
	qsort(v, 4, sizeof(int), cmp_exit);
	return NULL;
}

static void *exiter2(void *a)
{
	(void)a;
	work(20);
	pthread_exit((void *)8);
}

static void *detached(void *a)
{
	(void)a;
	work(40);
	sem_post(&ready);
	return NULL;
}

/* says it is ready, then blocks in read() until the end of the process */
static void block_in_read(void)
{
	char c;
	sem_post(&ready);
	while (read(fds[0], &c, 1) >= 0)
		;
}

static void *forever(void *a)
{
	(void)a;
	work(80);
	block_in_read();
	return NULL;
}


static void *cancel_read(void *a)
{
	(void)a;
	__attribute__((cleanup(on_scope))) int guard = 0;
	(void)guard;
	pthread_cleanup_push(on_cancel, NULL);
	work(100);
	block_in_read();
	pthread_cleanup_pop(0);
	return NULL;
}

static void unlock(void *p) { pthread_mutex_unlock(p); on_cancel(p); }

static void *cancel_wait(void *a)
{
	(void)a;
	__attribute__((cleanup(on_scope))) int guard = 0;
	(void)guard;
	work(100);
	pthread_mutex_lock(&mu);
	pthread_cleanup_push(unlock, &mu);
	sem_post(&ready);
	for (;;)
		pthread_cond_wait(&cv, &mu);
	pthread_cleanup_pop(1);
	return NULL;
}

static void *serial(void *a)
{
	(void)a;
	work(1);
	return NULL;
}

int main(void)
{
	pthread_t t;
	void *r1, *r2, *r3, *r4;
	if (pipe(fds) != 0 || sem_init(&ready, 0, 0) != 0)
		return 1;
	pthread_create(&t, NULL, exiter, NULL);
	pthread_join(t, &r1);
	pthread_create(&t, NULL, exiter2, NULL);
	pthread_join(t, &r2);
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pthread_create(&t, &at, detached, NULL);
	sem_wait(&ready);
	for (int i = 0; i < 2; i++) {
		pthread_create(&t, NULL, forever, NULL);
		sem_wait(&ready);
	}
	pthread_create(&t, NULL, cancel_read, NULL);
	sem_wait(&ready);
	usleep(20000);                  /* let it block in read */
	pthread_cancel(t);
	pthread_join(t, &r3);
	pthread_create(&t, NULL, cancel_wait, NULL);
	sem_wait(&ready);
	pthread_mutex_lock(&mu);        /* it is in pthread_cond_wait now */
	pthread_mutex_unlock(&mu);
	pthread_cancel(t);
	pthread_join(t, &r4);
	for (int i = 0; i < 1000; i++) {
		pthread_create(&t, NULL, serial, NULL);
		pthread_join(t, NULL);
	}
	printf("exit values %ld %ld, cancelled %d %d, cleanups %d, scoped %d\n", (long)r1,
	       (long)r2, r3 == PTHREAD_CANCELED, r4 == PTHREAD_CANCELED, cleanups, scoped);
	return 0;
}
