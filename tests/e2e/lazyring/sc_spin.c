/*
 * sc_spin.c - libsc_spin.so for sc_lazyring: spin(n), n rounds of work on
 * the CPU and no call out, so that the time of one call is its own.
 */
unsigned long spin(unsigned long n)
{
	volatile unsigned long x = 0;
	for (unsigned long i = 0; i < n; i++)
		x += i;
	return x;
}
