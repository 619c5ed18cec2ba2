/*
 * fnentry.S - sc_fn_miss: a patched function (functions.c) called from
 * another object than its own whose caller is not the one its code caches
 * comes here, with %r11 = the function's number and the stack as at the
 * function's entry. It saves everything a function may receive, asks
 *     void *sc_fn_caller_code(uint32_t fn, uintptr_t return_address)
 * where the call goes on (the shadow entry of that caller and function,
 * or the function's replay copy, uncounted), restores and jumps there.
 * The caller is in another object, so it expects nothing kept but what
 * the ABI keeps: %r10 and %r11 are free.
 */
#include "asm.h"

	.text

ENTRY(sc_fn_miss)
	.cfi_startproc
	pushq	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	pushq	%rax			/* -8(%rbp) */
	pushq	%rdi			/* -16 */
	pushq	%rsi			/* -24 */
	pushq	%rdx			/* -32 */
	pushq	%rcx			/* -40 */
	pushq	%r8			/* -48 */
	pushq	%r9			/* -56 */
	pushq	$0			/* -64: the answer */
	movl	sc_xsave_size(%rip), %eax
	subq	%rax, %rsp
	andq	$-64, %rsp
	movl	%r11d, %edi		/* fn */
	movq	8(%rbp), %rsi		/* the return address */
	call	sc_save_ext
	call	sc_fn_caller_code
	movq	%rax, -64(%rbp)
	call	sc_restore_ext
	leaq	-64(%rbp), %rsp
	popq	%r11			/* the answer */
	popq	%r9
	popq	%r8
	popq	%rcx
	popq	%rdx
	popq	%rsi
	popq	%rdi
	popq	%rax
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	jmpq	*%r11
	.cfi_endproc
END(sc_fn_miss)

	.section .note.GNU-stack,"",@progbits
