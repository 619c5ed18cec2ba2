/*
 * sc_ev.c - libsc_ev.so for the "inflight" e2e test: an event loop that
 * never returns (memcached's workers in event_base_loop): 50 short sleeps,
 * then it blocks in pause() until the process ends. ev_sleeps counts the
 * sleeps done: main waits for all 50 before its 300 ms (a loaded machine
 * wakes sleepers late: at 1 ms each a CI run saw only 45 done in 300 ms,
 * and at 0.2 ms one still did not fit under load 14).
 */
#include <unistd.h>

volatile int ev_sleeps;

void ev_loop(void)
{
	for (int i = 0; i < 50; i++) {
		usleep(200);
		__atomic_store_n(&ev_sleeps, i + 1, __ATOMIC_RELEASE);
	}
	for (;;)
		pause();
}
