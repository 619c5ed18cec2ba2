/*
 * stale.c - sc_ctlstale, for checks/ctl_stale.py: what the kernel measured
 * before `scaler ctl reset` must not come back after it. Phase 1: 300 ms
 * on the CPU, 10 reads of a pipe that a writer thread fills every 20 ms
 * (the reads block ~200 ms), and a worker thread blocks in readv of
 * another pipe. The test resets
 * and waits, then phase 2: 200 reads of /dev/zero, 1 MiB each (on the
 * CPU: no Wait), and the worker is let go (its readv blocked from before
 * the reset until now: after the reset only the time since it). Each
 * phase ends with "phase N done" on stdout and a line awaited on stdin.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "phase.h"

static int fill[2], hold[2];
static char buf[1 << 20];

static void *writer(void *arg)
{
	struct timespec ts = {0, 20000000};

	(void)arg;
	for (int i = 0; i < 10; i++) {
		nanosleep(&ts, NULL);
		if (write(fill[1], "x", 1) != 1)
			return NULL;
	}
	return NULL;
}

static void *worker(void *arg)
{
	char c;
	struct iovec v = {&c, 1};

	(void)arg;
	return readv(hold[0], &v, 1) == 1 ? NULL : (void *)1;
}

static long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(void)
{
	pthread_t w, h;
	void *rc;
	char c;
	int z;

	while (cpu_ns() < 300000000LL)
		;
	if (pipe(fill) || pipe(hold) || pthread_create(&w, NULL, writer, NULL) ||
	    pthread_create(&h, NULL, worker, NULL))
		return 1;
	for (int i = 0; i < 10; i++)
		if (read(fill[0], &c, 1) != 1)
			return 1;
	pthread_join(w, NULL);
	phase(1);
	z = open("/dev/zero", O_RDONLY);
	for (int i = 0; i < 200; i++)
		if (z < 0 || read(z, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			return 1;
	if (write(hold[1], "x", 1) != 1)
		return 1;
	pthread_join(h, &rc);
	phase(2);
	return rc != NULL;
}
