/*
 * record_fnsites.h - `scaler record -p --functions`: writing the jumps of
 * the function entries the runtime prepared in the attached process, and
 * putting their bytes back at the detach (record_fnsites.c), while the
 * caller (record_attach.c) holds every thread of it stopped.
 */
#ifndef SCALER_RECORD_FNSITES_H
#define SCALER_RECORD_FNSITES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What one stopped thread may come back to: its next instruction (and
 * the one before, when a system call it is in will be restarted), and
 * the stack it runs on, in use [stack_lo, stack_hi), and its own stack
 * [home_lo, home_hi) when it runs on another (a signal stack: the
 * contexts it interrupted lie on its own), where a signal handler's
 * interrupted context lies. */
struct fnsite_thread {
	uint64_t pc[2];
	uint64_t stack_lo, stack_hi;
	uint64_t home_lo, home_hi;
};

/* n bytes of process pid's memory at at, read or written: 0 or -1 */
int proc_mem_read(pid_t pid, uint64_t at, void *p, size_t n);
int proc_mem_write(pid_t pid, uint64_t at, const void *p, size_t n);

struct fnsite_counts {
	size_t done;            /* written (or put back) */
	size_t busy;            /* refused: a thread in their bytes */
	size_t other;           /* refused: bytes changed, a write failed */
	uint64_t stopped_us;    /* how long the threads were held stopped */
};

/*
 * In process pid, whose table of entries is at address table (fnsite.h)
 * and whose threads th[0..n) are all stopped: writes the jump of every
 * PENDING entry no thread is inside (restore false), or puts back the
 * bytes of every PATCHED one that still holds its jump (restore true);
 * each entry's state says what became of it. 0, or -1 with errno if the
 * table cannot be read or written.
 */
int fnsites_apply(pid_t pid, uint64_t table, const struct fnsite_thread *th, size_t n,
		  int restore, struct fnsite_counts *c);

#endif
