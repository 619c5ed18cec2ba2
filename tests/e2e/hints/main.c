/*
 * main.c - sc_hints MODE: one bug pattern per mode, for `scaler hints`
 * (checks/hints.py), and a quiet mode that has none:
 *   lock     4 threads take one mutex 400 times each and hold it ~50 µs
 *   strcmp   1,000,000 compares of 4000-byte strings that differ at the end
 *   poll     200,000 poll() calls with a timeout of 0
 *   quiet    some of each, too few or too short to be a pattern
 * Prints the same line in every mode.
 */
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static volatile unsigned long sink;
static int rounds, hold;

static void spin(long n)
{
	unsigned long x = sink;
	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	sink = x;
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < rounds; i++) {
		pthread_mutex_lock(&mu);
		spin(hold);
		pthread_mutex_unlock(&mu);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "quiet";
	int lock = !strcmp(mode, "lock"), cmp = !strcmp(mode, "strcmp");
	int pol = !strcmp(mode, "poll"), quiet = !strcmp(mode, "quiet");
	static char a[4001], b[4001];
	pthread_t t[4];
	long same = 0;

	if (!lock && !cmp && !pol && !quiet) {
		fprintf(stderr, "usage: sc_hints lock|strcmp|poll|quiet\n");
		return 2;
	}
	rounds = lock ? 400 : quiet ? 50 : 0;
	hold = lock ? 40000 : 10;
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	memset(a, 'x', 4000);
	memset(b, 'x', 4000);
	for (int i = 0; i < (cmp ? 1000000 : 2000); i++) {
		b[3999] = (char)('a' + i % 3);
		same += strcmp(a, b) == 0;
		if (quiet && i % 10 == 0)
			spin(20000);
	}
	for (int i = 0; i < (pol ? 200000 : 100); i++)
		poll(NULL, 0, quiet ? 1 : 0);
	printf("done\n");
	return same == 0 ? 0 : 1;
}
