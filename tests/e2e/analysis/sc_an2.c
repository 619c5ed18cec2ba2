/*
 * sc_an2.c - libsc_an2.so for the "analysis" e2e test: the inner half of a
 * nested call (libsc_an.so's an_outer calls an_inner, an_many an_tick).
 */
#include "spin.h"

void an_inner(long us)
{
	spin(us);
}

void an_tick(void)
{
	__asm__ volatile("");
}
