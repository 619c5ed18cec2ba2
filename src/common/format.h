/*
 * format.h - the one owner of scaler's on-disk profile format and its version.
 *
 * A profile is a directory (default `scaler.data/`). Every process image that
 * runs with the runtime (each exec of each pid is a new "image") writes:
 *
 *   p<pid>-<gen>.meta          append-only stream: header, then records
 *   p<pid>-<gen>-c<k>.meta     its continuation, when the image could no
 *                              longer reopen the first (it dropped its
 *                              privileges and closed every descriptor): the
 *                              same header, then the records that follow
 *   p<pid>-<gen>-t<seq>.thr    one per thread: 256-byte header + counter array
 *   p<pid>-<gen>-t<seq>.kst    with `scaler record --kernel`: the thread's
 *                              kernel stacks per entry (struct sc_kst_header)
 *   p<pid>-<gen>-t<seq>.kso    with --kernel where the sched_switch
 *                              tracepoint is allowed: the kernel stacks the
 *                              thread blocked in, per entry (the same layout)
 *   kallsyms                   with --kernel: the kernel addresses the .kst
 *                              and .kso
 *                              files hold, named (SC_KSYMS_FILE)
 *
 * <gen> starts at 0 and is bumped when a file of that name already exists
 * (the same pid exec'ing a new image). <seq> numbers threads of one image in
 * creation order, so kernel tid reuse never makes two threads share a file.
 * Files are created exclusively (a name that exists, someone else's, is
 * skipped: gen, seq and k need not be contiguous) and readable by their
 * owner only. `scaler record` also writes SC_PROFILE_MARKER, which says the
 * directory is one it made and may replace.
 *
 * The runtime also keeps g<build-id>.use files, one per object file whose
 * code it read (src/runtime/usecache.c): a cache of its own for the other
 * processes of the run, with no part in the profile (the reader skips it).
 *
 * Why two kinds of file: the counters are updated on the hot path, so they
 * live in memory that the kernel owns (MAP_SHARED file pages) and survive the
 * process being killed; the metadata (objects, shadow entries, threads) is
 * appended with write(2) when it is created, never on the hot path, and is
 * therefore also complete at any instant. A reader takes the last record of
 * each kind it cares about.
 *
 * All integers are little-endian host order (x86-64/aarch64), structs are
 * naturally aligned with explicit padding so that their layout does not
 * depend on compiler flags. Bump SC_FORMAT_VERSION on any layout change.
 */
#ifndef SCALER_FORMAT_H
#define SCALER_FORMAT_H

#ifndef __ASSEMBLER__
#include <stdint.h>
#endif

#define SC_FORMAT_VERSION 8u   /* 2: 256-byte records (histogram, 1/k clock)
				  3: entries numbered at first call
				     (SC_M_BIND), 256-byte thread header
				  4: the interceptor's cost taken off each
				     timed call at run time, re-measured per
				     thread (sc_thr_header.ovh_*)
				  5: sc_rec.max_tsc, the start of the
				     longest timed call
				  6: off-CPU and kernel time per call
				     (sc_rec.wblocked..., sc_thr_header.perf,
				     the .kst files)
				  7: 29 histogram buckets from 64 ticks
				     (32 from 8 before), sc_rec.span at
				     244, sc_rec.dup_ticks at 80, a
				     spare word at 248 (since, with no
				     bump: wself_preempt, 0 in files of
				     runtimes before it)
				  8: a fork child's .meta refers to its
				     parent's records (SC_M_PARENT)
				     instead of holding a copy */
/* The oldest version the reader still reads: a version 3 profile lacks the
 * threads' ovh_* figures (its cost of timing a call is unknown; the reader
 * takes the header's overhead_ticks off every call, as it then did).
 * Version 2 numbered counters by import, without SC_M_BIND. */
#define SC_FORMAT_MIN_VERSION 3u
#define SC_META_MAGIC "SCALERM1"   /* 8 bytes, no NUL needed */
#define SC_THR_MAGIC "SCALERT1"
#define SC_PROFILE_MARKER ".scaler-profile"

/* ---- p<pid>-<gen>.meta ------------------------------------------------ */

struct sc_meta_header {
	char magic[8];          /* SC_META_MAGIC */
	uint32_t version;       /* SC_FORMAT_VERSION */
	uint32_t header_size;   /* sizeof(struct sc_meta_header) */
	uint32_t pid;
	uint32_t ppid;
	uint32_t gen;           /* image generation of this pid */
	uint32_t timing_mode;   /* enum sc_timing_mode */
	uint64_t start_tsc;     /* TSC at runtime start */
	uint64_t start_mono_ns; /* CLOCK_MONOTONIC at the same instant */
	uint64_t start_real_ns; /* CLOCK_REALTIME, for display */
	uint64_t tsc_hz;        /* quick start-up calibration (fallback) */
	uint64_t overhead_ticks;/* cost of timing a call measured at start-up
				   (already taken off each timed call; the
				   threads' figures are in their headers) */
	uint64_t reserved[4];
};

enum sc_timing_mode {
	SC_TIMING_ADAPTIVE = 0,
	SC_TIMING_ALL = 1,
	SC_TIMING_NONE = 2,
};

/* Every record after the header: this, then `len` payload bytes, then
 * padding to a multiple of 8. */
struct sc_meta_rec {
	uint32_t type;          /* enum sc_meta_type */
	uint32_t len;           /* payload bytes, excluding padding */
};

enum sc_meta_type {
	/* 0: padding, skipped (a record being stored, room not yet used:
	   src/runtime/meta.c) */
	SC_M_CMDLINE = 1,       /* payload: argv strings, each NUL-terminated */
	SC_M_OBJECT = 2,        /* struct sc_m_object + path (NUL-terminated) */
	SC_M_ENTRY = 3,         /* struct sc_m_entry + api name (NUL-terminated) */
	SC_M_THREAD = 4,        /* struct sc_m_thread + name (NUL-terminated, may
				   be padded with NULs to 17 bytes) + start
				   routine symbol (NUL-terminated, may be "") */
	SC_M_END = 5,           /* struct sc_m_end: the runtime saw the image end */
	SC_M_EXIT = 6,          /* struct sc_m_exit: status as the parent saw it */
	SC_M_UNLOAD = 7,        /* struct sc_m_object (no path): dlclose'd */
	SC_M_BIND = 8,          /* struct sc_m_bind: an import's first call */
	SC_M_SKIP = 9,          /* struct sc_m_skip + reason + function name
				   (each NUL-terminated): not patched */
	SC_M_UID = 10,          /* struct sc_m_uid: the image is about to run
				   as this user (set*uid), written before the
				   change (src/runtime/uids.c) */
	SC_M_CONTROL = 11,      /* struct sc_m_control: the control signal in
				   force, counting paused or resumed */
	SC_M_PARENT = 12,       /* struct sc_m_parent: a fork child's first
				   record, in place of its parent's records */
};

struct sc_m_object {
	uint32_t id;            /* dense, 0 = main executable */
	uint32_t flags;         /* SC_OBJ_* */
	uint64_t base;          /* load bias (l_addr) */
};
#define SC_OBJ_MAIN 1u
#define SC_OBJ_DLOPEN 2u

/*
 * A hooked import: a (calling object, function) pair whose GOT slot was
 * pointed at the runtime, or a pointer dlsym handed out. Imports are
 * numbered when hooked; most are never called. The first call gives one
 * an entry index, the slot of its counters in every thread file, and
 * writes SC_M_BIND: counters are numbered in the order of first calls, so
 * the ones in use fill the first pages of each thread's file.
 */
struct sc_m_entry {
	uint32_t idx;           /* import number (SC_M_BIND maps it) */
	uint32_t caller;        /* object id whose GOT/dlsym result it serves */
	uint32_t callee;        /* object id that defines the target */
	uint32_t flags;         /* SC_ENT_* */
};
#define SC_ENT_PLT 1u           /* JUMP_SLOT */
#define SC_ENT_GOT 2u           /* GLOB_DAT function pointer (-fno-plt) */
#define SC_ENT_DLSYM 4u         /* pointer handed out by dlsym/dlvsym */
#define SC_ENT_NOTIME 8u        /* never timed (returns twice, no return...) */
#define SC_ENT_WRAP 16u         /* runtime wrapper runs in front of the API */
#define SC_ENT_UNWIND 32u       /* unwinder entry: restores return addresses */
#define SC_ENT_WAIT 64u         /* blocking API: time reported as Wait */
#define SC_ENT_MAYBLOCK 128u    /* may block (read, recv, mutex lock): its
				   calls over the blocking threshold
				   (sc_thr_header.block_ticks) are Wait */
#define SC_ENT_FUNC 256u        /* a function patched at its entry
				   (--functions), callee the object holding
				   it, caller the one calling (from the
				   return address), its own object's
				   calls included */
#define SC_ENT_ARGS 1024u       /* its argument values are captured
				   (--args: the thread's .args file) */

struct sc_m_bind {
	uint32_t import;        /* sc_m_entry.idx */
	uint32_t idx;           /* entry index = counter slot */
	uint32_t flags;         /* SC_ENT_* in force (may add NOTIME) */
	uint32_t reserved;
};

/* A function --functions matched but the runtime would not patch. */
struct sc_m_skip {
	uint32_t obj;           /* object id */
	uint32_t reserved;
};

/* Files a run made after one of its processes changed user are that
 * user's; only a uid that a file owned by root (or the directory's owner)
 * declares makes them part of the run (profile.c, doc/security.md). */
struct sc_m_uid {
	uint32_t uid;
	uint32_t reserved;
};

/*
 * Control of a running image (doc/ctl.md): the signal it takes requests
 * on (at start), and each pause and resume of its counting, from `scaler
 * ctl` (seq: the request's number, which ctl waits to see) or the
 * control signal (seq 0). A reset is acknowledged in each thread's
 * header (sc_thr_header.ctl_seq) instead: threads carry it out.
 */
/*
 * A fork child inherits what its parent had described (objects, entries,
 * binds, the command line...) when it forked: the records of the parent's
 * p<pid>-<gen>.meta from its header to `end` (the file's length then, in
 * bytes from the start of the file), but its threads and its end
 * (SC_M_THREAD, SC_M_END), read as if they stood in place of this record.
 * The parent's file may itself start with one: the reader follows them up.
 */
struct sc_m_parent {
	uint32_t pid;           /* the parent's file: p<pid>-<gen>.meta */
	uint32_t gen;
	uint64_t end;
};

struct sc_m_control {
	uint32_t what;          /* enum sc_control */
	uint32_t sig;           /* SC_CTL_LISTEN: the signal */
	uint64_t seq;
	uint64_t tsc;
	uint64_t mono_ns;
};

enum sc_control {
	SC_CTL_LISTEN = 1,
	SC_CTL_PAUSE = 2,
	SC_CTL_RESUME = 3,
};

struct sc_m_thread {
	uint32_t seq;           /* thread file number */
	uint32_t tid;           /* kernel tid (may be reused; seq is unique) */
	uint64_t start_routine; /* address, 0 for the main thread */
	uint32_t routine_obj;   /* object id of start_routine, or UINT32_MAX */
	uint32_t reserved;
};

struct sc_m_end {
	uint64_t end_tsc;
	uint64_t end_mono_ns;   /* with start_*: the long-baseline calibration */
	int32_t status;         /* exit() status if known, else -1 */
	uint32_t how;           /* enum sc_end_how */
	uint64_t end_p;         /* the parallel clock at the end */
};

enum sc_end_how {
	SC_END_EXIT = 1,        /* returned from main / exit() */
	SC_END_EXEC = 2,        /* replaced by execve */
	SC_END_SIGNAL = 3,      /* fatal signal seen by the runtime */
	SC_END_DETACH = 4,      /* scaler record -p detached; the process ran on
				   (status -1) */
};

struct sc_m_exit {
	int32_t exit_status;    /* exit code, or 128+signal */
	uint32_t signal;        /* terminating signal, 0 if exited */
	uint64_t wall_ns;       /* as measured by the parent (scaler record) */
};

/* ---- p<pid>-<gen>-t<seq>.thr ------------------------------------------- */

/* Records start right after the header, not a page later: a page less for
 * every thread (the header is read and written with the records). */
#define SC_THR_HEADER_SIZE 256u

struct sc_thr_header {
	char magic[8];          /* SC_THR_MAGIC */
	uint32_t version;
	uint32_t seq;
	uint32_t tid;
	uint32_t rec_size;      /* sizeof(struct sc_rec) */
	uint64_t start_tsc;
	uint64_t end_tsc;       /* 0 while running */
	char name[16];          /* comm at first sight, NUL-terminated */
	uint64_t last_tsc;      /* latest timed return: the end of a thread
				   that was killed without notice */
	/* The parallel clock (see struct sc_rec.wpticks) at the thread's
	 * start and end (0 while running). */
	uint64_t reserved_p;    /* 0 */
	uint64_t start_p;
	uint64_t end_p;
	uint64_t block_ticks;   /* the blocking threshold in force (wblock) */
	/* The interceptor's cost taken off each timed call (ticks): the
	 * figure in force at the thread's start and after each re-measure
	 * (every few ms while it makes timed calls), their sum, number and
	 * range. Adaptive timing shows the figure for sampled calls. */
	uint64_t ovh_sum;
	uint32_t ovh_n;
	uint32_t ovh_min;
	uint32_t ovh_max;
	/* What the kernel told of this thread (version 6; 0 before):
	 * perf_kind is enum sc_perf_kind, perf_lost the records the kernel
	 * dropped from its ring (saturated at 0xffff) */
	uint8_t perf_kind;
	uint8_t perf_flags;     /* SC_PERF_F_*: 0 from earlier runtimes */
	uint16_t perf_lost;
	/* Time of the thread's life during which counting was paused (scaler
	 * ctl pause, record --paused, the control signal), in ticks and in
	 * the parallel clock: not the time of any component (the reader
	 * takes it off). A pause still in force is added at the end. */
	uint64_t paused_ticks;  /* 120 */
	uint64_t paused_p;      /* 128 */
	/* The last reset request (scaler ctl reset) the thread carried out:
	 * its counters count from start_tsc, which the reset moved on. */
	uint64_t ctl_seq;       /* 136 */
	/* A reset request scaler ctl wrote here for a thread asleep in a
	 * call that a signal would cut short (sleep, poll, epoll_wait): the
	 * thread carries it out when it wakes (at its next timed return);
	 * until then ctl_want > ctl_seq and the reader takes its records as
	 * zero and its start as ctl_want_tsc (nothing counted since). */
	uint64_t ctl_want;      /* 144 */
	uint64_t ctl_want_tsc;  /* 152 */
	/* With SC_PERF_F_UNTIMED: the ticks the thread was off-CPU and
	 * blocked while no timed call was in flight (in calls let through
	 * untimed, mostly), exact; the reader gives it to the records whose
	 * sampled blocked time says they block (profile.c, off_fit). */
	uint64_t off_untimed;   /* 160 */
	/* With SC_PERF_F_ONCPU: the parallel clock's share of the time the
	 * thread was off-CPU (blocked or preempted) outside Waits, which its
	 * calls' wpticks leave out too: a thread runs only on a CPU. */
	uint64_t off_p;         /* 168 */
	/* The thread's CPU time (user and system, the kernel's
	 * CLOCK_THREAD_CPUTIME_ID) at its start and at its end or the
	 * image's; cpu_end_ns 0: not known (killed, or an older runtime's
	 * file: these were zero padding) */
	uint64_t cpu_start_ns;  /* 176 */
	uint64_t cpu_end_ns;    /* 184 */
};

/* How a thread's time off-CPU and in the kernel was measured (perf.c). */
enum sc_perf_kind {
	SC_PERF_NONE = 0,       /* not at all: Wait is guessed from API names */
	SC_PERF_SWITCHES = 1,   /* context switches: blocked and preempted time */
	SC_PERF_KERNEL = 2,     /* and kernel stacks sampled on its CPU time */
};
/* sc_thr_header.perf_flags */
#define SC_PERF_F_UNTIMED 1u    /* off_untimed and sc_rec.rblocked are kept */
#define SC_PERF_F_ONCPU 2u      /* off_p is kept, wpticks leaves out time off-CPU */
/* until its ring opened (or all its life, if it never needed one) the
 * thread's time off-CPU was measured from its own CPU clock (perf.c,
 * doc/design.md): a call that never left the CPU has Wait 0, exactly */
#define SC_PERF_F_CLOCK 4u
_Static_assert(sizeof(struct sc_thr_header) <= SC_THR_HEADER_SIZE, "thread header");

/*
 * One counter record per (thread, shadow entry), 256 bytes. The hot path in
 * arch/x86_64/intercept.S touches count/countdown (the first cache line) on
 * every call, the rest only on timed calls. Offsets are mirrored in
 * arch/x86_64/offsets.h and checked by static asserts in the runtime.
 *
 * Each timed call stands for w calls (adaptive timing: the period its span
 * was drawn with, the inverse of the chance it had of being timed; 1 when
 * every call is timed), so every sum of a timed quantity is kept weighted
 * by w as well (w*); the reader scales by count/wcount. Profiles of
 * earlier runtimes weighted by the span a timed call ended; the reader
 * reads both alike.
 *
 * The parallel clock P (the runtime's sc_pclock) advances at 1/k of the TSC
 * rate while k threads of the process are running (not blocked in a Wait
 * API), and not at all while none is. A call's P interval is its share of
 * the process's critical time (the paper's serial vs parallel attribution).
 *
 * hist[b] counts (weighted) timed calls of [2^(b+6), 2^(b+7)) ticks
 * (b = 0 also holds shorter calls, the last bucket longer ones: 2^34 ticks
 * and over, as before); it saturates at UINT32_MAX instead of wrapping.
 * Up to version 6 there were 32 buckets of [2^(b+3), 2^(b+4)) ticks at
 * offset 128 (span at 80): the reader adds old bucket b into new bucket
 * max(b - 3, 0), which is exact (SC_REC_HIST_V6, SC_REC_HIST_SHIFT_V6).
 */
#define SC_REC_HIST 29
#define SC_REC_HIST_LOG2_MIN 6  /* bucket 0 ends at 2^(this + 1) ticks */
#define SC_REC_HIST_V6 32       /* buckets up to version 6 */
#define SC_REC_HIST_V6_OFF 128  /* their offset in the record */
#define SC_REC_HIST_SHIFT_V6 3  /* old bucket b is new max(b - this, 0) */
struct sc_rec {
	uint64_t count;         /*  0: calls, exact */
	uint64_t timed;         /*  8: calls that were timed */
	uint64_t ticks;         /* 16: sum of inclusive TSC ticks of timed calls */
	int32_t countdown;      /* 24: calls left until the next timed one */
	uint32_t period;        /* 28: sampling period in force (adaptive):
				       1, 3, 7, 15, 31, doubled by cheap
				       calls; spans are drawn with mean p,
				       and a timed call weighs p
				       (trampoline.S) */
	uint64_t wticks;        /* 32: sum of ticks * w (estimator) */
	uint64_t wcount;        /* 40: sum of w over timed calls */
	uint64_t self_ticks;    /* 48: ticks minus nested calls (estimated:
				       each timed one as ticks * its w);
				       a signed sum stored as uint64 */
	uint64_t max_ticks;     /* 56: longest timed call */
	uint64_t wpticks;       /* 64: sum of P interval * w */
	uint64_t wblock;        /* 72: sum of ticks * w of timed calls
				       over the blocking threshold */
	/* 80 (version 7; span before): of this record's timed calls, the
	 * ticks of the calls on the same edge (caller object -> callee
	 * object) nested inside them, each as its estimate (ticks * its w)
	 * and booked in the nearest enclosing timed call on that edge only:
	 * a comparator's strcmp inside qsort, a signal handler's write
	 * inside select. The edge's time counts them once (their own
	 * records hold them). 0 in profiles of earlier runtimes. */
	uint64_t dup_ticks;
	uint64_t max_tsc;       /* 88: TSC at the start of the longest timed
				       call (version 5; 0 = unknown) */
	/* Version 6: of the timed calls, the ticks * period their thread was
	 * off-CPU and not runnable (blocked), off-CPU but runnable
	 * (preempted), and on-CPU in the kernel (kernel samples times their
	 * period), while the call was the innermost timed one in flight
	 * (perf.c); 0 without a measurement (sc_thr_header.perf_kind). */
	uint64_t wblocked;      /* 96 */
	uint64_t wpreempt;      /* 104 */
	uint64_t wkernel;       /* 112 */
	uint64_t rblocked;      /* 120: the same blocked ticks unweighted
				   (with SC_PERF_F_UNTIMED; 0 before) */
	uint32_t hist[SC_REC_HIST]; /* 128: log2 latency histogram */
	uint32_t span;          /* 244: calls until the next timed one,
				       itself included (drawn from the
				       geometric law of mean period) */
	/* 248: of wpreempt's time, the part in the call's self time: less
	 * the preemptions of untimed calls nested in it, estimated as its
	 * timed nested calls' own (each times the calls it stands for less
	 * itself), as self_ticks takes those calls off (perf.c). A signed
	 * sum stored as uint64; 0 in files of earlier runtimes (version 7's
	 * spare word, zero; the reader zeroes it for versions up to 6) */
	uint64_t wself_preempt;
};
_Static_assert(sizeof(struct sc_rec) == 256, "sc_rec is 256 bytes");

/* ---- p<pid>-<gen>-t<seq>.args: argument values (scaler record --args) -- */

/*
 * With --args, each thread also has a file of value histograms, created
 * with its .thr file (same seq): a 64-byte header, then SC_ARGS_SLOTS
 * records, one per (caller, API) pair whose values are captured (the
 * runtime numbers them in the order they are bound, per image). A record
 * names its entry and its values itself, written by the thread at its
 * first capture, so the file is read without the meta stream's help.
 *
 * Values are captured on timed calls only (arguments at the call's entry,
 * the return value at its return) and weighted by the span the call
 * stands for, like sc_rec's w* sums: with --timing=all every call is
 * seen once and the figures are exact. A value is taken as unsigned
 * unless SC_ARGV_SIGNED: then a negative one (an error return, an
 * infinite timeout) is counted in wneg, kept out of hist and wsum, and
 * min/max are int64. hist[0] holds the value 0, hist[b] (1 <= b < 63) the
 * values in [2^(b-1), 2^b), hist[63] the rest; saturating.
 *
 * Two kinds of value use the histogram's bytes otherwise (version 2):
 * - SC_ARGV_DISTINCT (which lock: the distinct values of an address):
 *   `distinct.exact` keeps the first SC_ARGS_EXACT distinct values, wsum
 *   says how many (SC_ARGS_EXACT + 1 once a further one was seen), and
 *   `distinct.hll` is a HyperLogLog of every value (SC_ARGS_HLL one-byte
 *   registers, indexed by the top 7 bits of a 64-bit mix of the value,
 *   each the largest 1 + leading zeros of the remaining 57 bits seen);
 *   n and w count every call seen, min and max are unused.
 * - SC_ARGV_ERRNO (errors by errno): n and w count every return seen,
 *   `errs` the failures (as the prototype tells them) by errno value,
 *   pairs in first-seen order, err 0 free; wneg the weight of failures
 *   that found no free pair. wsum, min and max are unused.
 */
#define SC_ARGS_MAGIC "SCALERA1"
#define SC_ARGS_VERSION 2u      /* 1: no DISTINCT or ERRNO values */
#define SC_ARGS_HEADER_SIZE 64u
#define SC_ARGS_SLOTS 128u
#define SC_ARGS_NVAL 4u
#define SC_ARGS_NAME 16u
#define SC_ARGS_NHIST 64u
#define SC_ARGV_SIGNED 1u
#define SC_ARGV_DISTINCT 2u
#define SC_ARGV_ERRNO 4u
#define SC_ARGS_EXACT 16u
#define SC_ARGS_HLL 128u
#define SC_ARGS_NERR 32u

struct sc_args_header {
	char magic[8];          /* SC_ARGS_MAGIC */
	uint32_t version;       /* SC_ARGS_VERSION */
	uint32_t seq;           /* the thread's (its .thr file's) */
	uint32_t nslots;        /* records after the header */
	uint32_t rec_size;      /* sizeof(struct sc_args_rec) */
	uint64_t reserved[5];
};
_Static_assert(sizeof(struct sc_args_header) == SC_ARGS_HEADER_SIZE, "args header");

struct sc_args_val {
	uint64_t n;             /* timed calls seen */
	uint64_t w;             /* their weight: sum of spans */
	uint64_t wsum;          /* sum of value * span (not negative ones),
				   saturating */
	uint64_t min, max;      /* over the calls seen */
	uint64_t wneg;          /* weight of negative values (signed only) */
	union {
		uint32_t hist[SC_ARGS_NHIST];
		struct {
			uint64_t exact[SC_ARGS_EXACT];
			uint8_t hll[SC_ARGS_HLL];
		} distinct;     /* SC_ARGV_DISTINCT */
		struct {
			uint32_t err, w;
		} errs[SC_ARGS_NERR];   /* SC_ARGV_ERRNO */
	};
};
_Static_assert(sizeof(struct sc_args_val) == 48 + 4 * SC_ARGS_NHIST, "args value layout");

struct sc_args_rec {
	uint32_t entry;         /* entry index + 1; 0: no capture yet */
	uint32_t nval;          /* values in use, <= SC_ARGS_NVAL */
	uint32_t flags[SC_ARGS_NVAL];   /* SC_ARGV_* */
	char name[SC_ARGS_NVAL][SC_ARGS_NAME];  /* NUL-terminated: "count",
						   "ret" (the return value) */
	struct sc_args_val v[SC_ARGS_NVAL];
};

/* ---- p<pid>-<gen>-t<seq>.kst: kernel stacks (record --kernel) ---------- */

/*
 * A fixed table of nslots slots, each one (entry index, kernel stack) with
 * the number of samples that found it; filled by open addressing on a hash
 * of the pair, so memory is bounded by pairs, never by samples. A sample
 * whose pair finds no free slot is counted in `overflow` only. A sample
 * taken when no timed call was in flight has entry index UINT32_MAX. The
 * samples' time is booked in the entries' records (sc_rec.wkernel); the
 * slots give its split among kernel stacks.
 */
#define SC_KST_MAGIC "SCALERK1"
/*
 * A .kso file (off-CPU stacks) has the same header and slots, magic
 * SC_KSO_MAGIC: each slot is (entry index, the kernel stack at the
 * thread's switch-out from the sched_switch tracepoint) and `samples` is
 * the time in ns the thread stayed blocked (switched out not runnable)
 * after switch-outs at that stack; the header's samples is the sum of
 * those, overflow the ns of pairs that found no slot, period_ns 0. Its
 * time is booked in the entries' records (sc_rec.wblocked); the slots give
 * its split among kernel stacks.
 */
#define SC_KSO_MAGIC "SCALERO1"
#define SC_KST_DEPTH 30         /* kernel frames kept, innermost first */
#define SC_KSYMS_FILE "kallsyms"

struct sc_kst_header {
	char magic[8];          /* SC_KST_MAGIC */
	uint32_t version;       /* SC_FORMAT_VERSION */
	uint32_t nslots;
	uint32_t slot_size;     /* sizeof(struct sc_kst_slot) */
	uint32_t reserved0;
	uint64_t period_ns;     /* thread CPU time per sample */
	uint64_t samples;       /* kernel samples seen */
	uint64_t overflow;      /* samples of pairs that found no slot */
	uint64_t reserved[2];
};
_Static_assert(sizeof(struct sc_kst_header) == 64, "kst header");

struct sc_kst_slot {
	uint32_t entry;         /* entry index + 1; 0 = free slot */
	uint32_t depth;         /* frames in ip */
	uint64_t samples;
	uint64_t ip[SC_KST_DEPTH];
};
_Static_assert(sizeof(struct sc_kst_slot) == 256, "kst slot");

/* ---- series: calls over time (scaler record --interval) ----------------- */

/*
 * `scaler record --interval MS` samples the profile every MS while the
 * command runs and keeps the samples in the file "series": a ring of
 * nslots samples of nkeys_max (caller, callee, api) keys, its size fixed
 * when the run starts. Sample i is in slot i % nslots; a slot holds each
 * key's calls and time so far (cumulative: the figures per interval are
 * the differences of consecutive samples). A key is given the next free
 * column when first seen; keys past nkeys_max are not kept (keys_dropped).
 * The writer fills a slot, then raises nsamples.
 */
#define SC_SERIES_FILE "series"
#define SC_SERIES_MAGIC "SCALERS1"
#define SC_SERIES_VERSION 1u

struct sc_series_header {
	char magic[8];          /* SC_SERIES_MAGIC */
	uint32_t version;       /* SC_SERIES_VERSION */
	uint32_t nkeys_max;     /* columns of a slot */
	uint32_t nslots;        /* slots of the ring */
	uint32_t nkeys;         /* columns in use */
	uint64_t interval_ns;
	uint64_t nsamples;      /* samples written so far */
	uint64_t keys_dropped;  /* keys seen that had no free column */
	uint64_t start_mono_ns; /* CLOCK_MONOTONIC when the command started */
	uint64_t reserved;
};
_Static_assert(sizeof(struct sc_series_header) == 64, "series header");

/* After the header: nkeys_max keys, then nslots slots. */
struct sc_series_key {
	char caller[64], callee[64], api[128];  /* NUL-terminated, cut to fit */
};

struct sc_series_cell {
	uint64_t count;
	int64_t total_ns;
};

/* A slot: this, then nkeys_max cells. */
struct sc_series_slot {
	uint64_t mono_ns;       /* when the sample was read */
	uint64_t reserved;
};

#endif
