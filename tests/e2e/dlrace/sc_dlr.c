/*
 * sc_dlr.c - the libraries of the "dlrace" e2e test (built four times,
 * libsc_dlr1.so .. libsc_dlr4.so, so that four threads load and unload
 * them at once). dlr_fn makes the first calls through its own imports
 * each time a fresh copy is loaded: the runtime binds each of them then.
 * The constructor calls into the helper library (sc_dlrh.c) under the
 * loader's lock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

long dlrh_next(long x);

static long from_ctor;

__attribute__((constructor)) static void dlr_init(void)
{
	from_ctor = dlrh_next(-1);      /* 1 */
}

int dlr_fn(int x)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%d", x);
	return atoi(buf) + (int)strlen(buf) + (getpid() > 0) + abs(-x) + (int)from_ctor;
}
