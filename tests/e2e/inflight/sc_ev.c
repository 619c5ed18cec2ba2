/*
 * sc_ev.c - libsc_ev.so for the "inflight" e2e test: an event loop that
 * never returns (memcached's workers in event_base_loop): 50 short sleeps,
 * then it blocks in pause() until the process ends. The sleeps are
 * 0.2 ms (10 ms in all) so that all 50 end well within main's 300 ms even
 * on a loaded 2-core machine: at 1 ms each, a CI run saw only 45 done.
 */
#include <unistd.h>

void ev_loop(void)
{
	for (int i = 0; i < 50; i++)
		usleep(200);
	for (;;)
		pause();
}
