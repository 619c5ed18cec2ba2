/*
 * tally.c - a short function of independent work called from a loop with
 * work of its own, for checks/fnperf.py (fnperf-tally-*): feed calls
 * tally 1000 times per call, each after a chain of 4 multiplies (~4 ns);
 * tally counts its argument in a table and a buffer and answers whether
 * the buffer is due (~2 ns of loads and stores that nothing waits for but
 * a predicted branch), as gzip's ct_tally does for deflate. Both lengths
 * are known on the program's own clock, measured in the same run on
 * copies of the two that no profiler patches (feed_plain calling
 * tally_plain, and the same loop without the call): printed on stderr as
 * "own tally T feed F ns per call of tally". Prints a checksum, the same
 * with or without a profiler.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "spin.h"

#define ALWAYS __attribute__((always_inline)) inline

struct tables {
	unsigned freq[256];
	unsigned char buf[4096];
	unsigned n;
};
/* the plain copies have tables of their own: with the same code, the
 * compiler would fold each into its profiled twin (-fipa-icf) */
static struct tables tab, tab_plain;

static ALWAYS unsigned tally_body(struct tables *t, unsigned x)
{
	t->freq[x & 255]++;
	t->buf[t->n++ & 4095] = (unsigned char)x;
	return (t->n & 63) == 0;
}

NOINLINE static unsigned tally(unsigned x)
{
	return tally_body(&tab, x);
}

NOINLINE static unsigned tally_plain(unsigned x)
{
	return tally_body(&tab_plain, x);
}

/* feed's loop, around a call of t (inlined with t known: a direct call) */
static ALWAYS unsigned feed_body(unsigned (*t)(unsigned), unsigned x)
{
	for (int i = 0; i < 1000; i++) {
		x = spin(4, x);
		if (t(x))
			x ^= 1;
	}
	return x;
}

NOINLINE static unsigned feed(unsigned x)
{
	return feed_body(tally, x);
}

NOINLINE static unsigned feed_plain(unsigned x)
{
	return feed_body(tally_plain, x);
}

/* feed's own work alone: the loop without the call */
NOINLINE static unsigned feed_alone(unsigned x)
{
	for (int i = 0; i < 1000; i++) {
		x = spin(4, x);
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

#define ROUNDS 50

/* ns per iteration of n / ROUNDS calls of fn, kept if the fastest yet */
static void round_of(unsigned (*fn)(unsigned), int n, unsigned *x, double *best)
{
	double t0 = now_ns();
	for (int i = 0; i < n / ROUNDS; i++)
		*x = fn(*x);
	double t = (now_ns() - t0) / (n / ROUNDS * 1000.0);
	if (t < *best)
		*best = t;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2000;
	unsigned x = 1;
	double whole = 1e30, alone = 1e30;

	for (int i = 0; i < n; i++)
		x = feed(x);
	/* the fastest of many short rounds, the two loops taking turns: on a
	 * shared machine the speed moves (a busy SMT sibling halves it), and
	 * both must be seen at the same one */
	for (int r = 0; r < ROUNDS; r++) {
		round_of(feed_plain, n, &x, &whole);
		round_of(feed_alone, n, &x, &alone);
	}
	fprintf(stderr, "own tally %.3f feed %.3f ns per call of tally\n", whole - alone, alone);
	for (int i = 0; i < 256; i++)
		x += tab.freq[i];
	printf("%u\n", x);
	return 0;
}
