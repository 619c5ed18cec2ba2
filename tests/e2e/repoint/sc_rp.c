/* sc_rp.c - libsc_rp.so for the repoint test: one cheap function. */
int rp_f(int x)
{
	return x * 3 + 1;
}
