/*
 * record.h - what `scaler record` (cmd_record.c) shares with its attaching
 * form, `scaler record -p PID` (record_attach.c).
 */
#ifndef SCALER_RECORD_H
#define SCALER_RECORD_H

#include <stddef.h>
#include <sys/types.h>

/* The runtime's absolute path (SCALER_LIB, else ../lib/libscaler.so from
 * the scaler binary): 0, or -1 if it is not there. */
int record_find_runtime(char *out, size_t n);
/* Run as root, once the profiled processes are done with dir: it and its
 * files (root's, the users the run declared it became, and also's) become
 * root's alone. */
void record_finish_dir(const char *dir, uid_t also);

/* scaler record -p: attaches to process pid, profiles it into dir (made
 * here) for duration_ms (0: until SIGINT or SIGTERM, or its end) and
 * detaches. Returns the exit status: 0, or 2 with one line said. */
int record_attach(pid_t pid, const char *dir, const char *timing, unsigned duration_ms,
		  const char *functions);

#endif
