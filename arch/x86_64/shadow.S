/*
 * shadow.S - the hot path: the common interceptor every shadow entry jumps
 * to, and the return trampoline that ends a timed call.
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
 *  - Calls into C (sc_slowpath) save every integer argument register and
 *    the whole extended state with xsave, and call with a 16-byte aligned
 *    stack: C code may use SSE/AVX and call libc.
 *
 * Thread state lives in the initial-exec TLS variable sc_tls_thread; from
 * a shared object that is reached as %fs:(GOT[sym@gottpoff]).
 *
 * The direction flag is never set. Layouts are in offsets.h.
 */
#include "offsets.h"

#define ENTRY(name) \
	.globl name; .hidden name; .type name,@function; .p2align 4; name:
#define END(name) .size name, .-name

/*
 * PSCALE: rax = (now_t - t) << 16 (see the parallel clock below), edx = k;
 * out rax = the clock's advance over that time, elapsed ticks *
 * sc_recip[k] / 2^16. Clobbers rdx and the register named.
 */
.macro PSCALE tmp
	shrq	$(16 - PC_TSHIFT), %rax		/* elapsed ticks */
	cmpl	$PC_RECIP_MAX, %edx
	jbe	91f
	movl	$PC_RECIP_MAX, %edx
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
 * (sc_recip[0] = 0: with nobody running the clock stands still).
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

	.text

/* ------------------------------------------------------------------ */
/* Counted path: ~10 instructions. r11 = shadow entry index.          */
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
	testl	$(ASM_ENT_NOTIME | ASM_ENT_UNWIND), EN_FLAGS(%rax)
	jnz	.Lspecial
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
	leaq	FR_SIZE(%rcx), %rdx
	movq	%rdx, TH_SP(%r10)
	movq	RA(%rsp), %rdx
	movq	%rdx, FR_RET(%rcx)
	leaq	RA(%rsp), %rdx
	movq	%rdx, FR_SLOT(%rcx)
	movq	%r11, FR_REC(%rcx)
	xorl	%edx, %edx
	movq	%rdx, FR_CHILD(%rcx)
	movq	%rdx, FR_TREC(%rcx)
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
	 * rdtsc starts its interval at a point that moved with that state
	 * (and with the calibration loop's layout) by more than a short call
	 * lasts: adaptive was 0.69-1.21 of the truth on 20 ns calls from run
	 * to run, 1.02-1.12 fenced (bench/accuracy.sh, doc/performance.md).
	 * Draining first makes the start the same for the calibration and
	 * for the program's calls. One lfence per sampled call (1 in up to
	 * 127); `all` and calls timed back to back keep the plain read.
	 */
	movq	FR_REC(%rcx), %rax
	movq	TH_OVH_HOT(%r10), %rdx
	cmpl	$1, RC_SPAN(%rax)
	cmova	TH_OVH_COLD(%r10), %rdx
	movq	%rdx, FR_TSC(%rcx)
	jbe	1f
	lfence
1:	rdtsc
	shlq	$32, %rdx
	orq	%rdx, %rax
	addq	%rax, FR_TSC(%rcx)
	/*
	 * The clock's state as it is now: the return works the call's share
	 * out from it (a multiply at most, when k has not changed meanwhile).
	 */
1:	movq	sc_pclock+PC_TK(%rip), %rdx
	movq	sc_pclock+PC_P(%rip), %rax
	cmpq	sc_pclock+PC_TK(%rip), %rdx
	jne	1b
	movq	%rax, FR_P(%rcx)
	movq	%rdx, FR_TK(%rcx)
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
	 * slot is ours). The first API of a chain of tail calls is credited
	 * with the whole tail; a Wait API is only counted (its clock step
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
	jne	.Luntimed_pop
	movq	%r11, FR_TREC(%rcx)
	movq	EN_TARGET(%rax), %r11
	rdtsc
	shlq	$32, %rdx
	orq	%rdx, %rax
	movq	%rax, FR_TTSC(%rcx)
	POP3
	jmpq	*%r11

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
 * (its GOT slot was pointed there, or waits to be: objects.c; a pointer
 * the program copied still comes here); before, its first call binds one
 * in sc_slow. While a slot waits, sc_pend_budget counts these calls down
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
	decl	sc_pend_budget(%rip)
	js	1f
	movl	%r10d, %r11d
	jmp	sc_shadow_common
1:	subq	sc_hook_table(%rip), %r11
	shrq	$HK_SHIFT, %r11
	movl	$SLOW_BIND, %r10d
	jmp	sc_slowpath
	.cfi_endproc
END(sc_pending_common)

/* ------------------------------------------------------------------ */
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
 * without xsave) of the whole extended state into the 64-byte aligned area
 * at the caller's %rsp+8. They preserve rdi, rsi and rdx, which carry the
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
	movl	$-1, %eax
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
	movl	$-1, %eax
	movl	$-1, %edx
	xrstor	(%r10)
	ret
1:	fxrstor	(%r10)
	ret
	.cfi_endproc
END(sc_restore_ext)

/* ------------------------------------------------------------------ */
/*
 * Return trampoline: a timed API returns here instead of to its caller.
 *
 * It gets there by a real call, not by a return address overwritten on
 * the stack: sc_timed_call drops the caller's return address (saved in
 * the shadow frame) and calls the API, whose return address then sits in
 * the same slot, so the API sees the stack (arguments, alignment) exactly
 * as its caller left it. The point is the return stack buffer: with an
 * overwritten return address, the API's `ret` was predicted to go to the
 * caller and went to the trampoline, a mispredicted return on every timed
 * call (~12 ns here, bench/floor.c). Now call and ret pair up twice (the
 * caller's call with our final ret, our call with the API's ret) and both
 * returns are predicted. A CET shadow stack would also stay consistent.
 *
 * The call instruction lies inside this FDE (it is before the return
 * point, sc_return_point), so an unwinder that looks up (return address
 * - 1) finds the rule below, "outermost frame", and never misreads the
 * stack.
 *
 * Registers. For the caller, this code is the end of the API it called,
 * so it may do what the ABI lets any callee do: change the caller-saved
 * registers that carry no return value (rcx, rsi, rdi, r8-r11) and the
 * arithmetic flags. Return values are live in rax, rdx, xmm0-1 and st0-1:
 * rax and rdx, which rdtsc and the multiplies need, are parked in r8 and
 * r9 and put back before the final ret, and vector and x87 state is never
 * touched on the fast path. Nothing is saved to memory (five push/pop
 * pairs were, a store and a load each on every timed call). The only callees
 * whose callers expect more, mcount and its kin (called from prologues
 * with the arguments live), read their return address and are never timed
 * (peek.c finds them; shadow.c also lists them by name).
 *
 * The top shadow frame normally belongs to this return (its slot is where
 * our return address was, i.e. rsp-8 here); when it does not (a longjmp or
 * a vfork child left frames behind) sc_ret_lookup finds ours and drops the
 * dead ones above it.
 */

	.globl sc_return_trampoline; .hidden sc_return_trampoline
	.globl sc_return_point; .hidden sc_return_point
	.type sc_return_trampoline,@function; .p2align 4
	.cfi_startproc
	.cfi_undefined rip
	/* in: r11 = the API, the stack as at the API's entry; the caller's
	 * return address is in the shadow frame, so it is dropped here */
sc_return_trampoline:
	leaq	8(%rsp), %rsp
	call	*%r11
sc_return_point:			/* the API's return address */
	movq	%rax, %r8			/* the return values, parked */
	movq	%rdx, %r9
	rdtsc
	shlq	$32, %rdx
	orq	%rax, %rdx			/* rdx = now */
	movq	sc_tls_thread@gottpoff(%rip), %r10
	movq	%fs:(%r10), %r10
	movq	TH_SP(%r10), %rcx
	subq	$FR_SIZE, %rcx			/* top frame */
	leaq	-8(%rsp), %rax			/* our slot */
	cmpq	%rax, FR_SLOT(%rcx)
	jne	.Lret_slow
.Lret_have:					/* rcx = frame, rdx = now */
	cmpq	$0, FR_TREC(%rcx)
	jne	.Lret_tail
	movq	%rdx, %rsi			/* rsi = now */
	movq	TH_LAST(%r10), %rax		/* in the file: outlives a kill */
	movq	%rsi, (%rax)
	cmpq	$0, FR_TK(%rcx)
	je	.Lwait_leave
	/*
	 * The call's share of the parallel clock. While the clock's state
	 * is the one seen at entry, k was constant: the share is elapsed/k
	 * (elapsed itself when k = 1, the usual case). Otherwise both ends
	 * are worked out in full.
	 *
	 * FR_TSC is the entry's TSC moved on by what timing this call costs
	 * and what timing the calls nested in it cost (each nested return
	 * adds the thread's nested figure to it), so now - FR_TSC is the
	 * call's own time; it may come out below 0 when a figure
	 * overestimated the cost, and counts as 0 then.
	 */
	movq	%rsi, %rax
	subq	FR_TSC(%rcx), %rax
	jae	1f
	xorl	%eax, %eax
1:	movq	sc_pclock+PC_TK(%rip), %rdi
	cmpq	FR_TK(%rcx), %rdi
	jne	.Lp_changed
	cmpw	$1, %di
	jne	.Lp_shared
.Lp_have:					/* rax = the call's P interval */
	movq	%rsi, %rdx
	subq	FR_TSC(%rcx), %rdx		/* rdx = elapsed ticks */
	jae	1f
	xorl	%edx, %edx
1:
	movq	FR_REC(%rcx), %r11
	incq	RC_TIMED(%r11)
	addq	%rdx, RC_TICKS(%r11)
	/*
	 * Estimator: this call ends a span of `span` calls (the countdown
	 * set at the previous timed return) of which it alone was timed, so
	 * it stands for all of them: every sum is also kept times w = span
	 * (wcount += w). A never-timed record has span 0 and stands for
	 * itself: w = 1, the case of every call in `all` mode and of slow
	 * calls, done here without multiplying; w > 1 is .Lweighted.
	 */
	movl	RC_SPAN(%r11), %edi
	cmpl	$1, %edi
	ja	.Lweighted
	movl	$1, %edi			/* rdi = w */
	incq	RC_WCOUNT(%r11)
	addq	%rax, RC_WPTICKS(%r11)
	addq	%rdx, RC_WTICKS(%r11)
	movq	%rdx, %rax
.Lw_done:					/* rax = elapsed * w, rdi = w */
	cmpq	sc_block_ticks(%rip), %rdx	/* long enough to have blocked */
	jae	.Lblocked
.Lb_done:
	/*
	 * A timed caller below us loses this call from its exclusive time.
	 * It is charged the estimate elapsed * w, not elapsed: the untimed
	 * calls this one stands for were nested in that caller's calls too,
	 * so summed over its calls the caller's child time is unbiased (one
	 * call's self time may come out negative; self_ticks is a signed
	 * sum, clamped by the reader).
	 */
	cmpq	TH_SPBASE(%r10), %rcx
	jbe	2f
	addq	%rax, (FR_CHILD - FR_SIZE)(%rcx)
	/* and the interceptor's cost of timing this call is not its time:
	 * its start moves on by that much */
	movq	TH_NESTED(%r10), %rax
	addq	%rax, (FR_TSC - FR_SIZE)(%rcx)
2:	movq	%rdx, %rax
	subq	FR_CHILD(%rcx), %rax
	addq	%rax, RC_SELF(%r11)
	cmpq	RC_MAX(%r11), %rdx
	jbe	1f
	movq	%rdx, RC_MAX(%r11)
1:	/* histogram: bucket floor(log2(ticks / 8)), 0..RC_NHIST-1, += w
	 * saturating (a wrapped counter would lie; a full one only stops) */
	movq	%rdx, %rax
	shrq	$3, %rax
	orq	$1, %rax
	bsrq	%rax, %rax
	cmpl	$(RC_NHIST - 1), %eax
	jbe	1f
	movl	$(RC_NHIST - 1), %eax
1:	addl	%edi, RC_HIST(%r11,%rax,4)
	jc	.Lhist_full
.Lh_done:
	/*
	 * Next period: a slow call, and every Wait API, is always followed
	 * by a timed one (a Wait must be seen entering and leaving, for the
	 * parallel clock); a cheap one doubles the period (2p+1: 1, 3, 7,
	 * ... sc_period_max) until timing one call in p costs little beside
	 * the calls themselves: p * mean >= sc_period_budget, the mean being
	 * wticks / wcount, compared as p * wticks >= budget * wcount. Past
	 * that the period stays, and halves ((p-1)/2 = p >> 1) while the
	 * half still meets the budget. A cheap API (an empty function: mean
	 * ~0 after calibration) still goes to sc_period_max; one whose calls
	 * average 100 ns stops at 15, so its rare long calls, where the
	 * sampling error comes from, are seen ~8x more often (bench/
	 * sampling.py). sc_period_min/max encode the mode: all = 1/1,
	 * none = MAX/MAX. In `all` the answer is always 1 and the span
	 * stays what it is (0, or 1), so only the countdown is set.
	 */
	movl	$1, %eax
	cmpl	%eax, sc_period_max(%rip)
	je	6f
	cmpq	$0, FR_TK(%rcx)			/* a Wait */
	je	3f
	cmpq	sc_slow_ticks(%rip), %rdx
	ja	3f
	movl	RC_PERIOD(%r11), %eax
	movq	RC_WCOUNT(%r11), %rdx
	imulq	sc_period_budget(%rip), %rdx	/* rdx = budget * wcount */
	movq	RC_WTICKS(%r11), %rdi
	imulq	%rax, %rdi			/* rdi = p * wticks */
	jo	.Lp_set				/* a mean that large: keep p */
	cmpq	%rdx, %rdi
	jae	.Lp_enough
	leal	1(%rax,%rax), %eax
	cmpl	sc_period_max(%rip), %eax
	cmoval	sc_period_max(%rip), %eax
	jmp	.Lp_set
3:	movl	$1, %eax
.Lp_set:
	cmpl	sc_period_min(%rip), %eax
	cmovbl	sc_period_min(%rip), %eax
	movl	%eax, RC_PERIOD(%r11)
	/*
	 * The next span is drawn uniformly from 1 .. 2p-1 (mean p), not p
	 * itself: a fixed stride could lock onto a periodic pattern in the
	 * program's calls (every 64th call is long) and time only the
	 * short ones. The draw hashes the TSC (Fibonacci hashing, top 16
	 * bits of the low word). p = 1 gives 1; "none" (p >= 2^16) takes p.
	 */
	cmpl	$1, %eax
	je	5f
	cmpl	$0xffff, %eax
	ja	5f
	leal	-1(%rax,%rax), %edi		/* 2p - 1 */
	imull	$0x9e3779b1, %esi, %edx
	shrl	$16, %edx			/* u in 0 .. 65535 */
	imulq	%rdi, %rdx
	shrq	$16, %rdx
	leal	1(%rdx), %eax			/* span = 1 + u(2p-1)/65536 */
5:	movl	%eax, RC_SPAN(%r11)
6:	movl	%eax, RC_COUNTDOWN(%r11)
	movq	FR_RET(%rcx), %r11
	movq	%rcx, TH_SP(%r10)		/* pop, after reading it */
	cmpq	TH_RECAL(%r10), %rsi		/* time to re-measure the cost? */
	jae	.Lrecal
.Lrecal_done:
	movq	%r8, %rax
	movq	%r9, %rdx
	pushq	%r11				/* the caller's return address, */
	ret					/* predicted: its call's pair */

	/* off the fast path: each goes back to where it left */

	/*
	 * sc_recalibrate(thread, now) (calib.c), every few ms of a thread
	 * making timed calls, once this call is booked and popped: r11 (the
	 * caller's return address), r8 and r9 (the return values) and the
	 * extended state (xmm0/1, st0/1 may hold return values) are kept.
	 */
.Lrecal:					/* r10 = thread, rsi = now */
	pushq	%r11
	pushq	%rbp
	movq	%rsp, %rbp
	pushq	%r8
	pushq	%r9
	movl	sc_xsave_size(%rip), %eax
	subq	%rax, %rsp
	andq	$-64, %rsp
	movq	%r10, %rdi
	call	sc_save_ext			/* keeps rdi, rsi */
	call	sc_recalibrate
	call	sc_restore_ext
	leaq	-16(%rbp), %rsp
	popq	%r9
	popq	%r8
	popq	%rbp
	popq	%r11
	jmp	.Lrecal_done

.Lhist_full:
	movl	$-1, RC_HIST(%r11,%rax,4)
	jmp	.Lh_done

	/* p * mean meets the budget: halve p if p/2 still does (eax = p,
	 * rdx = budget * wcount) */
.Lp_enough:
	movl	%eax, %edi
	shrl	$1, %edi
	movq	RC_WTICKS(%r11), %rax
	imulq	%rdi, %rax
	jo	1f
	cmpq	%rdx, %rax
	jb	1f
	movl	%edi, %eax
	jmp	.Lp_set
1:	movl	RC_PERIOD(%r11), %eax
	jmp	.Lp_set

.Lblocked:					/* rax = elapsed * w */
	addq	%rax, RC_WBLOCK(%r11)
	jmp	.Lb_done

	/* k > 1 (or 0): the share is elapsed * sc_recip[k] / 2^16 */
.Lp_shared:					/* rax = elapsed, rdi = tk */
	movzwl	%di, %edx
	cmpl	$PC_RECIP_MAX, %edx
	jbe	1f
	movl	$PC_RECIP_MAX, %edx
1:	leaq	sc_recip(%rip), %r11
	movl	(%r11,%rdx,4), %edx
	mulq	%rdx
	shrdq	$16, %rdx, %rax
	jmp	.Lp_have

	/*
	 * w > 1 (rax = the P interval, rdx = elapsed, rdi = span). An outlier
	 * stands only for itself: a call over 1 ms (sc_outlier_ticks, a
	 * scheduler time slice is a few) and over 256 times this record's
	 * mean so far (elapsed/256 * wcount > wticks, in 128 bits) was most
	 * likely preempted, and weighting that by its span would add
	 * milliseconds that the calls let through never spent. The reader's
	 * count/wcount scaling fills the rest of its span at the mean. Mixed
	 * call lengths below a millisecond (a 5 us call among 3 ns ones) keep
	 * their weight: judged against a mean that is still low, they would
	 * otherwise hold it low.
	 */
.Lweighted:
	cmpq	sc_outlier_ticks(%rip), %rdx
	jbe	3f
	pushq	%rax				/* the P interval, kept */
	.cfi_adjust_cfa_offset 8
	pushq	%rdx
	.cfi_adjust_cfa_offset 8
	movq	%rdx, %rax
	shrq	$8, %rax
	mulq	RC_WCOUNT(%r11)			/* rdx:rax = elapsed/256 * wcount */
	testq	%rdx, %rdx
	jnz	1f
	cmpq	RC_WTICKS(%r11), %rax
	jbe	2f
1:	movl	$1, %edi
2:	popq	%rdx
	.cfi_adjust_cfa_offset -8
	popq	%rax
	.cfi_adjust_cfa_offset -8
3:	addq	%rdi, RC_WCOUNT(%r11)
	imulq	%rdi, %rax
	addq	%rax, RC_WPTICKS(%r11)
	movq	%rdx, %rax
	imulq	%rdi, %rax			/* rax = elapsed * w */
	addq	%rax, RC_WTICKS(%r11)
	jmp	.Lw_done

.Lwait_leave:					/* the waiting thread runs again */
	movq	$1, %rdi
	call	sc_pclock_step
	subq	FR_P(%rcx), %rax
	jmp	.Lp_have

	/*
	 * k changed during the call: P(now) less P at entry, which is the
	 * state seen then ({FR_P, FR_TK}) carried forward to FR_TSC. r11 is
	 * free until .Lp_have loads the record.
	 */
.Lp_changed:
	PREAD	%r11				/* rax = P(now) */
	pushq	%rax
	.cfi_adjust_cfa_offset 8
	movq	FR_TSC(%rcx), %rax
	subq	sc_pclock_base(%rip), %rax
	shrq	$PC_TSHIFT, %rax
	shlq	$16, %rax
	movq	FR_TK(%rcx), %rdi
	movzwl	%di, %edx
	subq	%rdi, %rax
	addq	%rdx, %rax
	jns	1f
	xorl	%eax, %eax
1:	PSCALE	%r11
	addq	FR_P(%rcx), %rax		/* P at entry */
	movq	%rax, %rdx
	popq	%rax
	.cfi_adjust_cfa_offset -8
	subq	%rdx, %rax
	jae	.Lp_have
	xorl	%eax, %eax
	jmp	.Lp_have

	/*
	 * The trampoline's two calls into C, with everything live saved
	 * (rdx = now, rcx = the frame or 0, r8 and r9 the return values; the
	 * rest is free here): the C function gets its arguments from SETUP,
	 * may return the frame to use in rax (KEEP = 0), and the return goes
	 * on at .Lret_have.
	 */
.macro RET_CALL fn, setup, keep
	pushq	%rdx				/* 8(%rbp): now */
	pushq	%rbp
	movq	%rsp, %rbp
	pushq	%r9
	pushq	%rcx				/* -16(%rbp): the frame */
	pushq	%r8
	movl	sc_xsave_size(%rip), %eax
	subq	%rax, %rsp
	andq	$-64, %rsp
	call	sc_save_ext
	\setup
	call	\fn
	.if \keep == 0
	movq	%rax, -16(%rbp)
	.endif
	call	sc_restore_ext
	leaq	-24(%rbp), %rsp
	popq	%r8
	popq	%rcx
	popq	%r9
	popq	%rbp
	popq	%rdx
	movq	sc_tls_thread@gottpoff(%rip), %r10
	movq	%fs:(%r10), %r10
	jmp	.Lret_have
.endm

	/* an API this one tail-called ends now: sc_tail_credit(frame, now),
	 * which clears FR_TREC, then the return goes on as usual */
.Lret_tail:
	RET_CALL sc_tail_credit, "movq -16(%rbp), %rdi; movq 8(%rbp), %rsi", 1

	/* the top frame is not ours: sc_ret_lookup(slot) finds it (the slot
	 * is the return point's rsp - 8: rbp + 8) */
.Lret_slow:
	RET_CALL sc_ret_lookup, "leaq 8(%rbp), %rdi", 0
	.cfi_endproc
END(sc_return_trampoline)

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
