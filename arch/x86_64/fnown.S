/*
 * fnown.S - timing the calls a patched function receives from its own
 * object (--functions), keeping every register the caller could see.
 *
 * A call between components crosses a public interface, so its timed
 * path may change what the ABI lets any callee change (intercept.S,
 * trampoline.S). A call from the function's own object may not: GCC's
 * -fipa-ra lets a caller keep values in caller-saved registers across a
 * call to a function it knows does not touch them (a static or local
 * function of the same object), and -fipa-stack-alignment lets it call
 * one with a stack aligned to less than 16 bytes. So here every general
 * register reaches the function and comes back from it exactly as the
 * function itself leaves it, vector and x87 registers are never touched
 * (the extended state is saved around any call of C), and the stack is
 * aligned before one. The flags are not kept: no compiler keeps them live
 * across a call (GCC's -fipa-ra counts them, a fixed register, clobbered
 * by every call), the entry's counting code changes them anyway, and
 * popfq alone would add ~9 ns to each timed call (doc/performance.md).
 *
 * The way in: a patched entry's own code (fnpatch.c) counts the call and
 * jumps to sc_fn_own with r11 = idx << RC_SHIFT and, like an entry's
 * sc_shadow_rare, the carry flag saying why: CF=1 no record for idx (C
 * finds one, or the call goes on uncounted), CF=0 the countdown ran out
 * (time it; r10 = the thread's records). The caller's r10 and r11 are
 * below the stack pointer (R10S, R11S), in the function's red zone, free
 * at its entry; the other saves below go there too.
 *
 * The timed call is set up as intercept.S's timed path does it (a shadow
 * frame, the start moved on by the thread's figures, the parallel clock),
 * then the function is called from sc_fn_return_trampoline. Its return
 * point saves everything, reads the TSC and books the call by calling
 * trampoline.S's own return point past its read (sc_return_point_now)
 * with the frame pointed at a slot of its own: one booking code for both. The frame keeps the caller's slot and return address
 * while the function runs, so an unwinder's sc_unwind_prepare and a
 * longjmp's stale frames are handled as for any timed call.
 */
#include "asm.h"

	.text

/* below the entry's stack pointer S: the caller's registers, and where
 * the call goes on (the replay copy, or sc_fn_own_slow's answer) */
#define R10S -8
#define R11S -16
#define RAXS -24
#define RDXS -32
#define RCXS -40
#define TGTS -48
#define BELOW 56	/* bytes used below S */

.macro RESTORE_FROM_RED_ZONE
	movq	RAXS(%rsp), %rax
	movq	RDXS(%rsp), %rdx
	movq	RCXS(%rsp), %rcx
	movq	R10S(%rsp), %r10
	movq	R11S(%rsp), %r11
.endm

ENTRY(sc_fn_own)
	.cfi_startproc
	movq	%rax, RAXS(%rsp)		/* (movs keep CF) */
	movq	%rdx, RDXS(%rsp)
	movq	%rcx, RCXS(%rsp)
	jc	.Lown_norec
	addq	%r10, %r11			/* r11 = rec */
	movq	sc_tls_thread@gottpoff(%rip), %r10
	movq	%fs:(%r10), %r10		/* r10 = thread */
	movq	%r11, %rax
	subq	TH_RECS(%r10), %rax
	shrq	$(RC_SHIFT - EN_SHIFT), %rax
	addq	sc_entry_table(%rip), %rax	/* rax = &entries[idx] */
	movq	EN_TARGET(%rax), %rdx
	movq	%rdx, TGTS(%rsp)		/* the function's replay copy */
	/*
	 * Jumped to by a timed call (a tail call): counted only, its time
	 * is that call's, as intercept.S's .Ltail does for the first API of
	 * a chain.
	 */
	movq	(%rsp), %rdx
	leaq	sc_return_point(%rip), %rcx
	cmpq	%rcx, %rdx
	je	.Lown_untimed
	leaq	sc_fn_return_point(%rip), %rcx
	cmpq	%rcx, %rdx
	je	.Lown_untimed
	movq	TH_SP(%r10), %rcx
	cmpq	TH_SPEND(%r10), %rcx
	jae	.Lown_untimed			/* shadow stack full: count only */
	cmpq	TH_SPBASE(%r10), %rcx
	je	1f
	cmpq	%rsp, (FR_SLOT - FR_SIZE)(%rcx)
	jbe	.Lown_stale			/* a frame left by a longjmp */
1:	RESERVE_FRAME (%rsp)			/* reserved before it is filled */
	movq	(%rsp), %rdx
	movq	%rdx, FR_RET(%rcx)
	movq	%r11, FR_REC(%rcx)
	xorl	%edx, %edx
	movq	%rdx, FR_CHILD(%rcx)
	movq	%rdx, FR_TREC(%rcx)
	movq	%rdx, FR_PEND(%rcx)		/* no perf figures yet (perf.c) */
	movq	%rdx, FR_MOVED(%rcx)
	TIMED_START %r11			/* as intercept.S's timed path */
	/* and what this path costs more (calib.c): inside the call, and in
	 * its timed caller's interval, whose start moves on as a nested
	 * return moves it (trampoline.S) */
	movq	TH_OWN_IN(%r10), %rdx
	addq	%rdx, FR_TSC(%rcx)
	cmpq	TH_SPBASE(%r10), %rcx
	jbe	.Lown_go
	movq	TH_OWN_OUT(%r10), %rdx
	addq	%rdx, (FR_TSC - FR_SIZE)(%rcx)
	addq	%rdx, (FR_MOVED - FR_SIZE)(%rcx)
.Lown_go:
	RESTORE_FROM_RED_ZONE
	jmp	sc_fn_return_trampoline

.Lown_untimed:
	RESTORE_FROM_RED_ZONE
	jmpq	*TGTS(%rsp)

.Lown_norec:					/* r11 = idx << RC_SHIFT */
	shrq	$RC_SHIFT, %r11
	xorl	%eax, %eax			/* sc_fn_own_slow tells which */
	jmp	.Lown_slow

.Lown_stale:					/* rax = &entries[idx] */
	subq	sc_entry_table(%rip), %rax
	shrq	$EN_SHIFT, %rax
	movq	%rax, %r11
	movl	$SLOW_STALE, %eax

	/*
	 * void *sc_fn_own_slow(idx = r11, reason = eax, entry rsp): where
	 * the call goes on, the function's own code again or its replay
	 * copy; everything is saved around it.
	 */
.Lown_slow:
	leaq	-BELOW(%rsp), %rsp
	pushq	%rbp
	movq	%rsp, %rbp			/* rbp = S - BELOW - 8 */
	pushq	%rsi
	pushq	%rdi
	pushq	%r8
	pushq	%r9
	movl	%eax, %esi
	movq	%r11, %rdi
	leaq	(BELOW + 8)(%rbp), %rdx		/* S */
	movl	sc_xsave_size(%rip), %eax
	subq	%rax, %rsp
	andq	$-64, %rsp
	call	sc_save_ext			/* keeps rdi, rsi, rdx */
	call	sc_fn_own_slow
	movq	%rax, (BELOW + 8 + TGTS)(%rbp)
	call	sc_restore_ext
	leaq	-32(%rbp), %rsp
	popq	%r9
	popq	%r8
	popq	%rdi
	popq	%rsi
	popq	%rbp
	leaq	BELOW(%rsp), %rsp
	RESTORE_FROM_RED_ZONE
	jmpq	*TGTS(%rsp)
	.cfi_endproc
END(sc_fn_own)

/*
 * The function is called from here so that it returns to
 * sc_fn_return_point (a real call: its ret is predicted, as in
 * trampoline.S). The caller's return address is in the shadow frame; the
 * function's target was left at TGTS below the entry's stack pointer.
 * Unwinding: "outermost frame", as trampoline.S's.
 */
	.globl sc_fn_return_trampoline; .hidden sc_fn_return_trampoline
	.globl sc_fn_return_point; .hidden sc_fn_return_point
	.type sc_fn_return_trampoline,@function; .p2align 4
	.cfi_startproc
	.cfi_undefined rip
sc_fn_return_trampoline:
	leaq	8(%rsp), %rsp
	call	*(TGTS - 8)(%rsp)
sc_fn_return_point:				/* rsp = S + 8 */
	/*
	 * Saved: what trampoline.S's return path may change but the return
	 * values (rax and rdx it keeps, as any return must). Not the flags
	 * (see the top of this file).
	 */
	leaq	-8(%rsp), %rsp			/* S: for the caller's return address */
	pushq	%rcx
	pushq	%rsi
	pushq	%rdi
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11				/* S = rsp + 56 */
	/* the TSC first: what lies between the function's return and the
	 * read is in its interval, and a short function cannot hide it */
	movq	%rax, %r8			/* the return values, parked */
	movq	%rdx, %r9			/* as trampoline.S parks them */
	rdtsc
	shlq	$32, %rdx
	orq	%rax, %rdx			/* rdx = now */
	movq	sc_tls_thread@gottpoff(%rip), %r10
	movq	%fs:(%r10), %r10
	movq	TH_SP(%r10), %rcx
	subq	$FR_SIZE, %rcx			/* top frame */
	leaq	56(%rsp), %rsi
	cmpq	%rsi, FR_SLOT(%rcx)
	jne	.Lfn_ret_slow
.Lfn_ret_have:					/* rcx = our frame, on top */
	/*
	 * The caller's return address goes back into its slot, which our
	 * final ret pops; trampoline.S books the frame as that of a call
	 * whose slot is the one our call below pushes, and returns here.
	 */
	movq	FR_RET(%rcx), %rsi
	movq	%rsi, 56(%rsp)
	leaq	.Lfn_booked(%rip), %rsi
	movq	%rsi, FR_RET(%rcx)
	leaq	-16(%rsp), %rsi
	movq	%rsi, FR_SLOT(%rcx)
	call	sc_return_point_now
.Lfn_booked:					/* its ret left our call's slot */
	leaq	8(%rsp), %rsp
	popq	%r11
	popq	%r10
	popq	%r9
	popq	%r8
	popq	%rdi
	popq	%rsi
	popq	%rcx
	ret					/* from S */

	/* the top frame is not ours: sc_ret_lookup(S) finds it, drops the
	 * dead ones above it and hands it back on top */
.Lfn_ret_slow:
	pushq	%rbp
	movq	%rsp, %rbp
	pushq	%rdx				/* now */
	pushq	%rbx
	pushq	%r8				/* the return values */
	pushq	%r9
	movl	sc_xsave_size(%rip), %eax
	subq	%rax, %rsp
	andq	$-64, %rsp
	leaq	64(%rbp), %rdi			/* S */
	call	sc_save_ext
	call	sc_ret_lookup
	movq	%rax, %rbx
	call	sc_restore_ext
	movq	%rbx, %rcx
	leaq	-32(%rbp), %rsp
	popq	%r9
	popq	%r8
	popq	%rbx
	popq	%rdx
	popq	%rbp
	movq	sc_tls_thread@gottpoff(%rip), %r10
	movq	%fs:(%r10), %r10
	jmp	.Lfn_ret_have
	.cfi_endproc
END(sc_fn_return_trampoline)

	.section .note.GNU-stack,"",@progbits
