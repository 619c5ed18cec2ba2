/*
 * inject.c - the x86-64 register work of calling a function inside a
 * stopped thread of another process (inject.h; used by scaler record -p).
 *
 * A call is set up the way gdb makes an inferior call: the thread's
 * registers and extended state (the whole XSAVE area: the program may
 * have live vector registers wherever it was stopped) are saved; the
 * stack pointer goes below the red zone and the caller's data, 16-byte
 * aligned, with a return address of 0 pushed; the arguments go in rdi,
 * rsi, rdx, rcx, r8, r9, rax is 0 (no vector arguments of a variadic
 * call), the direction and trap flags are cleared as the ABI has them at
 * a call, and orig_rax is -1 so that a system call the thread was stopped
 * inside is not restarted under the call. The function's return jumps to
 * 0: the SIGSEGV that follows, at pc 0, is the end of the call, and is
 * never delivered. Putting the saved registers back (orig_rax and the
 * -ERESTART* result with them) makes the kernel restart the interrupted
 * system call when the thread resumes, as after any signal.
 */
#include <elf.h>
#include <errno.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>

#include "inject.h"

#define XSTATE_MAX 16384        /* the largest XSAVE area (AMX) is ~11 KB */
#define RED_ZONE 128

struct inj_regs {
	struct user_regs_struct gp;
	size_t xlen;            /* XSAVE bytes the kernel gave, 0: FXSAVE only */
	struct user_fpregs_struct fp;
	uint8_t x[XSTATE_MAX] __attribute__((aligned(64)));
};

struct inj_regs *inj_save(pid_t tid)
{
	struct inj_regs *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	struct iovec iov = {r->x, sizeof(r->x)};
	if (ptrace(PTRACE_GETREGS, tid, NULL, &r->gp) != 0) {
		free(r);
		return NULL;
	}
	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_X86_XSTATE, &iov) == 0)
		r->xlen = iov.iov_len;
	else if (ptrace(PTRACE_GETFPREGS, tid, NULL, &r->fp) != 0) {
		free(r);
		return NULL;
	}
	return r;
}

void inj_free(struct inj_regs *r)
{
	free(r);
}

int inj_restore(pid_t tid, const struct inj_regs *r)
{
	struct iovec iov = {(void *)r->x, r->xlen};
	if (r->xlen ? ptrace(PTRACE_SETREGSET, tid, (void *)NT_X86_XSTATE, &iov)
		    : ptrace(PTRACE_SETFPREGS, tid, NULL, &r->fp))
		return -1;
	return ptrace(PTRACE_SETREGS, tid, NULL, &r->gp) == 0 ? 0 : -1;
}

uint64_t inj_pc(const struct inj_regs *r)
{
	return r->gp.rip;
}

uint64_t inj_sp(const struct inj_regs *r)
{
	return r->gp.rsp;
}

uint64_t inj_tls(const struct inj_regs *r)
{
	return r->gp.fs_base;
}

uint64_t inj_stack_free_top(const struct inj_regs *r)
{
	return r->gp.rsp - RED_ZONE;
}

long inj_syscall(const struct inj_regs *r)
{
	return (long)r->gp.orig_rax;
}

bool inj_syscall_waits(const struct inj_regs *r)
{
	static const long waits[] = {
		SYS_read, SYS_readv, SYS_pread64, SYS_preadv, SYS_recvfrom, SYS_recvmsg,
		SYS_recvmmsg, SYS_accept, SYS_accept4, SYS_poll, SYS_ppoll, SYS_select,
		SYS_pselect6, SYS_epoll_wait, SYS_epoll_pwait,
#ifdef SYS_epoll_pwait2
		SYS_epoll_pwait2,
#endif
		SYS_nanosleep, SYS_clock_nanosleep, SYS_pause, SYS_rt_sigsuspend,
		SYS_rt_sigtimedwait, SYS_wait4, SYS_waitid, SYS_msgrcv, SYS_io_getevents,
	};
	long nr = inj_syscall(r);
	/* glibc waits for a condition, a semaphore or a thread's end with
	 * FUTEX_WAIT_BITSET, for a lock (lll_lock: malloc's, the loader's)
	 * with FUTEX_WAIT */
	if (nr == SYS_futex)
		return (r->gp.rsi & FUTEX_CMD_MASK) == FUTEX_WAIT_BITSET;
	for (size_t i = 0; i < sizeof(waits) / sizeof(waits[0]); i++)
		if (nr == waits[i])
			return true;
	return false;
}

int inj_call(pid_t tid, const struct inj_regs *r, uint64_t fn, const uint64_t *args, int nargs,
	     uint64_t stack_top, uint64_t *ret, int *sigs, int *nsigs)
{
	struct user_regs_struct g = r->gp;
	unsigned long long *argr[6] = {&g.rdi, &g.rsi, &g.rdx, &g.rcx, &g.r8, &g.r9};
	int max = *nsigs;
	*nsigs = 0;
	if (nargs > 6) {
		errno = EINVAL;
		return -1;
	}
	for (int i = 0; i < nargs; i++)
		*argr[i] = args[i];
	g.rsp = (stack_top & ~15ull) - 8;       /* as after a call: rsp+8 aligned */
	g.rip = fn;
	g.rax = 0;
	g.orig_rax = ~0ull;
	g.eflags &= ~0x500ull;                  /* DF, TF */
	if (ptrace(PTRACE_POKEDATA, tid, (void *)g.rsp, (void *)0) != 0 ||
	    ptrace(PTRACE_SETREGS, tid, NULL, &g) != 0 || ptrace(PTRACE_CONT, tid, NULL, NULL) != 0)
		return -1;
	for (;;) {
		int st;
		if (waitpid(tid, &st, __WALL) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			errno = ESRCH;
			return -1;
		}
		int sig = WSTOPSIG(st), deliver = 0;
		struct user_regs_struct now;
		siginfo_t si;
		if (st >> 16 == 0 && ptrace(PTRACE_GETREGS, tid, NULL, &now) == 0) {
			if (sig == SIGSEGV && now.rip == 0) {
				*ret = now.rax;
				return 0;
			}
			/* a fault of the call itself (not a signal someone sent) */
			if ((sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE) &&
			    ptrace(PTRACE_GETSIGINFO, tid, NULL, &si) == 0 && si.si_code > 0) {
				*ret = now.rip;
				errno = EFAULT;
				return -1;
			}
			if (*nsigs < max)
				sigs[(*nsigs)++] = sig;
			else
				deliver = sig;  /* too many to hold: as it comes */
		}
		/* an event stop (an interrupt, a group stop): go on */
		if (ptrace(PTRACE_CONT, tid, NULL, (void *)(long)deliver) != 0)
			return -1;
	}
}
