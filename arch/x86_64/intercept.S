/*
 * intercept.S - the interceptor every call through a hooked slot reaches:
 * the general path sc_shadow_common, sc_shadow_rare (a shadow entry's calls
 * off its counted path) and sc_pending_common (calls through an import's
 * stub).
 *
 * A patched GOT slot points at a shadow entry's code (64 bytes, written
 * by arch.h's sc_arch_write_entry), which counts the call itself and
 * comes to sc_shadow_rare only to time it or when it has no record. The
 * general path, sc_shadow_common, serves calls through an import's stub
 * (a pointer the program copied before its entry existed), runs again
 * after sc_slow, and takes the entries' rare calls. A call arrives with
 * the caller's return address at (%rsp) and the entry index in %r11.
 *
 * What we may touch, and why:
 *  - %r10, %r11 and the arithmetic flags: caller-saved, carry no argument
 *    (PLT stubs and the lazy resolver clobber them too). Nothing else is
 *    changed on the counted path.
 *  - On the timed path we need rdtsc (writes %rax, %rdx) and one more
 *    register, so %rax (AL = vector count of variadic calls), %rdx (3rd
 *    argument) and %rcx are pushed below the return address and popped
 *    before jumping on. Below %rsp at a call boundary is free: a caller's
 *    red zone can hold nothing live across its call instruction.
 *  - Stack arguments, the hidden struct-return pointer (%rdi) and all
 *    vector/x87 registers are never touched here, so any signature works.
 *  - Calls into C (sc_slowpath, slowpath.S) save every integer argument
 *    register and the whole extended state, and call with a 16-byte
 *    aligned stack: C code may use SSE/AVX and call libc.
 *
 * Thread state lives in the initial-exec TLS variable sc_tls_thread; from
 * a shared object that is reached as %fs:(GOT[sym@gottpoff]).
 *
 * The direction flag is never set.
 */
#include "asm.h"

	.text

/* ------------------------------------------------------------------ */
/* The general path: count the call (r11 = shadow entry index), then time
 * it when its countdown runs out. */
ENTRY(sc_shadow_common)
	.cfi_startproc
	movq	sc_tls_thread@gottpoff(%rip), %r10
	movq	%fs:(%r10), %r10
	testq	%r10, %r10
	jz	.Lno_thread
	cmpq	TH_CAP(%r10), %r11
	jae	.Lno_rec
	movq	TH_RECS(%r10), %r10		/* r10 = recs (the thread is
						   found again if timed) */
	shlq	$RC_SHIFT, %r11			/* r11 = idx*256 */
	incq	RC_COUNT(%r10,%r11)
	decl	RC_COUNTDOWN(%r10,%r11)
	jle	.Ltimed_rec
	shrq	$(RC_SHIFT - EN_SHIFT), %r11	/* idx*16 */
	addq	sc_entry_table(%rip), %r11
	jmpq	*EN_TARGET(%r11)

.Ltimed_rec:					/* r10 = recs, r11 = idx*256 */
	addq	%r10, %r11			/* r11 = &recs[idx] */
	movq	sc_tls_thread@gottpoff(%rip), %r10
	movq	%fs:(%r10), %r10		/* r10 = thread again */


/*
 * Timed path (r10 = thread, r11 = rec). Push a shadow frame holding the
 * real return address, read the TSC and the parallel clock last so the
 * interceptor's own work is mostly outside the measured interval (the
 * rest is calibrated away), then call the API from sc_return_trampoline
 * so that it returns there.
 *
 * Three registers are saved, the fewest that do: rdtsc writes rax and
 * rdx, and rcx holds the frame; r10 and r11 (free at a call boundary)
 * hold the thread, the record and then the target. Every store and load
 * here is on the per-call path, so each register not saved is two memory
 * operations fewer (the stores are what bounds this path: one store port).
 * Below %rsp is free at a call boundary: a caller's red zone holds nothing
 * live across its call instruction.
 */
#define RA 24	/* the return address, above the three saved registers */

.macro PUSH3
	SAVEQ	%rax
	SAVEQ	%rdx
	SAVEQ	%rcx
.endm
.macro POP3
	RESTQ	%rcx
	RESTQ	%rdx
	RESTQ	%rax
.endm

.Ltimed:
	PUSH3
	movq	%r11, %rax
	subq	TH_RECS(%r10), %rax
	shrq	$(RC_SHIFT - EN_SHIFT), %rax
	addq	sc_entry_table(%rip), %rax	/* rax = &entries[idx] */
	testl	$(ASM_ENT_NOTIME | ASM_ENT_UNWIND | ASM_ENT_ARGS), EN_FLAGS(%rax)
	jnz	.Lspecial
.Ltimed_go:
	/*
	 * A return address that already is the trampoline's means a timed
	 * API jumped here (tail call through the PLT): it returns straight to
	 * that API's caller, so it is timed from here to that return, where
	 * the frame below credits it (sc_tail_credit).
	 */
	leaq	sc_return_point(%rip), %rcx
	cmpq	%rcx, RA(%rsp)
	je	.Ltail
	movq	TH_SP(%r10), %rcx
	cmpq	TH_SPEND(%r10), %rcx
	jae	.Luntimed_pop			/* shadow stack full: count only */
	/*
	 * Every frame of a call still in flight lies above this call's return
	 * slot. A top frame at or below it was abandoned (longjmp out of a
	 * timed call): let sc_slow drop it, or abandoned frames would pile up
	 * until timing stops.
	 */
	cmpq	TH_SPBASE(%r10), %rcx
	je	1f
	leaq	RA(%rsp), %rdx
	cmpq	%rdx, (FR_SLOT - FR_SIZE)(%rcx)
	jbe	.Lstale
1:
	/* Reserve the frame before filling it, so that a signal handler
	 * calling through here meanwhile pushes above it, not onto it. */
	RESERVE_FRAME RA(%rsp)
	movq	RA(%rsp), %rdx
	movq	%rdx, FR_RET(%rcx)
	movq	%r11, FR_REC(%rcx)
	xorl	%edx, %edx
	movq	%rdx, FR_CHILD(%rcx)
	movq	%rdx, FR_TREC(%rcx)
	movq	%rdx, FR_PEND(%rcx)
	movq	%rdx, FR_MOVED(%rcx)
	testl	$ASM_ENT_WAIT, EN_FLAGS(%rax)
	movq	EN_TARGET(%rax), %r11
	jnz	.Lwait_enter
	/*
	 * The call starts that much later than the TSC says: what timing it
	 * costs inside the interval (calib.c), the thread's hot figure for a
	 * call timed right after a timed one (span 0 or 1), else its cold
	 * one. Stored first and added to, as no register is left for it.
	 *
	 * A sampled call (span > 1, adaptive) reads the TSC after an lfence:
	 * it arrives after counted calls, with the pipeline in whatever state
	 * they and the mispredicted way into this path left, and an unfenced
	 * rdtsc starts its interval at a point that moves with that state
	 * (and with the calibration loop's layout) by more than a short call
	 * lasts (doc/design-runtime.md). Draining first makes the start the
	 * same for the calibration and for the program's calls. One lfence per sampled call (1 in up to
	 * 31); `all` and calls timed back to back keep the plain read.
	 */
	movq	FR_REC(%rcx), %rax
	/* then the clock's state as it is now: the return works the call's
	 * share out from it (a multiply at most, when k has not changed
	 * meanwhile) */
	TIMED_START %rax
	POP3
	jmp	sc_return_trampoline

	/*
	 * A Wait API: this thread stops running for the parallel clock until
	 * the call returns (the trampoline gives it back). FR_P holds the
	 * clock itself at entry, and FR_TK 0 marks the frame as a Wait's (any
	 * other frame's FR_TK counts this thread among the running: k >= 1).
	 */
	.cfi_adjust_cfa_offset 24
.Lwait_enter:					/* rcx = frame, r11 = target */
	SAVEQ	%rsi
	SAVEQ	%rdi
	rdtsc
	shlq	$32, %rdx
	orq	%rdx, %rax
	movq	%rax, %rsi			/* now */
	movq	%rax, FR_T0(%rcx)
	addq	TH_OVH_HOT(%r10), %rax		/* its start, as above */
	movq	%rax, FR_TSC(%rcx)
	movq	$-1, %rdi
	call	sc_pclock_step
	movq	%rax, FR_P(%rcx)
	movq	$0, FR_TK(%rcx)
	RESTQ	%rdi
	RESTQ	%rsi
	POP3
	jmp	sc_return_trampoline

	/*
	 * Tail call from the timed call whose frame is on top (its return
	 * slot is ours). The first two APIs of a chain of tail calls are
	 * timed to the same return, the first's time holding the second's;
	 * later ones, and a Wait API, are only counted (a Wait's clock step
	 * needs its own frame).
	 */
	.cfi_adjust_cfa_offset 24
.Ltail:						/* rax = entry, r11 = rec */
	testl	$ASM_ENT_WAIT, EN_FLAGS(%rax)
	jnz	.Luntimed_pop
	movq	TH_SP(%r10), %rcx
	cmpq	TH_SPBASE(%r10), %rcx
	je	.Luntimed_pop
	subq	$FR_SIZE, %rcx			/* top frame */
	leaq	RA(%rsp), %rdx
	cmpq	%rdx, FR_SLOT(%rcx)
	jne	.Luntimed_pop
	cmpq	$0, FR_TREC(%rcx)
	jne	.Ltail_next
	movq	%r11, FR_TREC(%rcx)
	movq	$0, FR_TREC2(%rcx)
	leaq	FR_TTSC(%rcx), %rcx
.Ltail_go:					/* rcx = where its TSC goes */
	movq	EN_TARGET(%rax), %r11
	rdtsc
	shlq	$32, %rdx
	orq	%rdx, %rax
	movq	%rax, (%rcx)
	POP3
	jmpq	*%r11

	.cfi_adjust_cfa_offset 24
.Ltail_next:					/* the chain's second API */
	cmpq	$FR_ARGS_TAG, FR_TREC(%rcx)
	je	.Luntimed_pop
	cmpq	$0, FR_TREC2(%rcx)
	jne	.Luntimed_pop
	movq	%r11, FR_TREC2(%rcx)
	leaq	FR_TTSC2(%rcx), %rcx
	jmp	.Ltail_go

	.cfi_adjust_cfa_offset 24
.Luntimed_pop:					/* rax = entry */
	movq	EN_TARGET(%rax), %r11
	POP3
	jmpq	*%r11

	/*
	 * Entries never timed: APIs that return twice (setjmp, vfork), never
	 * return, or look at their caller's address (dlopen, dlsym). Keep
	 * the countdown at 0 so each call comes back here to be checked.
	 */
	.cfi_adjust_cfa_offset 24
.Lspecial:					/* rax = entry, r11 = rec */
	testl	$ASM_ENT_ARGS, EN_FLAGS(%rax)
	jnz	.Largs
	movl	$0, RC_COUNTDOWN(%r11)
	movl	$SLOW_UNWIND, %r10d
	testl	$ASM_ENT_UNWIND, EN_FLAGS(%rax)
	jnz	1f
	/*
	 * Reached by a tail call from a timed call, its return address is
	 * the trampoline's; it must see its real caller (dlsym, or code that
	 * reads its return address): sc_slow puts that back.
	 */
	movl	$SLOW_TAIL, %r10d
	leaq	sc_return_point(%rip), %rdx
	cmpq	%rdx, RA(%rsp)
	jne	.Luntimed_pop
1:	subq	sc_entry_table(%rip), %rax
	shrq	$EN_SHIFT, %rax
	movq	%rax, %r11			/* r11 = idx */
	POP3
	jmp	sc_slowpath

	/*
	 * An entry whose values are captured (--args; never NOTIME or
	 * UNWIND, args.c). When the timed path above is going to make this
	 * call a frame of its own (not a tail call, room on the shadow
	 * stack, no stale frame: its own tests, repeated), it goes on with
	 * a stand-in entry (sc_args_entries, args_hot.c) whose target is
	 * sc_args_stub: the frame calls the stub, which captures the
	 * arguments and jumps to the API. Otherwise the real entry goes on.
	 */
	.cfi_adjust_cfa_offset 24
.Largs:						/* rax = entry, r11 = rec */
	movq	sc_args_cur@gottpoff(%rip), %rcx
	movq	%rax, %fs:(%rcx)
	leaq	sc_return_point(%rip), %rcx
	cmpq	%rcx, RA(%rsp)
	je	.Ltimed_go
	movq	TH_SP(%r10), %rcx
	cmpq	TH_SPEND(%r10), %rcx
	jae	.Ltimed_go
	cmpq	TH_SPBASE(%r10), %rcx
	je	1f
	leaq	RA(%rsp), %rdx
	cmpq	%rdx, (FR_SLOT - FR_SIZE)(%rcx)
	jbe	.Ltimed_go
1:	testl	$ASM_ENT_WAIT, EN_FLAGS(%rax)
	leaq	sc_args_entries(%rip), %rax
	jz	.Ltimed_go
	addq	$(1 << EN_SHIFT), %rax
	jmp	.Ltimed_go

	.cfi_adjust_cfa_offset 24
.Lstale:					/* rax = entry */
	subq	sc_entry_table(%rip), %rax
	shrq	$EN_SHIFT, %rax
	movq	%rax, %r11			/* r11 = idx */
	POP3
	movl	$SLOW_STALE, %r10d
	jmp	sc_slowpath

.Lno_thread:
	movl	$SLOW_NOTHREAD, %r10d
	jmp	sc_slowpath
.Lno_rec:
	movl	$SLOW_NOREC, %r10d
	jmp	sc_slowpath
	.cfi_endproc
END(sc_shadow_common)

/* ------------------------------------------------------------------ */
/*
 * An entry's own code (arch.h, sc_arch_write_entry) counts a call and
 * jumps on to the API by itself; it comes here for everything else, with
 * r11 = idx << RC_SHIFT and the carry flag saying why:
 *   CF=1  its gate (sc_tls_lim) found no record for idx: no thread yet, a
 *         busy one, or an array too short. The general path looks again
 *         (r11 = idx); the call is not counted yet.
 *   CF=0  it counted the call and the countdown ran out: time this call.
 *         r10 still holds the records it loaded and r11 = idx*256, as
 *         .Ltimed_rec wants them.
 */
ENTRY(sc_shadow_rare)
	.cfi_startproc
	jnc	.Ltimed_rec
	shrq	$RC_SHIFT, %r11
	jmp	sc_shadow_common
	.cfi_endproc
END(sc_shadow_rare)

/* ------------------------------------------------------------------ */
/*
 * Import code jumps here with r11 = import number (shadow.c). Once the
 * import has an entry this is one load more than the entry's own code
 * (its GOT slot was pointed there, or waits to be: patch.c; a pointer
 * the program copied still comes here); before, its first call binds one
 * in sc_slow. While paused (sc_paused, pause.c), a call of a bound import
 * goes straight to its entry's target, neither counted nor timed (dlsym's
 * pointers lead here, and no GOT slot can be pointed elsewhere for them);
 * sc_slow sends an unbound one on unbound. While a slot waits, sc_pend_budget counts these calls down
 * and the one that takes it below 0 goes to sc_slow too, which may write
 * the waiting slots (a plain decrement: a lost one only delays that).
 */
ENTRY(sc_pending_common)
	.cfi_startproc
	shlq	$HK_SHIFT, %r11
	addq	sc_hook_table(%rip), %r11
	movl	HK_BOUND(%r11), %r10d
	andl	$((1 << HK_IDX_BITS) - 1), %r10d	/* entry index + 1, or 0 */
	subl	$1, %r10d
	jb	1f
	cmpb	$0, sc_paused(%rip)
	jne	2f
	decl	sc_pend_budget(%rip)
	js	1f
	movl	%r10d, %r11d
	jmp	sc_shadow_common
2:	shlq	$EN_SHIFT, %r10			/* paused: straight on */
	addq	sc_entry_table(%rip), %r10
	jmpq	*EN_TARGET(%r10)
1:	subq	sc_hook_table(%rip), %r11
	shrq	$HK_SHIFT, %r11
	movl	$SLOW_BIND, %r10d
	jmp	sc_slowpath
	.cfi_endproc
END(sc_pending_common)

	.section .note.GNU-stack,"",@progbits
