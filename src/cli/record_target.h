/*
 * record_target.h - what `scaler record` can tell of a command before
 * running it: whether the dynamic loader will load the runtime into it.
 */
#ifndef SCALER_RECORD_TARGET_H
#define SCALER_RECORD_TARGET_H

#include <stddef.h>

/* 1 if the runtime cannot be preloaded into the program at path, with
 * why (a short phrase: "statically linked", ...) in why; 0 if it can or
 * scaler cannot tell (a script, an unreadable file). */
int record_target_unprofiled(const char *path, char *why, size_t n);

#endif
