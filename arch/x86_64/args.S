/*
 * args.S - sc_args_stub, what a timed call of an --args entry calls in
 * place of its API (intercept.S, .Largs): it hands the argument
 * registers to sc_args_enter (args_hot.c) and jumps on to the API, its
 * own time (from its first TSC read to its last) taken out of the call's.
 *
 * It runs where the API would, called from sc_return_trampoline: the
 * stack is as the caller left it with sc_return_point for the return
 * address, so the API it jumps to sees the call exactly as it would have.
 * Every argument register (and rax: AL is a variadic call's vector count)
 * is saved and put back; sc_args_enter uses the general registers only,
 * so vector and x87 state is never touched. The arithmetic flags carry
 * nothing into a call. r10 and r11 are free at a call boundary (the
 * interceptor already uses them).
 */
#include "asm.h"

	.text

ENTRY(sc_args_stub)
	.cfi_startproc
	SAVEQ	%rbp
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	pushq	%r9				/* -8(%rbp) */
	pushq	%r8
	pushq	%rcx
	pushq	%rdx
	pushq	%rsi
	pushq	%rdi				/* -48: regs[0] */
	pushq	%rax				/* -56 */
	rdtsc
	shlq	$32, %rdx
	orq	%rax, %rdx
	pushq	%rdx				/* -64: the TSC now */
	pushq	$0				/* -72: the frame, if ours */
	andq	$-16, %rsp
	leaq	-48(%rbp), %rdi			/* regs */
	leaq	8(%rbp), %rsi			/* slot of the return address */
	leaq	-72(%rbp), %rdx
	call	sc_args_enter
	movq	%rax, %r11			/* where the call goes */
	movq	-48(%rbp), %rdi
	movq	-40(%rbp), %rsi
	movq	-24(%rbp), %rcx
	movq	-16(%rbp), %r8
	movq	-8(%rbp), %r9
	/* the stub's time is not the call's: its start moves on by it (read
	 * once its work is done: rdtsc alone may run ahead of it) */
	lfence
	rdtsc
	shlq	$32, %rdx
	orq	%rdx, %rax
	subq	-64(%rbp), %rax
	movq	-72(%rbp), %rdx
	testq	%rdx, %rdx
	jz	1f
	addq	%rax, FR_TSC(%rdx)
1:	movq	-32(%rbp), %rdx
	movq	-56(%rbp), %rax
	movq	%rbp, %rsp
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	jmpq	*%r11
	.cfi_endproc
END(sc_args_stub)

	.section .note.GNU-stack,"",@progbits
