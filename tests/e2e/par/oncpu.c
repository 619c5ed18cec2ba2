/*
 * oncpu.c - sc_paroncpu, the program checks/parclock.py holds the parallel
 * clock's on-CPU rule against: two threads busy in calls of libsc_par
 * (par_work) on one CPU (the test runs it under taskset), "hog" at nice 0
 * until it has had 300 ms of CPU time, "meek" at nice 19 until hog is
 * done. Both are runnable all along, but the scheduler gives meek ~1.5 %
 * of the CPU: attributed times that count a preempted thread as running
 * would give each about half the span. Prints each thread's CPU time by
 * its own clock (CLOCK_THREAD_CPUTIME_ID): "hog_cpu_ns N", "meek_cpu_ns N".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

uint64_t par_work(uint64_t n);

#define CHUNK 20000             /* rounds of par_work: ~20-40 us */
#define HOG_NS 300000000LL

static pthread_barrier_t start;
static volatile int stop;
static long long hog_cpu, meek_cpu;
static volatile uint64_t sink;

static long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *hog(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start);
	while (cpu_ns() < HOG_NS)
		sink += par_work(CHUNK);
	stop = 1;
	hog_cpu = cpu_ns();
	return NULL;
}

static void *meek(void *arg)
{
	(void)arg;
	if (setpriority(PRIO_PROCESS, (id_t)gettid(), 19))
		return NULL;
	pthread_barrier_wait(&start);
	while (!stop)
		sink += par_work(CHUNK);
	meek_cpu = cpu_ns();
	return NULL;
}

int main(void)
{
	pthread_t a, b;

	if (pthread_barrier_init(&start, NULL, 2) || pthread_create(&b, NULL, meek, NULL) ||
	    pthread_create(&a, NULL, hog, NULL))
		return 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	if (!meek_cpu)
		return 1;
	printf("hog_cpu_ns %lld\nmeek_cpu_ns %lld\n", hog_cpu, meek_cpu);
	return 0;
}
