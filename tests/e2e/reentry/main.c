/*
 * main.c - the "reentry" e2e program: a component re-entered through a
 * pointer while one of its own calls into the same library is in flight.
 * qsort (libc) calls the comparator (here, through a function pointer,
 * which nothing intercepts), and the comparator calls strcmp (libc): every
 * strcmp runs inside the qsort on the same edge sc_reentry -> libc.so.6,
 * and the edge's time must count it once. The strings are made without
 * library calls but memset, so nearly all of the thread's time is in the
 * eight qsort calls.
 * Prints how many comparisons it made (stderr: "compares N") for the
 * check to hold strcmp's exact count against, and the ends of the first
 * and last strings (stdout).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 20000
#define LEN 512
#define PREFIX 496
#define ROUNDS 8

static char text[N][LEN];
static const char *ptr[N];
static unsigned long compares;
static volatile size_t prefix = PREFIX;        /* memset is called, not inlined */

static int by_text(const void *a, const void *b)
{
	compares++;
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int main(void)
{
	unsigned long x = 12345;

	/* a long common prefix, so that the strcmp calls are most of the
	 * comparator's time, and the library's calls all of the thread's
	 * but for the shuffles */
	for (int i = 0; i < N; i++) {
		memset(text[i], 'p', prefix);
		for (int k = PREFIX; k < LEN - 1; k++)
			text[i][k] = (char)('a' + (i >> (k - PREFIX)) % 26);
		text[i][LEN - 1] = 0;
		ptr[i] = text[i];
	}
	for (int r = 0; r < ROUNDS; r++) {
		for (int i = N - 1; i > 0; i--) {       /* shuffled again */
			x = x * 6364136223846793005ul + 1442695040888963407ul;
			int j = (int)((x >> 33) % (unsigned long)(i + 1));
			const char *t = ptr[i];
			ptr[i] = ptr[j];
			ptr[j] = t;
		}
		qsort(ptr, N, sizeof(ptr[0]), by_text);
	}
	fprintf(stderr, "compares %lu\n", compares);
	printf("%s\n%s\n", ptr[0] + PREFIX, ptr[N - 1] + PREFIX);
	return 0;
}
