/*
 * demangle.h - C++ symbols as people read them, for the model's call names
 * (model.c), so that every format shows the same name.
 */
#ifndef SCALER_DEMANGLE_H
#define SCALER_DEMANGLE_H

#include <stddef.h>

/* The demangled name of sym in buf (truncated to n), or sym itself when it
 * is not a C++ name or libstdc++'s demangler is not at hand. */
const char *sc_demangle(const char *sym, char *buf, size_t n);

#endif
