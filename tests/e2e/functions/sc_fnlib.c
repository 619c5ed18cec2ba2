/* sc_fnlib.c - a library whose exported fnl_add the program calls through
 * its PLT (counted once, by the import, when its entry is patched too)
 * and whose static fnl_inner only fnl_add calls. */
static long n_inner;

__attribute__((noinline)) static long fnl_inner(long x)
{
	n_inner++;
	return x * 5 + 1;
}

long fnl_add(long a, long b)
{
	return fnl_inner(a) + b;
}

long fnl_inner_calls(void)
{
	return n_inner;
}
