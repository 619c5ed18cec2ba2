/*
 * sc_offcpu: workloads whose time goes to known places, for the off-CPU
 * and kernel checks (checks/offcpu.py). Each prints, on stdout, the time
 * its measured part took by its own clock, in ns: "MODE NS".
 *
 *   read FILE   reads FILE (cached: read once first) 1 MB at a time, 8 times
 *   pipe        one write of 1 MB into a pipe whose reader thread sleeps
 *               100 ms before it drains it: the write blocks ~100 ms
 *   fdatasync FILE  writes 4 MB to FILE and fdatasyncs it
 *   sleep       nanosleep of 100 ms
 *   preempt     two threads pinned to one CPU, each memset-ing 64 MB
 *               buffers for 300 ms: each runnable half the time
 *   tiny FILE   200000 writes of 16 bytes to FILE
 *   random      getrandom of 8 MB buffers, 16 times
 *   mixed       two threads: sleeper sleeps 1 s (20 nanosleeps of 50 ms),
 *               randomizer makes 8 getrandom calls of 8 MB meanwhile: most
 *               of the wall time blocked, most of the CPU time in the
 *               kernel's getrandom
 *   stuck       a thread blocks in a read of an empty pipe for good; the
 *               main thread sleeps 200 ms (NS) and exits the process:
 *               the read is still blocked at the end
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static char big[8 << 20];
static int pipe_fd[2];

static void *drain(void *arg)
{
	(void)arg;
	struct timespec ts = {0, 100000000};
	nanosleep(&ts, NULL);
	while (read(pipe_fd[0], big + (4 << 20), 1 << 16) > 0)
		;
	return NULL;
}

static void *busy(void *arg)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	char *buf = malloc(64 << 20);
	long long end = now_ns() + 300000000LL;
	int i = 0;
	while (now_ns() < end)
		memset(buf, i++, 64 << 20);
	free(buf);
	return arg;
}

static void *sleeper(void *arg)
{
	struct timespec ts = {0, 50000000};
	for (int i = 0; i < 20; i++)
		nanosleep(&ts, NULL);
	return arg;
}

static int stuck_fd[2];

static void *stuck(void *arg)
{
	char c;
	if (read(stuck_fd[0], &c, 1) >= 0)
		return &c == arg ? arg : NULL;
	return arg;
}

static char rbuf[8 << 20];

static void *randomizer(void *arg)
{
	for (int i = 0; i < 8; i++)
		if (getrandom(rbuf, sizeof(rbuf), 0) != (ssize_t)sizeof(rbuf))
			return rbuf;
	return arg;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long long t0 = 0, t1 = 0;
	if (!strcmp(mode, "read") && argc > 2) {
		int fd = open(argv[2], O_RDONLY);
		if (fd < 0)
			return 2;
		while (read(fd, big, 1 << 20) > 0)
			;
		t0 = now_ns();
		for (int k = 0; k < 8; k++) {
			lseek(fd, 0, SEEK_SET);
			while (read(fd, big, 1 << 20) > 0)
				;
		}
		t1 = now_ns();
		close(fd);
	} else if (!strcmp(mode, "pipe")) {
		pthread_t th;
		if (pipe(pipe_fd) != 0 || pthread_create(&th, NULL, drain, NULL) != 0)
			return 2;
		t0 = now_ns();
		ssize_t n = write(pipe_fd[1], big, 1 << 20);
		t1 = now_ns();
		close(pipe_fd[1]);
		pthread_join(th, NULL);
		if (n != 1 << 20)
			return 3;
	} else if (!strcmp(mode, "fdatasync") && argc > 2) {
		int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || write(fd, big, 4 << 20) != 4 << 20)
			return 2;
		t0 = now_ns();
		fdatasync(fd);
		t1 = now_ns();
		close(fd);
	} else if (!strcmp(mode, "sleep")) {
		struct timespec ts = {0, 100000000};
		t0 = now_ns();
		nanosleep(&ts, NULL);
		t1 = now_ns();
	} else if (!strcmp(mode, "preempt")) {
		pthread_t a, b;
		t0 = now_ns();
		if (pthread_create(&a, NULL, busy, NULL) || pthread_create(&b, NULL, busy, NULL))
			return 2;
		pthread_join(a, NULL);
		pthread_join(b, NULL);
		t1 = now_ns();
	} else if (!strcmp(mode, "tiny") && argc > 2) {
		int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0)
			return 2;
		t0 = now_ns();
		for (int i = 0; i < 200000; i++)
			if (write(fd, big, 16) != 16)
				return 3;
		t1 = now_ns();
		close(fd);
	} else if (!strcmp(mode, "random")) {
		t0 = now_ns();
		for (int i = 0; i < 16; i++)
			if (getrandom(big, sizeof(big), 0) != (ssize_t)sizeof(big))
				return 3;
		t1 = now_ns();
	} else if (!strcmp(mode, "mixed")) {
		pthread_t a, b;
		void *ra, *rb;
		t0 = now_ns();
		if (pthread_create(&a, NULL, sleeper, NULL) || pthread_create(&b, NULL, randomizer, NULL))
			return 2;
		pthread_join(a, &ra);
		pthread_join(b, &rb);
		t1 = now_ns();
		if (ra || rb)
			return 3;
	} else if (!strcmp(mode, "stuck")) {
		pthread_t a;
		struct timespec ts = {0, 200000000};
		if (pipe(stuck_fd) || pthread_create(&a, NULL, stuck, NULL))
			return 2;
		t0 = now_ns();
		nanosleep(&ts, NULL);
		t1 = now_ns();
	} else {
		fprintf(stderr, "usage: sc_offcpu read|pipe|fdatasync|sleep|preempt|tiny|random|mixed|"
			"stuck [FILE]\n");
		return 2;
	}
	printf("%s %lld\n", mode, t1 - t0);
	return 0;
}
