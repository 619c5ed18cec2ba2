/*
 * sc_ctlx.c - the "ctl" e2e test's stand-in for a Python extension module
 * (built as sc_ctlx.cpython-311-x86_64-linux-gnu.so, a name the runtime
 * patches the functions of by default): the program calls ext_step
 * through the pointer ext_table hands out, as an interpreter calls an
 * extension's functions through its method tables.
 */
/* no state: the program's threads call it at once */
int ext_step(int x)
{
	return (int)((unsigned)x * 40503u >> 24);
}

int (*ext_table(void))(int)
{
	return ext_step;
}
