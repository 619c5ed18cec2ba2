/*
 * pclock.c - the parallel clock: how much of the process's critical time
 * has passed (the paper's serial vs parallel attribution, section 3.4).
 *
 * P advances at 1/k of the TSC rate while k threads of the process are
 * running, i.e. alive and not blocked in a Wait API (the wait_names table
 * in shadow.c), and stands still while none is. The P interval of a call
 * is then its share of the critical time: a call made while four threads
 * run counts a quarter of its length, one made alone counts fully. Per
 * thread, P over its life minus P over its waits is its attributed
 * effective time; summed over threads that is the critical time.
 *
 * A thread counts as running only while it is on a CPU. k cannot follow
 * preemptions as they happen (a preempted thread cannot step the clock),
 * so where every thread's context switches are measured (perf.c) the
 * clock takes k as at most the CPUs the process may run on
 * (sc_pclock_kmax: no more threads than that can be on a CPU at once),
 * and each thread's preempted gaps, like its blocked ones, are taken off
 * its share afterwards (perf.c). Four busy threads on two CPUs: P moves
 * at 1/2, each is on a CPU half the span, and is attributed a quarter.
 * Without the measurement a preempted thread keeps its share, and k is
 * not capped (the shares of k threads on fewer CPUs add up to the span).
 *
 * The state and its lock-free update live in arch/x86_64/pclock.S (asm.h: how it is read)
 * (sc_pclock_step, PREAD); this file owns the globals, the reciprocal
 * table and the changes of k that C code makes (threads starting and
 * ending, a fork child starting with one thread).
 */
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime.h"

/* {P, tk}, replaced whole by cmpxchg16b: must be 16-byte aligned. */
SC_HIDDEN struct sc_pclock sc_pclock __attribute__((aligned(16)));
SC_HIDDEN uint64_t sc_pclock_base;
/* sc_recip[k] = 2^16 / k: a multiply instead of a divide on the hot path.
 * A constant table, written out by the compiler: in .rodata it is part of
 * the file, shared by every process, and only the pages of the k that
 * occur are ever read in, where a table filled in at start-up would be
 * private memory in every process. Beyond PC_RECIP_MAX threads k is
 * taken as PC_RECIP_MAX. */
#define RECIP1(k) ((k) ? (uint32_t)((1u << 16) / (k)) : 0u)
#define RECIP4(k) RECIP1(k), RECIP1((k) + 1), RECIP1((k) + 2), RECIP1((k) + 3)
#define RECIP16(k) RECIP4(k), RECIP4((k) + 4), RECIP4((k) + 8), RECIP4((k) + 12)
#define RECIP64(k) RECIP16(k), RECIP16((k) + 16), RECIP16((k) + 32), RECIP16((k) + 48)
#define RECIP256(k) RECIP64(k), RECIP64((k) + 64), RECIP64((k) + 128), RECIP64((k) + 192)
#define RECIP1024(k) RECIP256(k), RECIP256((k) + 256), RECIP256((k) + 512), RECIP256((k) + 768)
SC_HIDDEN const uint32_t sc_recip[PC_RECIP_MAX + 1] = {
	RECIP1024(0), RECIP1024(1024), RECIP1024(2048), RECIP1024(3072),
};
_Static_assert(PC_RECIP_MAX + 1 == 4096, "sc_recip is written out for 4096 k");
/* The k the clock's rate is taken at, at most (see above). */
SC_HIDDEN uint32_t sc_pclock_kmax = PC_RECIP_MAX;
/* Calls of may-block APIs longer than this are counted as blocked. */
SC_HIDDEN uint64_t sc_block_ticks = ~0ull;
/* A sampled call longer than this (and far above its API's mean) is
 * taken as preempted: it stands only for itself (trampoline.S). */
SC_HIDDEN uint64_t sc_outlier_ticks = ~0ull;
/* TSC ticks per ms (0 until start-up measured them), for timers of the
 * runtime's own that need no clock read (patch.c) */
SC_HIDDEN uint64_t sc_ms_ticks;

_Static_assert(offsetof(struct sc_pclock, p) == PC_P, "PC_P");
_Static_assert(offsetof(struct sc_pclock, tk) == PC_TK, "PC_TK");

void sc_pclock_init(uint64_t tsc_hz)
{
	/*
	 * The clock starts at t = 1, not 0, so that its state tk is never 0
	 * (k >= 1 whenever a thread that is not waiting reads it, and t only
	 * comes back to 0 for 16 ticks after 2^52, ~20 days): a shadow frame
	 * holding tk = 0 is a Wait's (intercept.S), also for calls timed before
	 * the first thread joins the clock (the start-up calibration).
	 */
	sc_pclock_base = sc_rdtsc() - (1u << PC_TSHIFT);
	sc_pclock.p = 0;
	sc_pclock.tk = 1u << 16;
	/* 10 us: longer than any call of read/recv/lock that did not sleep
	 * (a wake-up alone costs a few us), shorter than most that did */
	sc_block_ticks = tsc_hz / 100000;
	sc_outlier_ticks = tsc_hz / 1000;
	sc_ms_ticks = tsc_hz / 1000;
}

/* fork child: only the forking thread exists now. P goes on from where
 * it was, so the child's frames of calls in flight keep their meaning. */
void sc_pclock_after_fork(void)
{
	uint64_t now = sc_rdtsc();
	uint64_t p = sc_pclock_step(0, now);
	sc_pclock.p = p;
	sc_pclock.tk = ((now - sc_pclock_base) >> PC_TSHIFT) << 16;
}

/* P when the call of frame f began: a Wait keeps it in f->p, any other
 * call the clock's state then ({p, tk}), carried forward to f->tsc. */
uint64_t sc_pclock_entry(const struct sc_frame *f)
{
	if (f->tk == 0)
		return f->p;
	uint64_t t = f->tk >> 16, k = f->tk & 0xffff;
	uint64_t now_t = (f->tsc - sc_pclock_base) >> PC_TSHIFT;
	uint64_t dt = ((now_t - t) & ((1ull << 48) - 1)) << PC_TSHIFT;
	if ((now_t - t) & (1ull << 47))
		dt = 0;                 /* the state is newer than the entry */
	return f->p + sc_pclock_share(dt, k);
}

/* The clock's advance over `ticks` while k threads run. */
uint64_t sc_pclock_share(uint64_t ticks, uint64_t k)
{
	uint32_t kmax = __atomic_load_n(&sc_pclock_kmax, __ATOMIC_RELAXED);
	if (k > kmax)
		k = kmax;
	return (uint64_t)(((unsigned __int128)ticks * sc_recip[k]) >> 16);
}

/* How many CPUs the process may use, 0 if unknown. The system call, not
 * glibc's sched_getaffinity and CPU_COUNT: their code is two pages of libc
 * that a small program never touches, each a page fault in every process
 * (doc/performance.md). */
static uint32_t affinity_count(void)
{
	uint64_t set[16] = {0};         /* 1024 CPUs, as cpu_set_t */
	long got = syscall(SYS_sched_getaffinity, 0, sizeof(set), set);
	uint32_t n = 0;
	/* bit by bit, not __builtin_popcountll: without -mpopcnt that is
	 * libgcc's __popcountdi2, linked at the end of the code, on a page
	 * (a page fault) no other start-up code shares */
	for (long i = 0; i < got / 8 && i < 16; i++)
		for (uint64_t w = set[i]; w; w &= w - 1)
			n++;
	return n;
}

/*
 * A thread starts, its preemptions measured or not (perf.c). The first
 * thread's measurement caps k at the CPUs the process may use (its
 * affinity then: a later change is not followed); a thread without one
 * lifts the cap for good, its preempted time being counted as running.
 * The clock is stepped to now first, so that the new rate applies only
 * from now on.
 */
void sc_pclock_oncpu(bool measured)
{
	static bool seen;
	uint32_t kmax = PC_RECIP_MAX;
	if (measured && !__atomic_exchange_n(&seen, true, __ATOMIC_RELAXED)) {
		uint32_t n = affinity_count();
		if (n > 0 && n < PC_RECIP_MAX)
			kmax = n;
	} else if (measured) {
		return;
	}
	__atomic_store_n(&seen, true, __ATOMIC_RELAXED);
	if (__atomic_load_n(&sc_pclock_kmax, __ATOMIC_RELAXED) == kmax)
		return;
	sc_pclock_step(0, sc_rdtsc());
	__atomic_store_n(&sc_pclock_kmax, kmax, __ATOMIC_RELAXED);
}
