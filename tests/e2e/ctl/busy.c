/*
 * busy.c - sc_ctlbusy, for checks/ctl_busy.py: threads preempted while
 * paused. Three threads write to /dev/null without pause, all on one CPU
 * (the first the process may use), so each is off it two thirds of the
 * time, paused or not. Phase 1: 300 ms, then "phase 1 done" (the test
 * pauses); phase 2: 800 ms, then "phase 2 done" (the test resumes, or
 * resets and resumes); phase 3: 300 ms. On stderr, "cpu_ns A B": the busy
 * threads' CPU time before the pause and after it, at least (phases 1
 * and 3).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "phase.h"

#define NBUSY 3

static volatile int stop;
static cpu_set_t one;

static void *busy(void *arg)
{
	char b[64] = {0};
	int fd = open("/dev/null", O_WRONLY);

	(void)arg;
	pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
	while (!stop)
		if (write(fd, b, sizeof(b)) != (ssize_t)sizeof(b))
			break;
	close(fd);
	return NULL;
}

static long long cpu_of(pthread_t *t)
{
	long long sum = 0;

	for (int i = 0; i < NBUSY; i++) {
		clockid_t c;
		struct timespec ts;

		if (pthread_getcpuclockid(t[i], &c) == 0 && clock_gettime(c, &ts) == 0)
			sum += ts.tv_sec * 1000000000LL + ts.tv_nsec;
	}
	return sum;
}

int main(void)
{
	pthread_t t[NBUSY];
	cpu_set_t all;

	sched_getaffinity(0, sizeof(all), &all);
	CPU_ZERO(&one);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &all)) {
			CPU_SET(c, &one);
			break;
		}
	for (int i = 0; i < NBUSY; i++)
		pthread_create(&t[i], NULL, busy, NULL);
	usleep(300000);
	long long c1 = cpu_of(t);
	phase(1);
	usleep(800000);
	phase(2);
	long long c2 = cpu_of(t);
	usleep(300000);
	long long c3 = cpu_of(t);
	stop = 1;
	for (int i = 0; i < NBUSY; i++)
		pthread_join(t[i], NULL);
	fprintf(stderr, "cpu_ns %lld %lld\n", c1, c3 - c2);
	printf("done\n");
	return 0;
}
