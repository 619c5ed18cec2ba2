/*
 * init.c - start-up and shutdown of the runtime inside the profiled
 * process.
 *
 * Start-up (constructor, or scaler_attach in attach.c), in order: read
 * settings from the environment that `scaler record` set (or the call
 * that attached); reserve the shadow table; measure what the
 * interceptor adds to a timed call (or take what the parent image handed
 * down, inherit.c); open the meta file; hook every loaded object. Any failure leaves the program running unhooked with one line on
 * stderr. Shutdown (destructor, i.e. exit or return from main) records the
 * end time, which also gives the long-baseline TSC calibration.
 */
#include <cpuid.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "args.h"
#include "runtime.h"

/* glibc's, behind pthread_atfork; __dso_handle is crtbeginS.o's */
extern int __register_atfork(void (*)(void), void (*)(void), void (*)(void), void *);
extern void *__dso_handle;

SC_HIDDEN int sc_active;
SC_HIDDEN const char *sc_dir = "";
SC_HIDDEN int sc_timing_mode = SC_TIMING_ADAPTIVE;
SC_HIDDEN uint32_t sc_period_min = 1, sc_period_max = 31;
SC_HIDDEN uint64_t sc_slow_ticks = ~0ull;
/*
 * sc_period_max, 31 under adaptive timing: an API is timed one call in 31
 * at the least. Until it has shown a long call, its period is what its
 * short ones allow, and the first long calls it makes (the start of a
 * slow phase) are each missed with chance 1 - 1/p and weighted p when
 * seen. On the phased calls of issue 19 (bench/sampling.py, "phased")
 * one run's estimate was off by 12 % (one standard deviation) at 127,
 * 5 % at 63 and 2.4 % at 31, for what timing one call in 31 costs an
 * empty function: ~0.8 ns a call instead of ~0.2 (doc/performance.md).
 */
/*
 * Adaptive's period stops growing once period * (the API's mean call)
 * reaches this (1.25 us), so that timing one call in p costs a small,
 * bounded share of the time the API's calls take. APIs with short calls
 * still reach sc_period_max; those with longer ones are held below it,
 * where a longer period saves little and the sampling error costs the
 * most.
 */
SC_HIDDEN uint64_t sc_period_budget;
SC_HIDDEN uint32_t sc_xsave_size = 512;
SC_HIDDEN int sc_have_xsave;

void sc_meta_set_clock(uint64_t tsc, uint64_t mono, uint64_t hz, uint64_t overhead) SC_HIDDEN;

_Static_assert(offsetof(struct sc_thread, recs) == TH_RECS, "TH_RECS");
_Static_assert(offsetof(struct sc_thread, cap) == TH_CAP, "TH_CAP");
_Static_assert(offsetof(struct sc_thread, sp) == TH_SP, "TH_SP");
_Static_assert(offsetof(struct sc_thread, sp_end) == TH_SPEND, "TH_SPEND");
_Static_assert(offsetof(struct sc_thread, sp_base) == TH_SPBASE, "TH_SPBASE");
_Static_assert(offsetof(struct sc_thread, last_tsc) == TH_LAST, "TH_LAST");
_Static_assert(offsetof(struct sc_frame, trec) == FR_TREC, "FR_TREC");
_Static_assert(ASM_ENT_ARGS == SC_ENT_ARGS && SC_ARGS_RET_TAG == (struct sc_rec *)FR_ARGS_TAG &&
	       SC_ARGS_SLOTS <= 65535 && SC_ARGSPEC_MAX < 255 &&
	       (SC_ENT_ARGS << 1) <= (1u << (32 - HK_IDX_BITS)), "--args");
_Static_assert(offsetof(struct sc_frame, ttsc) == FR_TTSC, "FR_TTSC");
_Static_assert(offsetof(struct sc_frame, tk) == FR_TK, "FR_TK");
_Static_assert(offsetof(struct sc_frame, ret) == FR_RET, "FR_RET");
_Static_assert(offsetof(struct sc_frame, slot) == FR_SLOT, "FR_SLOT");
_Static_assert(offsetof(struct sc_frame, tsc) == FR_TSC, "FR_TSC");
_Static_assert(offsetof(struct sc_frame, rec) == FR_REC, "FR_REC");
_Static_assert(offsetof(struct sc_frame, child) == FR_CHILD, "FR_CHILD");
_Static_assert(offsetof(struct sc_frame, p) == FR_P, "FR_P");
_Static_assert(offsetof(struct sc_frame, pend) == FR_PEND, "FR_PEND");
_Static_assert(offsetof(struct sc_frame, off_blocked) == FR_OFFB, "FR_OFFB");
_Static_assert(offsetof(struct sc_frame, off_preempt) == FR_OFFP, "FR_OFFP");
_Static_assert(offsetof(struct sc_frame, kernel) == FR_KERN, "FR_KERN");
_Static_assert(offsetof(struct sc_frame, off_incl) == FR_OFFI, "FR_OFFI");
_Static_assert(offsetof(struct sc_frame, nested_preempt) == FR_XPRE, "FR_XPRE");
_Static_assert(offsetof(struct sc_frame, moved) == FR_MOVED, "FR_MOVED");
_Static_assert(offsetof(struct sc_frame, t0) == FR_T0, "FR_T0");
_Static_assert(offsetof(struct sc_frame, trec2) == FR_TREC2, "FR_TREC2");
_Static_assert(offsetof(struct sc_frame, ttsc2) == FR_TTSC2, "FR_TTSC2");
_Static_assert(offsetof(struct sc_thread, ring) == TH_RING, "TH_RING");
_Static_assert(offsetof(struct sc_thread, ring_tail) == TH_RTAIL, "TH_RTAIL");
_Static_assert(offsetof(struct sc_thread, kring) == TH_KRING, "TH_KRING");
_Static_assert(offsetof(struct sc_thread, khead) == TH_KHEAD, "TH_KHEAD");
_Static_assert(offsetof(struct sc_rec, wblocked) == RC_WBLOCKED, "RC_WBLOCKED");
_Static_assert(offsetof(struct sc_rec, wpreempt) == RC_WPREEMPT, "RC_WPREEMPT");
_Static_assert(offsetof(struct sc_rec, wkernel) == RC_WKERNEL, "RC_WKERNEL");
_Static_assert(sizeof(struct sc_frame) == FR_SIZE, "FR_SIZE");
_Static_assert(offsetof(struct sc_rec, count) == RC_COUNT, "RC_COUNT");
_Static_assert(offsetof(struct sc_rec, timed) == RC_TIMED, "RC_TIMED");
_Static_assert(offsetof(struct sc_rec, ticks) == RC_TICKS, "RC_TICKS");
_Static_assert(offsetof(struct sc_rec, countdown) == RC_COUNTDOWN, "RC_COUNTDOWN");
_Static_assert(offsetof(struct sc_rec, period) == RC_PERIOD, "RC_PERIOD");
_Static_assert(offsetof(struct sc_rec, wticks) == RC_WTICKS, "RC_WTICKS");
_Static_assert(offsetof(struct sc_rec, wcount) == RC_WCOUNT, "RC_WCOUNT");
_Static_assert(offsetof(struct sc_rec, self_ticks) == RC_SELF, "RC_SELF");
_Static_assert(offsetof(struct sc_rec, max_ticks) == RC_MAX, "RC_MAX");
_Static_assert(offsetof(struct sc_rec, wpticks) == RC_WPTICKS, "RC_WPTICKS");
_Static_assert(offsetof(struct sc_rec, wblock) == RC_WBLOCK, "RC_WBLOCK");
_Static_assert(offsetof(struct sc_rec, span) == RC_SPAN, "RC_SPAN");
_Static_assert(offsetof(struct sc_rec, max_tsc) == RC_MAXTSC, "RC_MAXTSC");
_Static_assert(offsetof(struct sc_rec, hist) == RC_HIST, "RC_HIST");
_Static_assert(offsetof(struct sc_rec, dup_ticks) == RC_DUP, "RC_DUP");
_Static_assert(SC_MAX_ENTRIES == EN_MAX, "EN_MAX");
_Static_assert(SC_REC_HIST == RC_NHIST, "RC_NHIST");
_Static_assert(SC_REC_HIST_LOG2_MIN == RC_HIST_LOG2_MIN, "RC_HIST_LOG2_MIN");
_Static_assert(sizeof(struct sc_rec) == (1u << RC_SHIFT), "RC_SHIFT");
_Static_assert(sizeof(struct sc_entry) == (1u << EN_SHIFT), "EN_SHIFT");
_Static_assert(offsetof(struct sc_entry, target) == EN_TARGET, "EN_TARGET");
_Static_assert(offsetof(struct sc_entry, flags) == EN_FLAGS, "EN_FLAGS");
_Static_assert(offsetof(struct sc_entry, edge) == EN_EDGE, "EN_EDGE");
_Static_assert(sizeof(struct sc_hook) == (1u << HK_SHIFT), "HK_SHIFT");
_Static_assert(offsetof(struct sc_hook, bound) == HK_BOUND, "HK_BOUND");
_Static_assert((1u << HK_IDX_BITS) > SC_MAX_ENTRIES && SC_MAX_OBJECTS <= 65536 &&
	       (SC_ENT_MAYBLOCK << 1) <= (1u << (32 - HK_IDX_BITS)), "struct sc_hook fields");
_Static_assert(SC_ENT_NOTIME == ASM_ENT_NOTIME && SC_ENT_UNWIND == ASM_ENT_UNWIND &&
	       SC_ENT_WAIT == ASM_ENT_WAIT, "flags");

static void detect_xsave(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d))
		return;
	/* XSAVE supported and enabled by the OS (OSXSAVE) */
	if ((c & (1u << 26)) && (c & (1u << 27)) && __get_cpuid_count(0xd, 0, &a, &b, &c, &d) && b) {
		/* the standard format's area up to the end of the last
		 * component saved (slowpath.S): the legacy area and the
		 * header, then each enabled one at its offset */
		uint32_t lo, hi, end = 576;
		__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
		uint64_t xcr0 = (uint64_t)hi << 32 | lo;
		for (unsigned i = 2; i < 64; i++)
			if ((xcr0 >> i & 1) && !((uint64_t)XS_SKIP >> i & 1) &&
			    __get_cpuid_count(0xd, i, &a, &b, &c, &d) && b + a > end)
				end = b + a;
		sc_have_xsave = 1;
		sc_xsave_size = end;
	}
	/* room for the alignment in sc_slowpath */
	sc_xsave_size += 64;
}

static uint64_t quick_tsc_hz(void)
{
	/* the first clock read of a process maps the vDSO's data page: it
	 * would fall inside the interval, ~6 % of 50 us, on one end only */
	sc_mono_ns();
	uint64_t t0 = sc_rdtsc(), m0 = sc_mono_ns(), m1;
	do
		m1 = sc_mono_ns();
	while (m1 - m0 < 50000);                /* 50 us: within ~0.1 %, as two clock
						   reads take ~40 ns; the end record
						   refines it */
	uint64_t t1 = sc_rdtsc();
	return (t1 - t0) * 1000000000ull / (m1 - m0);
}

/*
 * The command line, whole when it fits in a record; else cut after the
 * last argument that fits, with a last argument saying how many bytes
 * were cut (a build's compiler line can be 100 KB). Taken from the argv
 * glibc hands constructors: the strings /proc/self/cmdline would show
 * (the kernel's argument area, not yet changed by the program: the
 * preloaded runtime's constructors run before the program's), without
 * opening and reading it, a tenth of a small program's start-up here.
 */
static __attribute__((noinline)) void write_cmdline_copy(int argc, char **argv)
{
	char buf[SC_META_ROOM];
	size_t n = 0, more = 0;
	for (int i = 0; argv && i < argc && argv[i]; i++) {
		size_t len = strlen(argv[i]) + 1;
		size_t fit = len < sizeof(buf) - n ? len : sizeof(buf) - n;
		memcpy(buf + n, argv[i], fit);
		n += fit;
		more += len - fit;
	}
	if (n == sizeof(buf) && more == 0 && buf[n - 1] == 0) {
		sc_meta_add(SC_M_CMDLINE, buf, n, NULL);
		return;
	}
	if (n == sizeof(buf)) {
		char mark[64];
		size_t mlen = 0, keep = n - sizeof(mark);
		while (keep && buf[keep - 1] != 0)
			keep--;                         /* whole arguments only */
		mlen = (size_t)snprintf(mark, sizeof(mark), "[scaler: %zu bytes of the command "
					"line cut]", n - keep + more) + 1;
		memcpy(buf + keep, mark, mlen);
		n = keep + mlen;
	}
	if (n)
		sc_meta_add(SC_M_CMDLINE, buf, n, NULL);
}

/* As the kernel laid them out, the arguments are one after the other:
 * written from where they are when they fit (no 8 KB copy on the stack,
 * whose pages below what the program uses are each a page fault). */
static void write_cmdline(int argc, char **argv)
{
	size_t n = 0;
	for (int i = 0; argv && i < argc && argv[i]; i++) {
		if (argv[i] != argv[0] + n)
			break;
		n += strlen(argv[i]) + 1;
		if (n > SC_META_ROOM)
			break;
		if (i == argc - 1) {
			sc_meta_add(SC_M_CMDLINE, argv[0], n, NULL);
			return;
		}
	}
	write_cmdline_copy(argc, argv);
}

/* both locks across fork, in their order: the child's copies are free */
static void at_fork_prepare(void) { sc_lock(); sc_leaf_lock(); }
static void at_fork_parent(void) { sc_leaf_unlock(); sc_unlock(); }
/* A fork child's own state, made from its parent's: in the fork handler,
 * or for a child of a raw fork at its first timed return (rawfork.c). */
void sc_fork_child_setup(void)
{
	sc_lock_reset_child();
	if (sc_active && sc_attached)
		sc_attach_child();              /* only the process attached to */
	else if (sc_active) {
		char first[512];        /* the new meta file's first records */
		sc_pclock_after_fork();
		sc_objects_after_fork();
		/* now, while the child has its parent's rights: a worker
		 * may drop them before its thread's state is made */
		sc_kcpu_process();
		sc_meta_reopen_child(first, sizeof(first));
		sc_thread_after_fork();
		sc_control_after_fork();
		sc_meta_batch(false);   /* first's records, in one write */
	}
}

static void at_fork_child(void)
{
	/* unless a timed return in another library's fork handler, run
	 * before this one, made it already */
	if (sc_rawfork_claim())
		sc_fork_child_setup();
}

/*
 * Starts profiling into dir with the given timing mode ("all", "none",
 * anything else: adaptive); argv is the command line to record.
 * Preloaded, from the constructor before main; attached (sc_attached,
 * attach.c), from a call scaler record -p made in one of the program's
 * threads while the others run. 0 once hooked; -1 (one warning said)
 * leaves the program running unhooked.
 */
int sc_start(const char *dir, const char *timing, int argc, char **argv)
{
	sc_bind_self_to_libc();                 /* before any other libc call */
	size_t shadow_rw, shadow = sc_shadow_bytes(&shadow_rw);
	sc_mem_init(shadow, shadow_rw);         /* the shadow tables' room too */
	if (strlen(dir) >= 4000 || !(sc_dir = sc_mem_strdup(dir))) {
		sc_warn("SCALER_DIR too long; not profiling");
		return -1;
	}
	if (timing && !strcmp(timing, "all"))
		sc_timing_mode = SC_TIMING_ALL;
	else if (timing && !strcmp(timing, "none"))
		sc_timing_mode = SC_TIMING_NONE;
	if (!sc_attached)
		sc_exec_init();                 /* an attached process's new images run free */
	struct sc_inherited in;
	bool inherited = !sc_attached && sc_inherit_get(&in);
	if (inherited) {
		sc_have_xsave = in.have_xsave;
		sc_xsave_size = in.xsave_size;
	} else {
		detect_xsave();
	}
	if (sc_shadow_init() != 0)
		return -1;
	if (!sc_attached)
		sc_args_init();         /* attached: no --args (record -p refuses it) */
	uint64_t hz = inherited ? in.hz : quick_tsc_hz();
	sc_pclock_init(hz);
	switch (sc_timing_mode) {
	case SC_TIMING_ALL: sc_period_min = sc_period_max = 1; break;
	case SC_TIMING_NONE: sc_period_min = sc_period_max = 0x7fffffff; break;
	default:
		sc_period_min = 1;
		/* with record --kernel too: a kernel sample counts only
		 * inside a timed call (perf.c), but the calls that enter the
		 * kernel take 100 ns and more, which the budget below holds
		 * at a period of 15 or less already; a cap of 15 for all
		 * timed twice as many of the short user-space calls (memcpy,
		 * gettimeofday), +0.4-0.8 % of the servers' CPU
		 * (doc/performance.md) */
		sc_period_max = 31;
		sc_slow_ticks = hz / 1000000 * 2;     /* calls over 2 us: always timed */
		sc_period_budget = hz / 800000;       /* 1.25 us */
		break;
	}
	/* after the mode is set: the measured calls take its paths */
	uint64_t overhead = sc_calibrate_start(hz, inherited ? &in.cal : NULL);
	/* an exec'd image of the pid that exec'd takes the gen after its */
	uint32_t pid = (uint32_t)getpid();
	uint32_t first_gen = inherited && in.has_image && in.pid == pid &&
				     in.gen < UINT32_MAX - 10000 ? in.gen + 1 : 0;
	if (sc_files_init() != 0)
		return -1;
	if (sc_meta_open(pid, first_gen) != 0) {
		sc_files_started();
		return -1;
	}
	sc_rawfork_init();
	uint64_t tsc0 = sc_rdtsc(), mono0 = sc_clock_ns(CLOCK_MONOTONIC);
	sc_meta_set_clock(tsc0, mono0, hz, overhead);
	sc_inherit_set_clock(tsc0, mono0, hz);
	/* the start-up's records go out together, one write (meta.c); under
	 * the runtime lock, as a scan's, so that no thread forks a child
	 * while records are held (a child refers to what the file has).
	 * Attached, other threads run and bind meanwhile: as before, only
	 * the scan batches */
	if (!sc_attached) {
		sc_lock();
		sc_meta_batch(true);
	}
	write_cmdline(argc, argv);
	/* what libc_nonshared's pthread_atfork does: its stub is linked at
	 * the end of the code, on a page no other start-up code shares */
	__register_atfork(at_fork_prepare, at_fork_parent, at_fork_child, __dso_handle);
	if (!sc_attached)
		sc_control_init();      /* attached: scaler ctl is refused (no listener) */
	sc_objects_scan(true);
	sc_active = 1;
	if (!sc_attached) {     /* attached: threads get their state at their first call */
		sc_signals_init();
		sc_control_listen();
		sc_perf_init(hz);
		sc_thread_get();                /* the main thread, from now */
		sc_meta_batch(false);
		sc_unlock();
	}
	sc_files_started();
	return 0;
}

__attribute__((constructor(101))) static void sc_init(int argc, char **argv)
{
	const char *dir = sc_getenv("SCALER_DIR");
	if (!dir || !dir[0])
		return;                         /* loaded, but not asked to profile */
	sc_start(dir, sc_getenv("SCALER_TIMING"), argc, argv);
}

SC_HIDDEN int sc_exit_status = -1;

/*
 * Records the end of this image: at exit (destructor), or from the _exit
 * wrapper, which skips destructors. Only in the image's own process: a
 * vfork child (or a child cloned with CLONE_VM) that exits or
 * execs shares this image's memory, and ending it there would book and
 * empty the shadow stacks of the parent's threads, whose calls in flight
 * then return to no address.
 */
void sc_record_end(int status, uint32_t how)
{
	/* under a seccomp filter its system calls may kill the program: the
	 * image ends unrecorded, as one killed (the recorder has its status) */
	if (__atomic_load_n(&sc_sandboxed, __ATOMIC_ACQUIRE))
		return;
	if (sc_active)
		sc_rawfork_adopt();     /* a raw fork's child: its own from now */
	if (!sc_active || (uint32_t)getpid() != sc_meta_pid())
		return;
	uint64_t tsc = sc_rdtsc();
	struct sc_m_end e = {.end_tsc = tsc, .end_mono_ns = sc_clock_ns(CLOCK_MONOTONIC), .status = status,
			     .how = how, .end_p = sc_pclock_step(0, tsc)};
	/* after an exec or a detach the threads run on, their calls in
	 * flight booked as they return */
	if (how != SC_END_EXEC && how != SC_END_DETACH) {
		sc_control_end(tsc);
		sc_threads_finish_all(tsc);
	}
	sc_meta_add(SC_M_END, &e, sizeof(e), NULL);
}

/*
 * About to exec: the image ends here if the exec succeeds. Its threads are
 * left running (an exec that fails, as a shell's search of PATH does time
 * after time, goes on; the last END record is the one that counts). A
 * vfork child's exec ends nothing (sc_record_end).
 */
void sc_record_exec(void)
{
	sc_record_end(-1, SC_END_EXEC);
}

__attribute__((destructor)) static void sc_fini(void)
{
	sc_record_end(sc_exit_status, SC_END_EXIT);
}
