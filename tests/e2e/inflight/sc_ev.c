/*
 * sc_ev.c - libsc_ev.so for the "inflight" e2e test: an event loop that
 * never returns (memcached's workers in event_base_loop): 50 short sleeps,
 * then it blocks in pause() until the process ends.
 */
#include <unistd.h>

void ev_loop(void)
{
	for (int i = 0; i < 50; i++)
		usleep(1000);
	for (;;)
		pause();
}
