/*
 * main.c - sc_args MODE, for checks/args.py (scaler record --args):
 *   std    write(64) x1000, write(4096) x10, one write(-1) that fails,
 *          malloc(100) x50, and calls of libsc_ac.so that check their
 *          arguments and return values: exits 1 if any came wrong
 *   small  4 MB to /dev/null in writes of 64 bytes
 *   big    the same 4 MB in writes of 4096 bytes
 *   ok     20,000 writes of 64 bytes to /dev/null
 *   bad    the same, every other one to fd -1 (EBADF)
 *   kinds  the values that are not an argument as passed, with errno
 *          checked around each call: free of 20 x malloc(100), 10 x
 *          malloc(1000), 5 x malloc(5000) and 5 x free(NULL); 2 x
 *          malloc(64 TB) (ENOMEM); 3 mutexes locked and unlocked 100
 *          times each, 7 trylocks of a locked one (EBUSY); 100 rwlocks
 *          write-locked once each (from cb_lock, through ac_apply); 4
 *          sem_trywait on 0 (EAGAIN); nanosleep 1 us x3 and 2 ms x1,
 *          clock_nanosleep 5 us x2, usleep(50) x2; 3 x read(-1) (EBADF);
 *          50 x cb_twice(i) through ac_apply. First prints the usable
 *          sizes of malloc(99), malloc(999), malloc(4999), each freed
 * Prints what it checked.
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct ac_pair { long a, b; };
struct ac_pair ac_six(long a, long b, long c, long d, long e, long f);
double ac_dbl(int n, double x, double y);
double ac_var(int n, ...);
long ac_apply(long (*f)(long), long x);

static char buf[4096];

/* called from libsc_ac.so (ac_apply): --functions patches them */
__attribute__((noinline)) long cb_twice(long x)
{
	return 2 * x;
}

static pthread_rwlock_t many[100];

__attribute__((noinline)) long cb_lock(long i)
{
	long r = pthread_rwlock_wrlock(&many[i]);
	return r | pthread_rwlock_unlock(&many[i]);
}

/* errno must come back from each call as the call left it: the value
 * set before for a call that succeeds */
#define KEEPS(call) (errno = 77, (call), errno != 77)
#define WANTS(call, want) ({ errno = 77; long r_ = (long)(call); r_ != (want) || errno != 77; })

static int kinds(void)
{
	static const size_t sizes[3] = { 100, 1000, 5000 };
	static const int times[3] = { 20, 10, 5 };
	static pthread_mutex_t mx[3] = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
					 PTHREAD_MUTEX_INITIALIZER };
	volatile size_t huge = (size_t)1 << 46;      /* 64 TB: ENOMEM */
	int bad = 0;

	for (int k = 0; k < 3; k++) {
		char *p = malloc(sizes[k] - 1);
		printf("usable %zu\n", malloc_usable_size(p));
		free(p);
	}
	for (int k = 0; k < 3; k++)
		for (int i = 0; i < times[k]; i++) {
			char *volatile p = malloc(sizes[k]);
			bad |= !p || KEEPS(free(p));
		}
	for (int i = 0; i < 5; i++) {
		char *volatile none = NULL;     /* a free(NULL) gcc cannot drop */
		bad |= KEEPS(free(none));
	}
	for (int i = 0; i < 2; i++) {
		errno = 0;
		bad |= malloc(huge) != NULL || errno != ENOMEM;
	}
	for (int i = 0; i < 100; i++)
		for (int k = 0; k < 3; k++) {
			bad |= WANTS(pthread_mutex_lock(&mx[k]), 0);
			bad |= WANTS(pthread_mutex_unlock(&mx[k]), 0);
		}
	pthread_mutex_lock(&mx[0]);
	for (int i = 0; i < 7; i++)
		bad |= WANTS(pthread_mutex_trylock(&mx[0]), EBUSY);
	pthread_mutex_unlock(&mx[0]);
	for (int i = 0; i < 100; i++) {
		pthread_rwlock_init(&many[i], NULL);
		bad |= ac_apply(cb_lock, i) != 0;
	}
	sem_t sem;
	sem_init(&sem, 0, 0);
	for (int i = 0; i < 4; i++) {
		errno = 0;
		bad |= sem_trywait(&sem) != -1 || errno != EAGAIN;
	}
	struct timespec us = { 0, 1000 }, ms = { 0, 2000000 }, five = { 0, 5000 };
	for (int i = 0; i < 3; i++)
		bad |= WANTS(nanosleep(&us, NULL), 0);
	bad |= WANTS(nanosleep(&ms, NULL), 0);
	for (int i = 0; i < 2; i++)
		bad |= WANTS(clock_nanosleep(CLOCK_MONOTONIC, 0, &five, NULL), 0);
	for (int i = 0; i < 2; i++)
		bad |= WANTS(usleep(50), 0);
	for (int i = 0; i < 3; i++) {
		errno = 0;
		bad |= read(-1, buf, 8) != -1 || errno != EBADF;
	}
	for (int i = 0; i < 50; i++)
		bad |= WANTS(ac_apply(cb_twice, i), 2 * i);
	return bad;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "std";
	int fd = open("/dev/null", O_WRONLY), bad = 0;

	if (fd < 0)
		return 2;
	memset(buf, 'x', sizeof(buf));
	if (!strcmp(mode, "small") || !strcmp(mode, "big")) {
		size_t piece = !strcmp(mode, "small") ? 64 : 4096;
		for (size_t done = 0; done < (4u << 20); done += piece)
			bad |= write(fd, buf, piece) != (ssize_t)piece;
		printf("%s %d\n", mode, bad);
		return bad;
	}
	if (!strcmp(mode, "ok") || !strcmp(mode, "bad")) {
		int every = !strcmp(mode, "bad") ? 2 : 0;
		for (int i = 0; i < 20000; i++) {
			int to = every && i % every == 0 ? -1 : fd;
			bad |= write(to, buf, 64) != (to < 0 ? -1 : 64);
		}
		printf("%s %d\n", mode, bad);
		return bad;
	}
	if (!strcmp(mode, "kinds")) {
		bad = kinds();
		printf("kinds %d\n", bad);
		return bad;
	}
	if (strcmp(mode, "std"))
		return 2;
	for (int i = 0; i < 1000; i++)
		bad |= write(fd, buf, 64) != 64;
	for (int i = 0; i < 10; i++)
		bad |= write(fd, buf, 4096) != 4096;
	bad |= write(-1, buf, 8) != -1;
	for (int i = 0; i < 50; i++) {
		char *volatile p = malloc(100);
		bad |= !p;
		free(p);
	}
	for (int i = 0; i < 100; i++) {
		struct ac_pair p = ac_six(1, 2, 3, 4, 5, 0x123456789abcdef0L);
		bad |= p.a != 15 || p.b != 0x123456789abcdef0L;
		bad |= ac_dbl(i, 2.5, 0.5) != i * 2.5 + 0.5;
		bad |= ac_var(3, 1.5, 2.5, (double)i) != 4.0 + i;
	}
	printf("std %d\n", bad);
	return bad;
}
