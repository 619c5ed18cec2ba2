/*
 * slowpath.S - the interceptor's way into C: sc_slowpath saves everything
 * an API may receive and calls sc_slow (slow.c); sc_save_ext and
 * sc_restore_ext save and restore the extended state around any call of
 * C from the hot path.
 */
#include "asm.h"

	.text

/*
 * sc_slowpath: r11 = entry index (import number for SLOW_BIND), r10 =
 * reason, stack as at API entry.
 * Saves everything an API may receive, calls
 *     long sc_slow(uint64_t idx, int reason, void **entry_rsp)
 * restores, and either re-runs the interceptor, jumps to the target, or
 * jumps to the address sc_slow answered.
 */
ENTRY(sc_slowpath)
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
	pushq	%r11			/* -64 */
	pushq	$0			/* -72: sc_slow's answer */
	movl	sc_xsave_size(%rip), %eax
	subq	%rax, %rsp
	andq	$-64, %rsp
	movq	%r10, %rsi		/* reason */
	movq	%r11, %rdi		/* idx */
	call	sc_save_ext
	leaq	8(%rbp), %rdx		/* rsp at API entry */
	call	sc_slow
	movq	%rax, -72(%rbp)
	call	sc_restore_ext
	leaq	-72(%rbp), %rsp
	popq	%r10			/* answer */
	popq	%r11
	popq	%r9
	popq	%r8
	popq	%rcx
	popq	%rdx
	popq	%rsi
	popq	%rdi
	popq	%rax
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	cmpq	$SLOW_UNTIMED, %r10
	ja	1f
	cmpl	$SLOW_REDISPATCH, %r10d
	je	sc_shadow_common
	shlq	$EN_SHIFT, %r11
	addq	sc_entry_table(%rip), %r11
	jmpq	*EN_TARGET(%r11)
1:	jmpq	*%r10				/* an address */
	.cfi_endproc
END(sc_slowpath)

/*
 * sc_save_ext / sc_restore_ext: xsave/xrstor (or fxsave/fxrstor on CPUs
 * without xsave) of the extended state but the components of XS_SKIP into
 * the 64-byte aligned area at the caller's %rsp+8 (sc_xsave_size bytes). They preserve rdi, rsi and rdx, which carry the
 * arguments of the C call that follows. The XSAVE header must be zero
 * before xsave, or a later xrstor faults on stale reserved bits.
 */
ENTRY(sc_save_ext)
	.cfi_startproc
	pushq	%rdx
	.cfi_adjust_cfa_offset 8
	leaq	16(%rsp), %r10		/* the area: caller's rsp + 8 - 8 + 8 */
	cmpl	$0, sc_have_xsave(%rip)
	je	1f
	xorl	%eax, %eax
	movq	%rax, 512(%r10)
	movq	%rax, 520(%r10)
	movq	%rax, 528(%r10)
	movq	%rax, 536(%r10)
	movq	%rax, 544(%r10)
	movq	%rax, 552(%r10)
	movq	%rax, 560(%r10)
	movq	%rax, 568(%r10)
	movl	$~XS_SKIP, %eax
	movl	$-1, %edx
	xsave	(%r10)
	popq	%rdx
	.cfi_adjust_cfa_offset -8
	ret
	.cfi_adjust_cfa_offset 8
1:	fxsave	(%r10)
	popq	%rdx
	.cfi_adjust_cfa_offset -8
	ret
	.cfi_endproc
END(sc_save_ext)

ENTRY(sc_restore_ext)
	.cfi_startproc
	leaq	8(%rsp), %r10
	cmpl	$0, sc_have_xsave(%rip)
	je	1f
	movl	$~XS_SKIP, %eax
	movl	$-1, %edx
	xrstor	(%r10)
	ret
1:	fxrstor	(%r10)
	ret
	.cfi_endproc
END(sc_restore_ext)

	.section .note.GNU-stack,"",@progbits
