/*
 * main.c - sc_hints MODE: one bug pattern per mode, for `scaler hints`
 * (checks/hints.py), and a quiet mode that has none:
 *   lock     4 threads take one mutex 400 times each and hold it ~50 µs
 *   strcmp   1,000,000 compares of 4000-byte strings that differ at the end
 *   poll     200,000 poll() calls with a timeout of 0
 *   tinyio   200,000 writes of 16 bytes to /dev/null (a hint with --args)
 *   churn    500,000 malloc(48) each freed at once
 *   bigio    200,000 writes of 64 KB: many I/O calls, none tiny
 *   quiet    some of each, too few or too short to be a pattern
 * Prints the same line in every mode.
 */
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	int tiny = !strcmp(mode, "tinyio"), churn = !strcmp(mode, "churn");
	int bigio = !strcmp(mode, "bigio");
	static char a[4001], b[4001];
	pthread_t t[4];
	long same = 0;

	if (!lock && !cmp && !pol && !quiet && !tiny && !churn && !bigio) {
		fprintf(stderr, "usage: sc_hints lock|strcmp|poll|tinyio|churn|bigio|quiet\n");
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
	static char buf[65536];
	int fd = open("/dev/null", O_WRONLY);
	size_t piece = bigio ? sizeof(buf) : 16;
	for (int i = 0; i < (tiny || bigio ? 200000 : 1000); i++)
		if (write(fd, buf, piece) != (ssize_t)piece)
			return 1;
	close(fd);
	for (int i = 0; i < (churn ? 500000 : 1000); i++) {
		char *volatile p = malloc(48);
		if (!p)
			return 1;
		p[0] = (char)i;
		free(p);
	}
	printf("done\n");
	return same == 0 ? 0 : 1;
}
