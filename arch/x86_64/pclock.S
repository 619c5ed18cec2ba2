/*
 * pclock.S - sc_pclock_step, the one writer of the parallel clock (asm.h
 * says how it is kept; pclock.c sets it up).
 */
#include "asm.h"

	.text

/*
 *   uint64_t sc_pclock_step(int64_t delta, uint64_t now)
 * Adds delta to the running threads k of the parallel clock at TSC `now`
 * and returns P(now). Preserves every register but rax (callable from the
 * paths above as well as from C), no stack beyond its own pushes.
 */
ENTRY(sc_pclock_step)
	.cfi_startproc
	pushq	%rbx
	.cfi_adjust_cfa_offset 8
	pushq	%rcx
	.cfi_adjust_cfa_offset 8
	pushq	%rdx
	.cfi_adjust_cfa_offset 8
	pushq	%r8
	.cfi_adjust_cfa_offset 8
	pushq	%r9
	.cfi_adjust_cfa_offset 8
	pushq	%r10
	.cfi_adjust_cfa_offset 8
1:	movq	sc_pclock+PC_P(%rip), %r8
	movq	sc_pclock+PC_TK(%rip), %r9
	movq	%rsi, %rax
	subq	sc_pclock_base(%rip), %rax
	shrq	$PC_TSHIFT, %rax
	shlq	$16, %rax
	movq	%rax, %rcx			/* new tk, k still to add */
	movzwl	%r9w, %edx			/* k */
	movl	%edx, %r10d
	subq	%r9, %rax
	addq	%rdx, %rax			/* (now_t - t) << 16 */
	jns	2f
	xorl	%eax, %eax			/* now is before t: keep t */
	movq	%r9, %rcx
	andq	$-65536, %rcx
2:	PSCALE	%rbx
	addq	%r8, %rax
	movq	%rax, %rbx			/* new P */
	addl	%edi, %r10d
	movzwl	%r10w, %r10d
	orq	%r10, %rcx			/* new tk */
	movq	%r8, %rax
	movq	%r9, %rdx
	lock cmpxchg16b sc_pclock(%rip)
	jne	1b
	movq	%rbx, %rax
	popq	%r10
	.cfi_adjust_cfa_offset -8
	popq	%r9
	.cfi_adjust_cfa_offset -8
	popq	%r8
	.cfi_adjust_cfa_offset -8
	popq	%rdx
	.cfi_adjust_cfa_offset -8
	popq	%rcx
	.cfi_adjust_cfa_offset -8
	popq	%rbx
	.cfi_adjust_cfa_offset -8
	ret
	.cfi_endproc
END(sc_pclock_step)

	.section .note.GNU-stack,"",@progbits
