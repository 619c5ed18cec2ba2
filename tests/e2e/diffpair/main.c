/*
 * main.c - sc_diffpair MODE: the same work in a normal way and in slow
 * ways, for the scaler diff checks (checks/diff.py). Every mode makes the
 * same dl_lookup, dl_step and dl_wait calls and the same costly dl_heavy
 * calls; the slow modes change one thing:
 *   normal  hashed lookups, short steps, poll(0)
 *   calls   scanned lookups: ~32 strcmp per lookup instead of 1
 *   longer  each dl_step does 4 times the work
 *   block   one dl_wait in 5 polls with a 1 ms timeout instead of 0
 *   appear  a dl_check call per 200 lookups, that normal never makes
 * dl_heavy costs more than any of these changes, in every mode.
 * Prints a checksum that is the same in every mode.
 */
#include <stdio.h>
#include <string.h>

void dl_init(void);
int dl_lookup(int i, int scan);
unsigned long dl_heavy(long n);
unsigned long dl_step(long n);
unsigned long dl_check(long n);
int dl_wait(int ms);

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "normal";
	int scan = !strcmp(mode, "calls"), longer = !strcmp(mode, "longer");
	int block = !strcmp(mode, "block"), appear = !strcmp(mode, "appear");
	long sum = 0;

	if (!scan && !longer && !block && !appear && strcmp(mode, "normal")) {
		fprintf(stderr, "usage: sc_diffpair normal|calls|longer|block|appear\n");
		return 2;
	}
	dl_init();
	for (int i = 0; i < 40000; i++) {
		sum += dl_lookup(i, scan);
		if (i % 4 == 0)
			dl_step(longer ? 2000 : 500);
		if (i % 400 == 0) {
			dl_heavy(1000000);
			dl_wait(block && i % 2000 == 0 ? 1 : 0);
		}
		if (appear && i % 200 == 0)
			dl_check(100000);
	}
	printf("%ld\n", sum);
	return 0;
}
