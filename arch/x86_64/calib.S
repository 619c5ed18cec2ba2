/*
 * calib.S - the two functions calib.c times through a shadow entry at
 * start-up to measure what the interceptor adds to a timed call.
 */
#include "asm.h"

	.text

/* An empty function, called through a shadow entry at start-up to measure
 * what the interceptor itself adds to a timed call. */
ENTRY(sc_calib_nop)
	.cfi_startproc
	ret
	.cfi_endproc
END(sc_calib_nop)

/* A function of known length, a chain of 16 dependent multiplies (~48
 * cycles), for the same calibration: see calib.c. */
ENTRY(sc_calib_work)
	.cfi_startproc
	movq	%rdi, %rax
	.rept	16
	imulq	%rax, %rax
	.endr
	ret
	.cfi_endproc
END(sc_calib_work)

/* unsigned long sc_calib_own(x): a call of entry sc_calib_own_idx's (the
 * thread's own) function (sc_calib_nop or sc_calib_work), timed as a
 * patched entry's own code hands a call from its own object to sc_fn_own
 * (fnpatch.h): the caller's r10 and r11 below the stack pointer, r10 =
 * the thread's records, r11 = idx << RC_SHIFT, CF = 0 (time it). */
ENTRY(sc_calib_own)
	.cfi_startproc
	movq	%r10, -8(%rsp)
	movq	%r11, -16(%rsp)
	movq	sc_tls_recs@gottpoff(%rip), %r10
	movq	%fs:(%r10), %r10
	movq	sc_calib_own_idx@gottpoff(%rip), %r11
	movq	%fs:(%r11), %r11
	shlq	$RC_SHIFT, %r11
	clc
	jmp	sc_fn_own
	.cfi_endproc
END(sc_calib_own)

	.section .note.GNU-stack,"",@progbits
