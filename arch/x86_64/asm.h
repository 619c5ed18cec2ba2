/*
 * asm.h - what the runtime's assembly files share: the ENTRY/END wrappers
 * of a function, pushes and pops with their unwind notes, and the macros
 * that read the parallel clock. Included by the .S files only. Layouts
 * are in offsets.h.
 */
#ifndef SCALER_ASM_H
#define SCALER_ASM_H

#include "offsets.h"

#define ENTRY(name) \
	.globl name; .hidden name; .type name,@function; .p2align 4; name:
#define END(name) .size name, .-name

/* a push or pop with its unwind note (gas macro names ignore case, so
 * they cannot be called PUSHQ/POPQ) */
.macro SAVEQ r
	pushq	\r
	.cfi_adjust_cfa_offset 8
.endm
.macro RESTQ r
	popq	\r
	.cfi_adjust_cfa_offset -8
.endm

/*
 * PSCALE: rax = (now_t - t) << 16 (see the parallel clock below), edx = k;
 * out rax = the clock's advance over that time, elapsed ticks *
 * sc_recip[min(k, sc_pclock_kmax)] / 2^16. Clobbers rdx and the register
 * named.
 */
.macro PSCALE tmp
	shrq	$(16 - PC_TSHIFT), %rax		/* elapsed ticks */
	cmpl	sc_pclock_kmax(%rip), %edx
	jbe	91f
	movl	sc_pclock_kmax(%rip), %edx
91:	leaq	sc_recip(%rip), \tmp
	movl	(\tmp,%rdx,4), %edx
	mulq	%rdx
	shrdq	$16, %rdx, %rax
.endm

/*
 * The parallel clock (format.h, struct sc_rec.wpticks): sc_pclock holds
 * {P, tk}, P in ticks at the instant t, tk = t << 16 | k with t in units
 * of 2^PC_TSHIFT ticks since sc_pclock_base (48 bits: 17 days at 3 GHz,
 * and differences are taken modulo 2^48) and k the threads running. Then
 *     P(now) = P + (now - t) * sc_recip[k] / 2^16,  sc_recip[k] = 2^16 / k
 * (sc_recip[0] = 0: with nobody running the clock stands still), k taken
 * as at most sc_pclock_kmax, the CPUs the threads can be on (pclock.c).
 *
 * Writers (k changes: a thread starts or ends, enters or leaves a Wait
 * API) replace {P, tk} whole with cmpxchg16b. Readers load tk, then P,
 * then tk again and retry if it changed: x86 keeps loads in order and the
 * pair is only ever stored whole, so an unchanged tk means P belongs to
 * it. A `now` older than t (another CPU moved the clock on after our
 * rdtsc) counts as no time at all.
 *
 * PREAD tmp: in %rsi = now (TSC); out %rax = P(now); clobbers %rdx,
 * %rdi, the register named and the flags.
 */
.macro PREAD tmp
1:	movq	sc_pclock+PC_TK(%rip), %rdi
	movq	%rsi, %rax
	subq	sc_pclock_base(%rip), %rax
	shrq	$PC_TSHIFT, %rax
	shlq	$16, %rax			/* now_t << 16 */
	movzwl	%di, %edx			/* k */
	subq	%rdi, %rax
	addq	%rdx, %rax			/* (now_t - t) << 16, mod 2^64 */
	jns	2f
	xorl	%eax, %eax			/* now is before t */
2:	PSCALE	\tmp
	addq	sc_pclock+PC_P(%rip), %rax
	cmpq	sc_pclock+PC_TK(%rip), %rdi
	jne	1b
.endm

/*
 * RESERVE_FRAME slot: pushes the frame %rcx, the top of thread %r10's
 * shadow stack, for a call whose return address is at \slot (an lea
 * operand), with its FR_SLOT filled; the other fields are filled after.
 * A signal handler that calls through the interceptor in the meantime
 * must find either the frame below (not yet reserved: it pushes onto
 * this one and pops it again) or this one with its own slot, never the
 * slot of whatever call used the frame before: its stale-frame test
 * would take that for a frame a longjmp abandoned (a handler's call on
 * a sigaltstack often has that very slot) and drop it, and this call's
 * return would then find no frame. So the slot is written before the
 * frame is reserved and checked after; a handler that ran in between
 * left its own there, and the reservation is undone and made again.
 * Clobbers rdx and the flags.
 */
.macro RESERVE_FRAME slot
95:	leaq	\slot, %rdx
	movq	%rdx, FR_SLOT(%rcx)
	leaq	FR_SIZE(%rcx), %rdx
	movq	%rdx, TH_SP(%r10)
	leaq	\slot, %rdx
	cmpq	%rdx, FR_SLOT(%rcx)
	je	96f
	movq	%rcx, TH_SP(%r10)
	jmp	95b
96:
.endm

/*
 * TIMED_START rec: the start of a timed call whose frame is %rcx (thread
 * %r10, record \rec, not %rdx): FR_TSC = the TSC moved on by the thread's
 * hot figure, or its cold one (the TSC then read after an lfence) for a
 * sampled call, and FR_P, FR_TK = the parallel clock's state. intercept.S's
 * timed path says why; fnown.S's starts its calls the same way. Clobbers
 * rax, rdx and the flags.
 */
.macro TIMED_START rec
	movq	TH_OVH_HOT(%r10), %rdx
	cmpl	$1, RC_SPAN(\rec)
	cmova	TH_OVH_COLD(%r10), %rdx
	movq	%rdx, FR_TSC(%rcx)
	jbe	93f
	lfence
93:	rdtsc
	shlq	$32, %rdx
	orq	%rdx, %rax
	movq	%rax, FR_T0(%rcx)
	addq	%rax, FR_TSC(%rcx)
94:	movq	sc_pclock+PC_TK(%rip), %rdx
	movq	sc_pclock+PC_P(%rip), %rax
	cmpq	sc_pclock+PC_TK(%rip), %rdx
	jne	94b
	movq	%rax, FR_P(%rcx)
	movq	%rdx, FR_TK(%rcx)
.endm

#endif
