/*
 * sc_dlrh.c - the helper library of the "dlrace" e2e test, loaded with the
 * program (so its imports are hooked from the start). dlrh_next is called
 * by the constructor of each fresh libsc_dlrN.so, i.e. while dlopen holds
 * the loader's lock: its dlsym goes through the runtime's wrapper there,
 * and that wrapper must not wait for the runtime lock, which another
 * thread's scan holds while it waits for the loader's lock.
 */
#define _GNU_SOURCE
#include <dlfcn.h>

long dlrh_next(long x)
{
	long (*f)(long) = (long (*)(long))dlsym(RTLD_NEXT, "labs");
	return f ? f(x) : -1;
}
