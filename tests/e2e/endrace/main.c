/*
 * main.c - the "endrace" e2e program: four workers loop on usleep(20)
 * while main calls b_mul 100 times and returns. The image's end books the
 * workers' calls in flight while they run on until the process ends; a
 * usleep returning in between must still find its frame (before the fix:
 * "lost the return address of a timed call", and an abort). main's output
 * (200 KB) sits in a buffer that exit flushes after the runtime's
 * destructor, which holds that interval open for a few milliseconds.
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

int b_mul(int x, int y);

static void *worker(void *arg)
{
	(void)arg;
	for (;;)
		usleep(20);
	return NULL;
}

int main(void)
{
	static char out[1 << 20];
	pthread_t th;
	long acc = 0;
	setvbuf(stdout, out, _IOFBF, sizeof(out));
	for (int i = 0; i < 4; i++)
		if (pthread_create(&th, NULL, worker, NULL) != 0)
			return 1;
	for (int i = 0; i < 100; i++)
		acc += b_mul(i, 2);
	usleep(20000);
	for (int i = 0; i < 20000; i++)
		printf("line %05d of the output\n", i);
	printf("acc=%ld\n", acc);
	return 0;
}
