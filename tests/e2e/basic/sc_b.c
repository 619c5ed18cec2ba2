/*
 * sc_b.c - libsc_b.so for the "basic" e2e test: called both by libsc_a.so
 * (library-to-library) and directly by the app, with different counts.
 */
int b_mul(int x, int y)
{
	return x * y;
}
