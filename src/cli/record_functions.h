/*
 * record_functions.h - `scaler record --functions`: checking the patterns
 * before the run, and the line after it saying what was patched.
 */
#ifndef SCALER_RECORD_FUNCTIONS_H
#define SCALER_RECORD_FUNCTIONS_H

#include <stddef.h>

/* 0 if spec is PATTERN[,PATTERN...] with PATTERN = [COMPONENT:]GLOB, each
 * part non-empty; else -1 with a one-line message in err. */
int record_functions_check(const char *spec, char *err, size_t errlen);

/* Prints "N functions patched, M skipped" on stderr from the profile in
 * dir (and nothing if it cannot be read). */
void record_functions_summary(const char *dir);

#endif
