/*
 * args.S - sc_args_stub, what a timed call of an --args entry calls in
 * place of its API (intercept.S, .Largs): it hands the argument
 * registers to sc_args_enter (args_hot.c) and jumps on to the API.
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
	andq	$-16, %rsp
	rdtsc
	shlq	$32, %rdx
	orq	%rax, %rdx
	movq	%rdx, %rsi			/* t0 */
	leaq	-48(%rbp), %rdi			/* regs */
	leaq	8(%rbp), %rdx			/* slot of the return address */
	call	sc_args_enter
	movq	%rax, %r11			/* where the call goes */
	movq	-56(%rbp), %rax
	movq	-48(%rbp), %rdi
	movq	-40(%rbp), %rsi
	movq	-32(%rbp), %rdx
	movq	-24(%rbp), %rcx
	movq	-16(%rbp), %r8
	movq	-8(%rbp), %r9
	movq	%rbp, %rsp
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	jmpq	*%r11
	.cfi_endproc
END(sc_args_stub)

	.section .note.GNU-stack,"",@progbits
