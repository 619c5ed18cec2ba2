/*
 * main.c - sc_walk MODE: programs whose time the walk tests control
 * (checks/walk.py):
 *   api    ~90 % of the time in wk_spin (libsc_wk.so), the rest its own
 *   two    ~45 % in wk_spin and ~45 % in wk_other: two close branches
 *   deep   ~90 % in qsort, whose time is in the static comparator
 *          slow_cmp this program hands it (and in weigh, which it calls):
 *          what `scaler walk --deeper` must find
 *   own    ~95 % in the static own_hot, called from main: its own code
 *   io     200,000 writes of 64 bytes to /dev/null, its main cost
 * Prints the same line in every mode.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void wk_spin(long n);
void wk_other(long n);

static volatile unsigned long sink;

static __attribute__((noinline)) unsigned long own_spin(long n)
{
	unsigned long x = sink;

	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	sink = x;
	return x;
}

static __attribute__((noinline)) int weigh(int v)
{
	return (int)(own_spin(400) & 1) + v;
}

static int slow_cmp(const void *a, const void *b)
{
	int x = weigh(*(const int *)a), y = weigh(*(const int *)b);

	return (x > y) - (x < y);
}

static __attribute__((noinline)) void own_hot(long n)
{
	own_spin(n);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	static int v[4000];

	if (!strcmp(mode, "api")) {
		wk_spin(90000000);
		own_spin(10000000);
	} else if (!strcmp(mode, "two")) {
		/* in turns, so that a load on the machine slows both alike */
		for (int i = 0; i < 100; i++) {
			wk_spin(450000);
			wk_other(450000);
		}
		own_spin(10000000);
	} else if (!strcmp(mode, "deep")) {
		for (int i = 0; i < 4000; i++)
			v[i] = (int)((i * 2654435761u) % 4000);
		qsort(v, 4000, sizeof(v[0]), slow_cmp);
		own_spin(4000000);
	} else if (!strcmp(mode, "own")) {
		own_hot(90000000);
		wk_spin(4000000);
	} else if (!strcmp(mode, "io")) {
		static char buf[64];
		FILE *f = fopen("/dev/null", "w");

		if (!f)
			return 1;
		for (int i = 0; i < 200000; i++)
			if (write(fileno(f), buf, sizeof(buf)) != sizeof(buf))
				return 1;
		fclose(f);
	} else {
		fprintf(stderr, "usage: sc_walk api|two|deep|own|io\n");
		return 2;
	}
	printf("done\n");
	return 0;
}
