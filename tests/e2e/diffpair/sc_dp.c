/*
 * sc_dp.c - libsc_dp.so, the library of sc_diffpair: a table lookup that
 * either hashes (one strcmp per lookup) or scans (a strcmp per entry), a
 * costly step that costs the same in every mode, a step whose calls take
 * longer with more work, a wait for readiness (poll), a check that runs
 * only when asked, and a lock taken briefly or held for long.
 */
#include <poll.h>
#include <pthread.h>
#include <string.h>

#define NKEYS 64
#define KEYLEN 160

/* the same names twice; they differ only at their end, so a compare
 * reads all of a name (~10 ns) */
static char keys[NKEYS][KEYLEN], probes[NKEYS][KEYLEN];
static volatile unsigned long sink;

void dl_init(void)
{
	for (int i = 0; i < NKEYS; i++) {
		memset(keys[i], 'k', KEYLEN - 1);
		keys[i][KEYLEN - 3] = (char)('0' + i / 10);
		keys[i][KEYLEN - 2] = (char)('0' + i % 10);
		memcpy(probes[i], keys[i], sizeof(keys[i]));
	}
}

/* Index of key i's name: hashed (one compare) or scanned from the start
 * (i + 1 compares). */
int dl_lookup(int i, int scan)
{
	const char *k = probes[i % NKEYS];

	if (!scan)
		return strcmp(keys[i % NKEYS], k) == 0 ? i % NKEYS : -1;
	/* the key is found at index i % NKEYS: i % NKEYS + 1 compares */
	for (int j = 0; j < NKEYS; j++)
		if (strcmp(keys[j], k) == 0)
			return j;
	return -1;
}

/* n units of arithmetic */
static unsigned long spin(long n)
{
	unsigned long x = sink;
	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	sink = x;
	return x;
}

unsigned long dl_heavy(long n) { return spin(n); }
unsigned long dl_step(long n) { return spin(n); }
unsigned long dl_check(long n) { return spin(n); }

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

/* hold units of work under the lock, then outside units without it */
unsigned long dl_locked(long hold, long outside)
{
	pthread_mutex_lock(&mu);
	unsigned long x = spin(hold);
	pthread_mutex_unlock(&mu);
	return x + spin(outside);
}

/* the lock held for ms milliseconds (asleep in poll), *held = round
 * once it is */
int dl_hold(int ms, volatile int *held, int round)
{
	pthread_mutex_lock(&mu);
	*held = round;
	int r = poll(NULL, 0, ms);
	pthread_mutex_unlock(&mu);
	return r;
}

/* not a tail call: poll is timed as a call of its own */
int dl_wait(int ms)
{
	int r = poll(NULL, 0, ms);
	sink += (unsigned long)r;
	return r;
}
