/*
 * profdir.h - the profile directories scaler makes (profdir.c).
 */
#ifndef SCALER_PROFDIR_H
#define SCALER_PROFDIR_H

#include <stdbool.h>

/* A name the runtime or scaler gives its files in a profile directory
 * (format.h), or the marker. */
bool profdir_name(const char *name);

/* Makes dir, with its marker: a profile already there is kept as
 * dir.old (the one before it removed); anything that is not a profile is
 * left alone and refused. Made 1777 if shared (root's record: servers
 * that drop privileges add files), else 0700. 0, or 2 after a "scaler: "
 * line. */
int profdir_prepare(const char *dir, bool shared);

#endif
