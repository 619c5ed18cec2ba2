/*
 * sc_wrap.c - libsc_wrap.so for the "interpose" e2e test: interposes
 * strlen, forwards to dlsym(RTLD_NEXT) and counts its calls. Under scaler
 * RTLD_NEXT must still mean "after this library" and the runtime must not
 * add calls of its own (the count is printed).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
static int calls;
size_t strlen(const char *s) {
  static size_t (*next)(const char *);
  if (!next) next = (size_t (*)(const char *))dlsym(RTLD_NEXT, "strlen");
  calls++;
  return next(s);
}
int wrapper_calls(void) { return calls; }
