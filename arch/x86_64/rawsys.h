/*
 * rawsys.h - a system call made with the syscall instruction, not through
 * libc (src/runtime/sys.c says which and why). x86-64 Linux: the number
 * in rax, arguments in rdi, rsi, rdx, r10, r8, r9; the kernel returns
 * -errno (-4095..-1) on failure and clobbers rcx and r11.
 */
#ifndef SCALER_RAWSYS_H
#define SCALER_RAWSYS_H

static inline long sc_arch_syscall(long n, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long r;
	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "0"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return r;
}

/* r as libc returns it: -1 and errno on failure (src/runtime/sys.c) */
long sc_sys_ret(long r);

#endif
