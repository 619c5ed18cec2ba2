/*
 * procdir.h - the profile directory of a running process (procdir.c).
 */
#ifndef SCALER_PROCDIR_H
#define SCALER_PROCDIR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* "scaler: CMD: process 12 belongs to user bob (uid 1000): ..." */
void proc_not_yours(const char *cmd, uint32_t pid, uid_t uid);

/* The directory of a counter file process pid maps into dir, and the
 * image generation in its name (format.h) into *gen (if not NULL): the
 * kernel's word for which image is running. 0, or 1 when it maps none. */
int proc_maps_dir(uint32_t pid, char *dir, size_t n, uint32_t *gen);

/* The process arg names (scaler record: its first child) and its profile
 * directory, for command cmd (in messages). Refused unless the caller is
 * the process's owner or root. 0, or -1 after the message. */
int proc_resolve(const char *cmd, const char *arg, char *dir, size_t n, uint32_t *pid);

#endif
