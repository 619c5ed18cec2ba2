/*
 * sc_ctld.c - libsc_ctld.so for the "ctl" e2e test: a function the
 * program calls only through the pointer dlsym gives it.
 */
int d_step(int x)
{
	return x * 5 + 1;
}
