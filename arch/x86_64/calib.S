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

	.section .note.GNU-stack,"",@progbits
