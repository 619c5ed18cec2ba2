/*
 * main.c - the "sample" e2e test: 1,000,000 calls of an empty library
 * function and 100,000 of one of a few hundred ns, interleaved. Counts are
 * exact in every mode (expect); checks/sample.py holds the number of
 * calls each mode timed against the period adaptive timing should pick.
 */
#include <stdio.h>

unsigned smp_cheap(unsigned x);
void smp_mid(unsigned i);

int main(void)
{
	unsigned s = 0;
	for (unsigned i = 0; i < 1000000; i++) {
		s = smp_cheap(s);
		if (i % 10 == 0)
			smp_mid(i);
	}
	printf("%u\n", s);
	return s == 1000000 ? 0 : 1;
}
