/*
 * sc_thr.c - libsc_thr.so for the "threads" e2e test: a function each of
 * four threads calls 250000 times.
 */
long t_work(long x, int k)
{
	return x ^ (x >> 3) ^ k;
}
