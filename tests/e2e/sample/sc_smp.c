/*
 * sc_smp.c - libsc_smp.so for the "sample" e2e test: an empty function and
 * one of a few hundred ns, whose timed calls under adaptive timing show the
 * sampling period each gets (checks/sample.py).
 */
static volatile unsigned sink;

/* nothing: adaptive's period grows to its maximum (127) */
unsigned smp_cheap(unsigned x)
{
	return x + 1;
}

/*
 * ~0.3-1 us (300 steps of a linear congruential chain, 4 cycles each: no
 * closed form for the compiler to fold it into): under the 2 us of a slow
 * call, well over what timing costs; the period stops at 3 or 7, where
 * period x mean reaches the runtime's budget (init.c sc_period_budget)
 */
void smp_mid(unsigned i)
{
	unsigned s = i;
	for (unsigned k = 0; k < 300; k++)
		s = s * 1103515245u + k;
	sink += s;
}
