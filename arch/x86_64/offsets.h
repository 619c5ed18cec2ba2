/*
 * offsets.h - struct layouts shared between the C runtime and its assembly (*.S).
 *
 * The assembly cannot see C structs, so every field it touches is named
 * here once; src/runtime/runtime.h static-asserts each offset against the C
 * definition, so a change on one side that is not made on the other fails
 * the build instead of corrupting a program.
 */
#ifndef SCALER_X86_64_OFFSETS_H
#define SCALER_X86_64_OFFSETS_H

/* struct sc_thread (src/runtime/runtime.h) */
#define TH_RECS     0   /* struct sc_rec *: counter array of this thread */
#define TH_CAP      8   /* entries usable in recs; 0 while the thread is busy */
#define TH_SP       16  /* next free shadow frame */
#define TH_SPEND    24  /* one past the last shadow frame */
#define TH_SPBASE   32  /* first shadow frame */
#define TH_LAST     40  /* uint64_t *: last_tsc in the thread file header */
#define TH_OVH_HOT  48  /* ticks taken off a call timed after a timed one */
#define TH_OVH_COLD 56  /* ... off a call sampled after untimed ones */
#define TH_NESTED   64  /* ticks a timed call adds to its timed caller */
#define TH_OWN_IN   72  /* ... more, inside a call from its own object (fnown.S) */
#define TH_OWN_OUT  80  /* ... more, that call adds to its timed caller */
#define TH_RECAL    88  /* TSC deadline for re-measuring the five */
#define TH_RNG      96  /* state of the span draws (span.c) */
#define TH_RING     104 /* the thread's perf ring (perf.c), or 0 */
#define TH_RTAIL    112 /* how far the runtime has read it */
#define TH_KRING    120 /* the per-CPU kernel sample ring of its CPU (kcpu.c), or 0 */
#define TH_KHEAD    128 /* its data_head when last read */
#define RING_HEAD   1024 /* data_head in the ring's first page
			    (struct perf_event_mmap_page) */

/* struct sc_frame: one per timed call in flight */
#define FR_RET      0   /* the caller's real return address */
#define FR_SLOT     8   /* where it was on the stack (rsp at API entry) */
#define FR_TSC      16  /* TSC when the API was entered, moved on by what
			   timing its nested calls cost inside it */
#define FR_REC      24  /* struct sc_rec * to charge */
#define FR_CHILD    32  /* ticks of timed calls nested inside this one */
#define FR_P        40  /* parallel clock state (see FR_TK) at entry */
#define FR_TK       48  /* clock state at entry (FR_P: its P); 0 for a Wait
			   (its thread stopped running), whose FR_P is the
			   clock itself */
#define FR_TREC     56  /* struct sc_rec * of an API it tail-called, or 0 */
#define FR_TTSC     64  /* TSC of that tail call */
#define FR_PEND     72  /* nonzero when the next five hold figures that
			   perf.c gave this call before its return */
#define FR_OFFB     80  /* ticks off-CPU blocked (perf.c) */
#define FR_OFFP     88  /* ... preempted */
#define FR_KERN     96  /* ... on-CPU in the kernel (samples) */
#define FR_OFFI     104 /* ticks off-CPU in it and the calls it holds */
#define FR_XPRE     112 /* preempted ticks of untimed nested calls (perf.c) */
#define FR_MOVED    120 /* ticks FR_TSC was moved on by nested returns */
#define FR_T0       128 /* TSC read at entry, never moved (perf.c) */
#define FR_TREC2    136 /* the API FR_TREC's tail-called in turn, or 0:
			   valid while FR_TREC is set */
#define FR_TTSC2    144 /* TSC of that tail call */
#define FR_SIZE     152

/* struct sc_rec (src/common/format.h) */
#define RC_COUNT    0
#define RC_TIMED    8
#define RC_TICKS    16
#define RC_COUNTDOWN 24
#define RC_PERIOD   28
#define RC_WTICKS   32
#define RC_WCOUNT   40
#define RC_SELF     48
#define RC_MAX      56
#define RC_WPTICKS  64
#define RC_WBLOCK   72
#define RC_DUP      80
#define RC_MAXTSC   88
#define RC_WBLOCKED 96
#define RC_WPREEMPT 104
#define RC_WKERNEL  112
#define RC_HIST     128 /* uint32_t[RC_NHIST] */
#define RC_NHIST    29
#define RC_HIST_LOG2_MIN 6  /* bucket floor(log2(ticks >> this)) */
#define RC_SPAN     244
#define RC_SHIFT    8   /* sizeof(struct sc_rec) == 1 << RC_SHIFT */

/* struct sc_entry: global table indexed by shadow entry index */
#define EN_TARGET   0   /* where the call really goes */
#define EN_FLAGS    8   /* SC_ENT_* from format.h */
#define EN_EDGE     12  /* uint32_t: its edge key (sc_same_edge) */
#define EN_SHIFT    4   /* sizeof(struct sc_entry) == 1 << EN_SHIFT */
#define EN_MAX      (1 << 20) /* SC_MAX_ENTRIES: the table's length */

/* struct sc_import: global table indexed by import number */
#define HK_BOUND    12  /* uint32_t: low HK_IDX_BITS its entry index + 1,
			   0 until bound; flags above */
#define HK_IDX_BITS 21  /* > log2(SC_MAX_ENTRIES + 1) */
#define HK_SHIFT    4   /* sizeof(struct sc_hook) == 1 << HK_SHIFT */

/* entry flags the assembly tests (same values as SC_ENT_* in format.h) */
#define ASM_ENT_NOTIME 8
#define ASM_ENT_UNWIND 32
#define ASM_ENT_WAIT   64
#define ASM_ENT_ARGS   1024 /* --args: values captured (args_hot.c) */

/* FR_TREC of a frame whose return value --args wants (SC_ARGS_RET_TAG) */
#define FR_ARGS_TAG 1

/* reasons passed to sc_slow() */
#define SLOW_NOTHREAD 1 /* no thread context yet: create one */
#define SLOW_NOREC    2 /* index beyond this thread's array, or busy */
#define SLOW_UNWIND   3 /* an unwinder is about to walk the stack */
#define SLOW_STALE    5 /* top shadow frame is not above this call: abandoned? */
#define SLOW_TAIL     6 /* untimed entry tail-called from a timed call */
#define SLOW_BIND     7 /* first call through an import (r11 = its number) */
#define SLOW_FUNC     8 /* a patched function called from another object
			     (r11 = its number: functions.c) */

/* sc_slow() answers */
#define SLOW_REDISPATCH 0 /* run the interceptor again */
#define SLOW_BYPASS     1 /* jump to the target, neither counted nor timed */
#define SLOW_UNTIMED    2 /* counted already: jump to the target */
/* any larger answer is an address: jump there, registers as at entry */

/* struct sc_pclock (the parallel clock): 16-byte aligned, updated whole
 * by cmpxchg16b. tk = ((tsc - base) >> PC_TSHIFT) << 16 | running threads */
#define PC_P        0
#define PC_TK       8
#define PC_TSHIFT   4
#define PC_RECIP_MAX 4095 /* sc_recip[k] = 2^16 / k for k <= this */

/* sc_span_geo (src/runtime/span.c): row k - SC_SPAN_KMIN holds the
 * geometric spans of mean p = 2^k - 1, 256 uint16_t each */
#define SC_SPAN_KMIN 2
#define SC_SPAN_KMAX 5
#define SC_SPAN_ROWS (SC_SPAN_KMAX - SC_SPAN_KMIN + 1)
/* the span draws' generator: x = x * A + 1 (mod 2^64), top 8 bits */
#define SC_SPAN_LCG_A 6364136223846793005
/* the longest period of an API whose time is mostly in long calls
 * (trampoline.S, slow.c) */
#define SC_PERIOD_LONG 7

/*
 * The extended state components sc_save_ext leaves out (XCR0 bits): AMX's
 * tile configuration and tile data, which no code of the runtime can
 * change (it never runs AMX instructions), so that they keep their
 * values unsaved. Saved, their 8 KB of standard-format area were a save
 * of zeros on every call into C from the interceptor (a program without
 * permission to use AMX keeps them in their initial state) and two more
 * pages of stack a fork child copies at its first call.
 */
#define XS_SKIP     ((1 << 17) | (1 << 18))

/* An import's stub: endbr64; mov $n,%r11d; jmp *common(%rip) */
#define HOOK_STUB_SIZE 16
/* A shadow entry's code: its whole counted path (arch.h) */
#define ENTRY_CODE_SIZE 64

#endif
