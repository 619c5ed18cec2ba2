/*
 * pidstart.h - when a process started, to tell it from a later one that
 * reuses its pid. Shared by the CLI (scaler record says its own in
 * SCALER_KCPU) and the runtime (which checks it): no allocation, no stdio.
 */
#ifndef SCALER_PIDSTART_H
#define SCALER_PIDSTART_H

#include <stddef.h>
#include <stdint.h>

/* Process pid's start time (field 22 of /proc/PID/stat: clock ticks since
 * boot), 0 if it cannot be read (no such process). */
uint64_t sc_pid_start(int pid);

/* Reads the stat file of a process or thread at path into buf (len
 * bytes): the end of its name, the last ')' (the fields follow, from
 * " state"), NULL if it cannot be read. */
const char *sc_stat_read(const char *path, char *buf, size_t len);

#endif
