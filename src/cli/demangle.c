/*
 * demangle.c - C++ symbols as people read them (demangle.h).
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"

/*
 * C++ names for people: every format shows `std::_Rb_tree_increment(...)`
 * (the JSON and CSV also keep the linked symbol). The demangler is
 * libstdc++'s own, looked up when first needed, so scaler has no build
 * dependency on C++; without it names stay mangled.
 */
typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

const char *sc_demangle(const char *sym, char *buf, size_t n)
{
	static demangle_fn fn;
	static int tried;
	if (strncmp(sym, "_Z", 2) != 0)
		return sym;
	if (!tried) {
		tried = 1;
		void *h = dlopen("libstdc++.so.6", RTLD_LAZY);
		if (h)
			fn = (demangle_fn)(uintptr_t)dlsym(h, "__cxa_demangle");
	}
	int st = -1;
	char *d = fn ? fn(sym, NULL, NULL, &st) : NULL;
	if (!d || st != 0) {
		free(d);
		return sym;
	}
	snprintf(buf, n, "%s", d);
	free(d);
	return buf;
}
