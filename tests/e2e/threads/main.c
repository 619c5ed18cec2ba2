/*
 * main.c - the "threads" e2e program: four pthreads (start routine in the
 * executable) each call libsc_thr.so t_work exactly 250000 times and libc
 * strlen exactly 1000 times; the report must hold the summed counts. The
 * main thread makes no counted calls of either. See expect.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

long t_work(long x, int k);

struct job {
	int id;
	long acc;
	unsigned long len;
	char buf[32];
};

static void *worker(void *arg)
{
	struct job *j = arg;
	for (int i = 0; i < 250000; i++)
		j->acc += t_work(j->acc + i, j->id);
	for (int i = 0; i < 1000; i++) {
		__asm__ volatile("" : : "r"(j->buf) : "memory");
		j->len += strlen(j->buf + (i & 3));
	}
	return NULL;
}

int main(void)
{
	struct job jobs[4];
	pthread_t th[4];
	memset(jobs, 0, sizeof(jobs));
	for (int i = 0; i < 4; i++) {
		jobs[i].id = i;
		snprintf(jobs[i].buf, sizeof(jobs[i].buf), "thread number %d", i);
		if (pthread_create(&th[i], NULL, worker, &jobs[i]) != 0) {
			fprintf(stderr, "pthread_create failed\n");
			return 1;
		}
	}
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < 4; i++)
		printf("job %d acc=%ld len=%lu\n", i, jobs[i].acc, jobs[i].len);
	return 0;
}
