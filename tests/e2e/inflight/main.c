/*
 * main.c - the "inflight" e2e test: a thread runs ev_loop (libsc_ev.so),
 * which never returns; main exits after 300 ms. The calls in flight at the
 * end (ev_loop, pause) must be booked up to the end, so that ev_loop's
 * time covers the calls made inside it and pause's is Wait.
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

void ev_loop(void);

static void *worker(void *a)
{
	(void)a;
	ev_loop();
	return NULL;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	usleep(300000);
	printf("done\n");
	return 0;
}
