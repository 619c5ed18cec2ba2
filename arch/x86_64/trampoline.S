/*
 * trampoline.S - the return trampoline that ends a timed call: it books
 * the call (time, weight, parallel clock share, histogram), draws the
 * record's next span and returns to the caller.
 */
#include "asm.h"

	.text

/*
 * Return trampoline: a timed API returns here instead of to its caller.
 *
 * It gets there by a real call, not by a return address overwritten on
 * the stack: sc_return_trampoline drops the caller's return address (the
 * timed path saved it in the shadow frame) and calls the API, whose
 * return address then sits in the same slot, so the API sees the stack
 * (arguments, alignment) exactly as its caller left it. The point is the
 * return stack buffer: call and ret pair up twice (the caller's call with
 * our final ret, our call with the API's ret), so both returns are
 * predicted, where an overwritten return address would make the API's
 * `ret` mispredicted on every timed call. A CET shadow stack stays
 * consistent too.
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
 * touched on the fast path. Nothing is saved to memory: each save would
 * be a store and a load on every timed call. The only callees whose
 * callers expect more, mcount and its kin (called from prologues
 * with the arguments live), read their return address and are never timed
 * (peek.c finds them; shadow.c also lists them by name).
 *
 * The top shadow frame normally belongs to this return (its slot is where
 * our return address was, i.e. rsp-8 here); when it does not (a longjmp or
 * a vfork child left frames behind) sc_ret_lookup finds ours and drops the
 * dead ones above it.
 */

/*
 * sc_same_edge: the call of frame rcx (record r11, thread r10) returned,
 * standing for rax ticks (elapsed * w) in the calls it is nested in. The
 * nearest frame below whose entry is on the same edge (its EN_EDGE: the
 * same caller and callee objects, nonzero) adds them to its record's
 * dup_ticks: that call's time holds this one's, and an edge's time counts
 * it once (a comparator's strcmp inside qsort, a signal handler's calls
 * inside a blocking one). Called on every timed return, with frames below
 * or not, so that the calibration's timed calls (calib.c: their entries'
 * key matches none) measure what it costs; keeps every register but the
 * flags. A frame whose record is no entry of this thread's (a fork
 * child's inherited calls) is on no edge.
 */
	.type sc_same_edge,@function; .p2align 4
sc_same_edge:
	.cfi_startproc
	pushq	%rdi
	.cfi_adjust_cfa_offset 8
	pushq	%rsi
	.cfi_adjust_cfa_offset 8
	pushq	%rdx
	.cfi_adjust_cfa_offset 8
	movq	%r11, %rdi
	subq	TH_RECS(%r10), %rdi
	shrq	$RC_SHIFT, %rdi
	cmpq	$EN_MAX, %rdi
	jae	3f
	shlq	$EN_SHIFT, %rdi
	addq	sc_entry_table(%rip), %rdi
	movl	EN_EDGE(%rdi), %edx		/* edx = this call's edge */
	testl	%edx, %edx
	jz	3f
	movq	%rcx, %rdi
1:	subq	$FR_SIZE, %rdi			/* the next frame below */
	cmpq	TH_SPBASE(%r10), %rdi
	jb	3f
	movq	FR_REC(%rdi), %rsi
	subq	TH_RECS(%r10), %rsi
	shrq	$RC_SHIFT, %rsi
	cmpq	$EN_MAX, %rsi
	jae	1b
	shlq	$EN_SHIFT, %rsi
	addq	sc_entry_table(%rip), %rsi
	cmpl	%edx, EN_EDGE(%rsi)
	jne	1b
	movq	FR_REC(%rdi), %rsi
	addq	%rax, RC_DUP(%rsi)
3:	popq	%rdx
	.cfi_adjust_cfa_offset -8
	popq	%rsi
	.cfi_adjust_cfa_offset -8
	popq	%rdi
	.cfi_adjust_cfa_offset -8
	ret
	.cfi_endproc
	.size sc_same_edge, .-sc_same_edge

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
	/* fnown.S's return point enters here, the TSC read already: the
	 * return values in r8 and r9, rdx = now */
	.globl sc_return_point_now; .hidden sc_return_point_now
sc_return_point_now:
	movq	sc_fork_mark(%rip), %r10	/* zero: a raw fork's child (rawfork.c) */
	cmpq	$0, (%r10)
	je	.Lret_forked
.Lret_lookup:
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
	cmpq	$0, TH_RING(%r10)		/* the kernel's records: perf.c */
	jne	.Lret_ring
.Lring_done:
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
	 * Estimator: this call was timed with probability 1/p, p the period
	 * in force when its span was drawn (the spans are geometric: span.c),
	 * so it stands for p calls: every sum is also kept times w = p
	 * (wcount += w), which makes each sum unbiased whatever the calls
	 * took. Not the span that ended here: its length was decided by the
	 * previous timed call's, and a long span ending at the first call of
	 * a slow phase would be weighted as if all of it were slow. A
	 * never-timed record has period 0 and stands for itself: w = 1, the
	 * case of every call in `all` mode and after slow calls, done here
	 * without multiplying; w > 1 is .Lweighted.
	 */
	movl	RC_PERIOD(%r11), %edi
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
	call	sc_same_edge			/* the nearest on its edge */
	cmpq	TH_SPBASE(%r10), %rcx
	jbe	2f
	addq	%rax, (FR_CHILD - FR_SIZE)(%rcx)
	/* and the interceptor's cost of timing this call is not its time:
	 * its start moves on by that much, and by what this call's start
	 * was moved on by (the cost of timing the calls nested in it, which
	 * lay in the caller's interval too but are out of this call's
	 * elapsed time: left there, they were the caller's self time) */
	movq	TH_NESTED(%r10), %rax
	addq	FR_MOVED(%rcx), %rax
	addq	%rax, (FR_TSC - FR_SIZE)(%rcx)
	addq	%rax, (FR_MOVED - FR_SIZE)(%rcx)
2:	movq	%rdx, %rax
	subq	FR_CHILD(%rcx), %rax
	addq	%rax, RC_SELF(%r11)
	cmpq	RC_MAX(%r11), %rdx
	jbe	1f
	movq	%rdx, RC_MAX(%r11)
	movq	FR_TSC(%rcx), %rax		/* where the longest call began */
	movq	%rax, RC_MAXTSC(%r11)
1:	/* histogram: bucket floor(log2(ticks / 2^RC_HIST_LOG2_MIN)),
	 * 0..RC_NHIST-1, += w saturating (a wrapped counter would lie; a
	 * full one only stops) */
	movq	%rdx, %rax
	shrq	$RC_HIST_LOG2_MIN, %rax
	orq	$1, %rax
	bsrq	%rax, %rax
	cmpl	$(RC_NHIST - 1), %eax
	jbe	1f
	movl	$(RC_NHIST - 1), %eax
1:	addl	%edi, RC_HIST(%r11,%rax,4)
	jc	.Lhist_full
.Lh_done:
	/*
	 * Next period p: a slow call, and every Wait API, is always followed
	 * by a timed one (a Wait must be seen entering and leaving, for the
	 * parallel clock); a cheap one doubles the period (2p+1: 1, 3, 7,
	 * ... sc_period_max) until timing one call in p costs little beside
	 * the calls themselves: p * mean >= sc_period_budget, the mean being
	 * wticks / wcount, compared as p * wticks >= budget * wcount. Past
	 * that the period stays, and halves ((p-1)/2 = p >> 1) while the
	 * half still meets the budget. A cheap API (an empty function: mean
	 * ~0 after calibration) still goes to sc_period_max; one whose calls
	 * average 100 ns stops at 15, so its rare long calls, where the
	 * sampling error comes from, are seen more often. The mean leaves out
	 * the time the calls were preempted (wpreempt, when perf.c measures
	 * it): that is no cost of the API's, and one empty call preempted for
	 * 30 ms would hold the mean over the budget for millions of calls
	 * and the period near 1. sc_period_min/max
	 * encode the mode: all = 1/1, none = MAX/MAX. In `all` the answer is always 1 and the span
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
	subq	RC_WPREEMPT(%r11), %rdi		/* on the CPU */
	jae	1f
	xorl	%edi, %edi
1:	imulq	%rax, %rdi			/* rdi = p * wticks */
	jo	.Lp_set				/* a mean that large: keep p */
	cmpq	%rdx, %rdi
	jae	.Lp_enough
	leal	1(%rax,%rax), %eax
	cmpl	sc_period_max(%rip), %eax
	cmoval	sc_period_max(%rip), %eax
	jmp	.Lp_set
3:	movl	$1, %eax
.Lp_set:
	/*
	 * An API whose time is mostly in long calls (over the blocking
	 * threshold: wblock > wticks / 2) keeps p <= SC_PERIOD_LONG. Each
	 * long call it lets through untimed is missing from the sum, and the
	 * one timed stands for p: where long calls come in runs (a slow
	 * phase, a contended lock) the error of a run's first calls is about
	 * p of them, and it is the bulk of such an API's time. Its short
	 * calls are then timed one in up to 7, which costs little beside
	 * what its long calls take. Both sides leave out the time preempted
	 * (wpreempt): a call made long by a preemption is no slow phase, and
	 * one empty call preempted for 20 ms held an API of a million calls
	 * at 7 to its end. And the long calls must hold more a call than
	 * the cap costs one (timing one call in 7, not 31: ~7 ticks a call,
	 * budget / 512): an empty function whose calls book ~0 held at 7 by
	 * one call an interrupt made long cost 3x its counted figure.
	 */
	cmpl	$SC_PERIOD_LONG, %eax
	jbe	7f
	movq	RC_WTICKS(%r11), %rdx
	subq	RC_WPREEMPT(%r11), %rdx
	jb	7f
	shrq	$1, %rdx
	movq	RC_WBLOCK(%r11), %rdi
	subq	RC_WPREEMPT(%r11), %rdi
	jb	7f
	cmpq	%rdx, %rdi
	jbe	7f
	movq	RC_WCOUNT(%r11), %rdx		/* and they hold more a call */
	imulq	sc_period_budget(%rip), %rdx	/* than the cap costs one */
	shrq	$9, %rdx
	cmpq	%rdx, %rdi
	jbe	7f
	movl	$SC_PERIOD_LONG, %eax
7:	cmpl	sc_period_min(%rip), %eax
	cmovbl	sc_period_min(%rip), %eax
	movl	%eax, RC_PERIOD(%r11)
	/*
	 * The next span is drawn from the geometric law of mean p
	 * (sc_span_geo, span.c: row k for p = 2^k - 1), so that each call
	 * is the timed one with the same chance 1/p wherever it falls
	 * (which the weight above relies on), and no fixed stride can lock
	 * onto a periodic pattern in the program's calls. The draw is the
	 * top 8 bits of the thread's own generator (span.c), not a hash of
	 * the TSC: with calls of regular length, the TSC at the next timed
	 * return follows from the span drawn, and the draws fed on
	 * themselves (spans 20 % shorter than drawn for). p = 1 gives 1;
	 * "none" (p >= 2^16) takes p.
	 */
	cmpl	$1, %eax
	je	5f
	cmpl	$0xffff, %eax
	ja	5f
	leal	1(%rax), %edx
	bsrl	%edx, %edx			/* k = log2(p + 1) */
	movl	$SC_SPAN_KMIN, %edi
	cmpl	%edi, %edx
	cmovbl	%edi, %edx
	movl	$SC_SPAN_KMAX, %edi
	cmpl	%edi, %edx
	cmoval	%edi, %edx
	shll	$8, %edx
	movabsq	$SC_SPAN_LCG_A, %rdi
	imulq	TH_RNG(%r10), %rdi
	incq	%rdi
	movq	%rdi, TH_RNG(%r10)
	shrq	$56, %rdi			/* u in 0 .. 255 */
	addl	%edi, %edx			/* k * 256 + u */
	leaq	sc_span_geo(%rip), %rdi
	movzwl	-(SC_SPAN_KMIN * 512)(%rdi,%rdx,2), %eax
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
	subq	RC_WPREEMPT(%r11), %rax
	jae	2f
	xorl	%eax, %eax
2:	imulq	%rdi, %rax
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

	/* k > 1 (or 0): the share is elapsed * sc_recip[min(k, kmax)] / 2^16 */
.Lp_shared:					/* rax = elapsed, rdi = tk */
	movzwl	%di, %edx
	cmpl	sc_pclock_kmax(%rip), %edx
	jbe	1f
	movl	sc_pclock_kmax(%rip), %edx
1:	leaq	sc_recip(%rip), %r11
	movl	(%r11,%rdx,4), %edx
	mulq	%rdx
	shrdq	$16, %rdx, %rax
	jmp	.Lp_have

	/*
	 * w > 1 (rax = the P interval, rdx = elapsed, rdi = p). An outlier
	 * stands only for itself: a call over 1 ms (sc_outlier_ticks, a
	 * scheduler time slice is a few) and over 256 times this record's
	 * mean so far (elapsed/256 * wcount > wticks, in 128 bits) was most
	 * likely preempted, and weighting that by p would add
	 * milliseconds that the calls let through never spent. The reader's
	 * count/wcount scaling fills the rest of its weight at the mean. Mixed
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

	/*
	 * The waiting thread runs again. The Wait's share of the clock
	 * (rax) passed while this thread was not running: it is no part of
	 * the timed calls around it either, whose entry P moves on by it
	 * (their share is P now less P at entry; a Wait around it, which
	 * holds P itself, keeps it: the thread was not running then either).
	 * The clock's state has changed since they began (the thread left
	 * and rejoined), so their returns take .Lp_changed, which reads
	 * FR_P.
	 */
.Lwait_leave:
	movq	$1, %rdi
	call	sc_pclock_step
	subq	FR_P(%rcx), %rax
	movq	%rcx, %rdi
1:	cmpq	TH_SPBASE(%r10), %rdi
	jbe	.Lp_have
	subq	$FR_SIZE, %rdi
	cmpq	$0, FR_TK(%rdi)
	je	1b
	addq	%rax, FR_P(%rdi)
	jmp	1b

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
.macro RET_CALL fn, setup, keep, resume=.Lret_have
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
	jmp	\resume
.endm

	/* an API this one tail-called ends now: sc_tail_credit(frame, now),
	 * which clears FR_TREC, then the return goes on as usual */
.Lret_tail:
	cmpq	$FR_ARGS_TAG, FR_TREC(%rcx)
	je	.Lret_args
	RET_CALL sc_tail_credit, "movq -16(%rbp), %rdi; movq 8(%rbp), %rsi", 1

	/*
	 * --args wants this call's return value: sc_args_ret(frame, rax)
	 * (args_hot.c: general registers only, so only the live ones are
	 * saved; it clears the tag), then the return goes on as usual.
	 */
.Lret_args:
	pushq	%rbp
	movq	%rsp, %rbp
	pushq	%rcx
	pushq	%rdx
	pushq	%r8
	pushq	%r9
	pushq	%r10
	andq	$-16, %rsp
	movq	%rcx, %rdi
	movq	%r8, %rsi
	call	sc_args_ret
	movq	-40(%rbp), %r10
	movq	-32(%rbp), %r9
	movq	-24(%rbp), %r8
	movq	-16(%rbp), %rdx
	movq	-8(%rbp), %rcx
	movq	%rbp, %rsp
	popq	%rbp
	jmp	.Lret_have

	/*
	 * The thread has a perf ring (perf.c): when the kernel wrote records
	 * since the last look (context switches, kernel samples, or with
	 * per-CPU samples one on the ring of its CPU: kcpu.c), or this
	 * call was given figures at an earlier look, sc_perf_return(frame,
	 * now) hands the records to the calls they happened in and books
	 * this call's figures, weighted as the code above weights its time.
	 * A thread that has not opened its ring yet has perf.c's stand-in,
	 * whose head never equals the tail: each of its returns goes there.
	 */
.Lret_ring:					/* rcx = frame, rdx = now */
	movq	TH_RING(%r10), %rax
	movq	RING_HEAD(%rax), %rax
	cmpq	TH_RTAIL(%r10), %rax
	jne	.Lret_perf
	cmpq	$0, FR_PEND(%rcx)
	jne	.Lret_perf
	movq	TH_KRING(%r10), %rax
	testq	%rax, %rax
	je	.Lring_done
	movq	RING_HEAD(%rax), %rax
	cmpq	TH_KHEAD(%r10), %rax
	je	.Lring_done
.Lret_perf:
	RET_CALL sc_perf_return, "movq -16(%rbp), %rdi; movq 8(%rbp), %rsi", 1, .Lring_done

	/* the first timed return of a child made without the fork handlers,
	 * whose thread state is its parent's: sc_rawfork_adopt makes its own
	 * (the frames carried over), then the return starts over */
.Lret_forked:
	RET_CALL sc_rawfork_adopt, "", 1, .Lret_lookup

	/* the top frame is not ours: sc_ret_lookup(slot) finds it (the slot
	 * is the return point's rsp - 8: rbp + 8) */
.Lret_slow:
	RET_CALL sc_ret_lookup, "leaq 8(%rbp), %rdi", 0
	.cfi_endproc
END(sc_return_trampoline)

	.section .note.GNU-stack,"",@progbits
