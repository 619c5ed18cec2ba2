/*
 * main.c - the "inflight" e2e test: a thread runs ev_loop (libsc_ev.so),
 * which never returns; main exits 300 ms after its 50 sleeps are done
 * (polled by nanosleep, which no expect row counts). The calls in flight at the
 * end (ev_loop, pause) must be booked up to the end, so that ev_loop's
 * time covers the calls made inside it and pause's is Wait.
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

void ev_loop(void);
extern volatile int ev_sleeps;

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
	while (__atomic_load_n(&ev_sleeps, __ATOMIC_ACQUIRE) < 50)
		nanosleep(&(struct timespec){0, 1000000}, NULL);
	usleep(300000);
	printf("done\n");
	return 0;
}
