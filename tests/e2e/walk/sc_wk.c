/*
 * sc_wk.c - libsc_wk.so, the library of sc_walk (main.c): two exported
 * functions that each spin for the iterations asked, so that the test
 * decides how much of the run each one holds.
 */
static volatile unsigned long sink;

static unsigned long spin(long n)
{
	unsigned long x = sink;

	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

void wk_spin(long n)
{
	sink = spin(n);
}

void wk_other(long n)
{
	sink = spin(n);
}
