/*
 * inject.h - calling a function inside a thread of another process that
 * the caller has stopped with ptrace (scaler record -p,
 * src/cli/record_attach.c): the register work, per architecture. The
 * caller owns the tracing (seize, interrupt, detach); these functions
 * only read, set and restore a stopped thread's registers and run one
 * call in it.
 */
#ifndef SCALER_INJECT_H
#define SCALER_INJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A stopped thread's whole register state, as it was stopped. */
struct inj_regs;

/* The registers of stopped thread tid (NULL with errno on failure);
 * inj_free gives them back. */
struct inj_regs *inj_save(pid_t tid);
void inj_free(struct inj_regs *r);
/* Puts them back as they were: 0, or -1 with errno. */
int inj_restore(pid_t tid, const struct inj_regs *r);

uint64_t inj_pc(const struct inj_regs *r);
/* The stack pointer, and the thread pointer (x86-64: fs_base; with
 * glibc, a thread's own stack mapping holds it, but the main thread's) */
uint64_t inj_sp(const struct inj_regs *r);
uint64_t inj_tls(const struct inj_regs *r);
/* The lowest address of the stack the thread may have in use (its stack
 * pointer less the red zone): a call's data goes below it. */
uint64_t inj_stack_free_top(const struct inj_regs *r);
/* The system call the thread was stopped inside (to be restarted when it
 * resumes), or -1. */
long inj_syscall(const struct inj_regs *r);
/* Whether the system call the thread is blocked in, made by the C
 * library, leaves it holding none of the C library's or the loader's
 * locks: a wait for I/O, time, a child or a condition (poll, epoll_wait,
 * nanosleep, read, accept, a futex wait of a condition variable,
 * semaphore or join), which neither malloc nor the loader makes while it
 * holds one. A futex wait for a lock (malloc's, the loader's) is not. */
bool inj_syscall_waits(const struct inj_regs *r);

/*
 * Calls fn(args[0..nargs-1]) (nargs <= 6, integer or pointer arguments)
 * in stopped thread tid, whose saved registers are r, on a stack that
 * starts below stack_top, and waits for it to return; *ret is its return
 * value. The thread is left stopped, its registers the call's: restore
 * them with inj_restore. Signals that arrive for the thread meanwhile are
 * held, not delivered inside the call, and put in sigs (up to *nsigs,
 * which says how many on return) for the caller to deliver once the
 * registers are back. Returns 0; -1 with errno (ESRCH: the process is
 * gone; EFAULT: the call faulted, *ret its address).
 */
int inj_call(pid_t tid, const struct inj_regs *r, uint64_t fn, const uint64_t *args, int nargs,
	     uint64_t stack_top, uint64_t *ret, int *sigs, int *nsigs);

#endif
