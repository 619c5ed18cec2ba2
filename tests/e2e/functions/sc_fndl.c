/* sc_fndl.c - a library the program dlopens: fndl_run, found by dlsym,
 * calls the static fndl_step, patched when the library is loaded. */
static long n_step;

__attribute__((noinline)) static long fndl_step(long x)
{
	n_step++;
	return x ^ 0x55;
}

long fndl_run(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += fndl_step(i);
	return s;
}

long fndl_step_calls(void)
{
	return n_step;
}
