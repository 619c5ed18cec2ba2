/*
 * runtime.h - internal interfaces of the preloaded runtime (libscaler.so).
 *
 * Stages, in the order a process meets them:
 *   init.c     start-up: settings, calibration, the meta file, patching
 *   attach.c   started in a running process by scaler record -p, and
 *              detaching from it
 *   unpatch.c  putting back the GOT slots the runtime wrote
 *   calib.c    what timing a call costs: measured, re-measured, taken off
 *   inherit.c  what an image hands down to the images it execs (the TSC
 *              rate, calibration, extended state size): not measured again
 *   lock.c     the runtime lock and the leaf lock
 *   objects.c  the table of loaded objects: listing, registering, pruning
 *   patch.c    pointing GOT slots at shadow entries; batched repoints
 *   gotuse.c   which GLOB_DAT slots are calls (read from the code)
 *   functions.c patching function entries (--functions)
 *   rss.c      giving back the pages patching read
 *   reloc.c    reading relocations from an object's in-memory dynamic section
 *   shadow.c   the Universal Shadow Table: entry indices, targets, code
 *   thread.c   per-thread counter files and shadow stacks
 *   slow.c     the C side of the interceptor (sc_slow, sc_ret_lookup)
 *   perf.c     the kernel's records of each thread: time off-CPU, kernel
 *   util.c     the `scaler:` warning line and the clocks
 *   sort.c     a sort that allocates nothing (qsort may call malloc)
 *   wrap.c     wrappers placed in front of dlopen, dlsym, pthread_create, fork
 *   exec.c     wrappers of exec* and posix_spawn: the runtime's variables
 *              follow into a new image whatever environment it is given
 *   seccomp.c  wrappers of prctl and syscall: before a seccomp filter,
 *              threads stop the system calls they make before their ring
 *   meta.c     the append-only metadata stream (format.h)
 *   files.c    the runtime's files in the profile directory, safe from others
 *   mem.c      the runtime's own memory, from mmap
 *   pause.c    counting off and on by the GOT slots (pause, resume)
 *   control.c  control of a running image: the control signal, scaler
 *              ctl's requests (pause, resume, reset), the paused time
 *   rawfork.c  a child made without the fork handlers (a raw fork)
 */
#ifndef SCALER_RUNTIME_H
#define SCALER_RUNTIME_H

#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "format.h"
#include "arch.h"
#include "offsets.h"

#define SC_HIDDEN __attribute__((visibility("hidden")))
/*
 * The runtime's large zero-initialized arrays (tables, buffers), placed
 * after .bss (.lbss): the small variables then share a page or two
 * instead of lying between the arrays, a page each. Each page a process
 * writes first costs it a page fault (~2 us here): a fork child copies
 * each one it writes, and every process zero-fills each one at start.
 */
#define SC_LARGE_BSS __attribute__((section(".lbss")))
/*
 * Of .lbss, every process touches the start of three arrays: meta.c's
 * batch buffer (page-aligned), patch.c's waiting slots (2 KB) and
 * objects.c's object table. The linker sorts .lbss by alignment
 * (--sort-section=alignment, the Makefile), so these two alignments put
 * the slots right after the buffer, on a page boundary, and the table
 * right after them: the slots and the first dozen objects share a page,
 * one page fault where each head was one.
 */
#define SC_LBSS_SECOND __attribute__((aligned(2048)))
#define SC_LBSS_THIRD __attribute__((aligned(1024)))

/* Upper bounds that size virtual reservations; memory is only committed as
 * entries and threads appear. */
#define SC_MAX_ENTRIES (1u << 20)
#define SC_MAX_OBJECTS 8192u
#define SC_FRAMES 4096u
#define SC_GRAVE 1024u

/* A thread's measurement of its time off-CPU and in the kernel (perf.c). */
struct sc_perf {
	size_t ring_len;        /* the ring's mapping, 0 without one */
	uint8_t kind;           /* enum sc_perf_kind */
	bool out;               /* a switch-out seen, its switch-in not yet */
	bool out_preempt;       /* ... and the thread was still runnable */
	bool reading;           /* sc_perf_return is reading the ring */
	uint64_t out_ns;        /* ... at this time (CLOCK_MONOTONIC) */
	uint64_t lost;          /* records the kernel dropped */
	uint64_t anchor_tsc, anchor_ns; /* a (TSC, CLOCK_MONOTONIC) pair taken
					   at the last read of the ring */
	/* the last stretch of the runtime's own work that moved the frames'
	 * starts on (a read of the ring, a re-measurement), TSC: the kernel's
	 * records in it are no call's time (perf.c) */
	uint64_t quiet_from, quiet_to;
	struct sc_kst_header *kst;  /* kernel stacks (record --kernel), or 0 */
	size_t kst_len;
	/* a reset's TSC (scaler ctl reset): what the kernel reports of the
	 * time before it is dropped, a gap across it cut there */
	uint64_t floor_tsc;
	uint64_t last_blocked;  /* the last timed return's blocked ticks */
	/* off-CPU stacks (offcpu.c): the sched_switch tracepoint's ring,
	 * how far it was read, the thread's .kso table, and the stack of
	 * the last switch-out read from the ring and its time */
	struct perf_event_mmap_page *oring;
	size_t oring_len;
	uint64_t otail;
	struct sc_kst_header *kso;
	size_t kso_len;
	uint64_t ostack_ns;
	uint32_t ostack_n;
	uint64_t ostack[SC_KST_DEPTH];
	/* kernel samples from the recorder's per-CPU rings (kcpu.c) */
	bool kcpu;
	uint32_t kcpu_cur;      /* the CPU it is on, as last known */
	uint64_t kcpu_cpus;     /* CPUs (bit cpu % 64) run on since the last read */
	uint64_t kcpu_mark;     /* samples up to this time were taken */
	uint64_t kcpu_last_cpus, kcpu_last_sum; /* kcpu_cpus and the sum of
				   their rings' heads at the last read */
	/* before the thread opens its ring (perf.c, lazy): its clocks at
	 * its last timed return (TSC, CPU time in ns), a (TSC,
	 * CLOCK_MONOTONIC) pair read together, its context switches when
	 * last asked, and the timed returns it makes before it opens the
	 * ring anyway */
	uint64_t lazy_tsc, lazy_cpu;
	uint64_t lazy_atsc, lazy_ans;
	long lazy_nvcsw, lazy_nivcsw;
	uint32_t lazy_left;
};

/* One shadow frame per timed call in flight (offsets.h: FR_*). */
struct sc_frame {
	uint64_t ret;
	uint64_t slot;
	uint64_t tsc;           /* TSC at entry, moved on by what timing its
				   nested calls cost (so now - tsc is its own) */
	struct sc_rec *rec;
	uint64_t child;
	uint64_t p;             /* parallel clock at entry (see tk) */
	uint64_t tk;            /* clock state at entry, p its P; 0 marks a
				   Wait (its thread left the clock), p is P */
	struct sc_rec *trec;    /* an API it reached by a tail call (timed
				   from the jump to this frame's return) */
	uint64_t ttsc;
	/* what perf.c found of this call before its return: the five
	 * below are valid while pend is nonzero (zeroed at entry) */
	uint64_t pend;
	uint64_t off_blocked, off_preempt, kernel;
	uint64_t off_incl;      /* off-CPU in it and in the calls it holds,
				   but not inside a Wait (its clock share is
				   taken off whole: trampoline.S) */
	/* the part of off_preempt estimated to have fallen in untimed calls
	 * nested in this one (their timed siblings' figures times the calls
	 * each stands for less itself): off_preempt less this is the call's
	 * exclusive preempted time, as its self time excludes those calls */
	uint64_t nested_preempt;
	/* what the returns of the timed calls nested in this one moved its
	 * tsc on by (their timing's cost, and what theirs were moved by):
	 * its own caller's start moves on by that too at its return, for
	 * those costs lie inside its caller's interval as well */
	uint64_t moved;
	/* the TSC read at entry, as read: where the call began in time, for
	 * placing the kernel's records (tsc has moved on by the costs above,
	 * by up to seconds for a long call with millions of nested ones) */
	uint64_t t0;
	/* the API that trec's jumped on to (a chain of tail calls: t1 ends
	 * in `jmp t2`, t2 in `jmp t3`), timed from ttsc2 to the same return;
	 * valid while trec is set (NULL with --args' tag), later ones of the
	 * chain are only counted */
	struct sc_rec *trec2;
	uint64_t ttsc2;
};

/* The parallel clock (pclock.c; offsets.h: PC_*). */
struct sc_pclock {
	uint64_t p;
	uint64_t tk;
};

/*
 * What timing a call costs, in TSC ticks (calib.c): hot, inside the
 * measured interval of a call timed right after another timed one (every
 * call in `all`); cold, the same for a call sampled after untimed ones
 * (adaptive), which runs the timed path with cold branches and lines;
 * nested, what a whole timed call adds to a timed caller around it.
 */
struct sc_calib {
	uint64_t hot, cold, nested;
	/* what a timed call from the function's own object (fnown.S, which
	 * keeps every register) costs beyond those: inside its interval, and
	 * in its timed caller's */
	uint64_t own_in, own_out;
};

/* Per-thread state. The first fifteen fields are read by the assembly. */
struct sc_thread {
	struct sc_rec *recs;
	uint64_t cap;
	struct sc_frame *sp;
	struct sc_frame *sp_end;
	struct sc_frame *sp_base;
	uint64_t *last_tsc;
	/* this thread's figures in force (calib.c): the entry moves a timed
	 * call's start on by hot or cold, a return its caller's by nested */
	struct sc_calib cal;
	uint64_t recal_at;      /* TSC at which a timed return re-measures
				   them (~0: never) */
	uint64_t span_rng;      /* state of its span draws (span.c) */
	/* the thread's perf ring and how far it was read (perf.c): a timed
	 * return reads it when its data_head moved (perf.c's stand-in until
	 * the thread opens its own: its head never moves, never the tail) */
	struct perf_event_mmap_page *ring;
	uint64_t ring_tail;
	/* with per-CPU kernel samples (kcpu.c), the ring of the CPU it is
	 * on and its data_head when last read: when it moved, a timed
	 * return reads the rings too */
	struct perf_event_mmap_page *kring;
	uint64_t khead;
	/* C only */
	struct sc_perf perf;
	struct sc_calib cal_last[3]; /* the last three measurements: the
					figures in force are their medians */
	uint32_t cal_n;
	uint64_t real_cap;      /* cap while not busy */
	int busy;               /* nesting depth of runtime code on this thread */
	bool stuck;             /* its file cannot grow (sc_thread_grow) */
	bool no_ra;             /* its mapping is advised MADV_RANDOM (thread.c) */
	dev_t dev;              /* its file, to reopen it by name */
	ino_t ino;
	uint32_t pid, gen;      /* with seq, the file's name (thread.c) */
	uint32_t seq;
	uint32_t tid;
	struct sc_thr_header *hdr;
	size_t map_len;
	uint32_t grave_next;
	struct sc_thread *all_next;     /* the one made before it (thread.c) */
	/*
	 * Only the first frames of a thread are used as a rule, so they come
	 * right after the fields above: a thread's state is one page of RSS
	 * (its file's path, 4 KB, is not kept here but made when needed).
	 */
	struct sc_frame frames[SC_FRAMES];
	/* Frames dropped from the stack because they looked abandoned, kept
	 * in case they were not: a coroutine's calls still in flight when
	 * another coroutine returned below them (swapcontext). */
	struct sc_frame grave[SC_GRAVE];
};

/* Global shadow-entry table, by entry index (offsets.h: EN_*). */
struct sc_entry {
	void *target;
	uint32_t flags;
	/* caller << 16 | callee (object ids), 0 for a call within one object,
	 * or SC_EDGE_ALONE: trampoline.S's sc_same_edge reads it. Here, not
	 * in an array of its own, so that an import's first call writes one
	 * page of the tables fewer (a copy in every fork child that binds) */
	uint32_t edge;
};

/*
 * Every hooked import, by import number (shadow.c; offsets.h: HK_*). 16
 * bytes, written for every import an object has (thousands in a large
 * server), most of them never called: addresses
 * are kept as offsets from their objects' load bias.
 */
struct sc_hook {
	uint32_t target_off;    /* target - base of object tobj */
	uint16_t tobj;          /* object holding the target (a wrapper's is
				   the runtime) */
	uint16_t caller;        /* object id */
	uint32_t slot_off;      /* GOT slot - caller's base; 0 for dlsym's */
	uint32_t bound;         /* low HK_IDX_BITS: its entry index + 1, 0
				   until first called; above: SC_ENT_* flags
				   as hooked (peek.c may add at bind) */
};

#define SC_OBJ_LOADS 4
/* A loaded object we know about. */
struct sc_object {
	uint32_t id;
	bool skip;              /* ourselves, the dynamic linker, the vDSO */
	bool gone;              /* dlclose'd */
	bool vdso, ldso;        /* its path names the vDSO, the dynamic linker */
	uintptr_t base;         /* l_addr */
	uintptr_t lo, hi;       /* span of its PT_LOAD segments */
	const ElfW(Dyn) *dyn;
	uintptr_t relro, relro_len;
	const char *path;
	const ElfW(Phdr) *phdr;
	int phnum;
	/* its PT_LOAD segments (their memory, file bytes ending at fhi, as
	 * offsets from base) and protection (PROT_*), copied from phdr at
	 * registration: a fork child has no page table entry for the
	 * object's page of program headers until it faults it in, at its
	 * first bind. nload 0 (more than SC_OBJ_LOADS, or past 4 GB): phdr
	 * is read. */
	uint8_t nload;
	uint8_t load_prot[SC_OBJ_LOADS];
	struct { uint32_t lo, hi, fhi; } load[SC_OBJ_LOADS];
	/* a GOT slot the runtime wrote and what it wrote last (under the leaf
	 * lock), and the loader's count of unloads when the object was
	 * registered: a copy loaded again at the same address after an
	 * unload the runtime did not see holds something else there */
	uintptr_t witness;
	void *witness_val;
	unsigned long long subs;
};

/* settings and globals (init.c) */
extern SC_HIDDEN __thread struct sc_thread *sc_tls_thread;
extern SC_HIDDEN __thread uint64_t sc_tls_lim;          /* entries' code (thread.c) */
extern SC_HIDDEN __thread struct sc_rec *sc_tls_recs;   /* entries' code (thread.c) */
extern SC_HIDDEN struct sc_entry *sc_entry_table;     /* intercept.S */
extern SC_HIDDEN struct sc_hook *sc_hook_table;   /* intercept.S */
/* An edge key no call has (edge_key gives 0 for caller == callee): entry
 * idx, the calibration's, walks the shadow stack as a call on an edge
 * does and finds no frame of its own edge. */
#define SC_EDGE_ALONE 0xffffffffu
extern SC_HIDDEN uint32_t sc_period_min, sc_period_max; /* trampoline.S */
extern SC_HIDDEN uint64_t sc_slow_ticks;               /* trampoline.S */
extern SC_HIDDEN uint64_t sc_period_budget;            /* trampoline.S */
extern SC_HIDDEN uint32_t sc_xsave_size;               /* slowpath.S, trampoline.S */
extern SC_HIDDEN uint64_t sc_block_ticks;              /* pclock.c, trampoline.S */
extern SC_HIDDEN uint64_t sc_outlier_ticks;            /* pclock.c, trampoline.S */
extern SC_HIDDEN uint64_t sc_ms_ticks;                 /* pclock.c */
extern SC_HIDDEN const uint16_t sc_span_geo[SC_SPAN_ROWS][256]; /* span.c, trampoline.S */
extern SC_HIDDEN int sc_have_xsave;                     /* slowpath.S */
extern SC_HIDDEN int sc_active;   /* 1 once start-up succeeded, until detached */
extern SC_HIDDEN int sc_attached; /* started by scaler_attach (attach.c) */
extern SC_HIDDEN int sc_detached; /* ... and detached since: nothing starts again */
extern SC_HIDDEN const char *sc_dir;     /* < 4000 bytes */
extern SC_HIDDEN int sc_timing_mode;
extern SC_HIDDEN struct sc_thread sc_idle_thread;
extern SC_HIDDEN struct sc_rec sc_inherited_rec; /* frames booked in no file (thread.c) */

/* the assembly, arch/x86_64/ */
void sc_shadow_common(void) SC_HIDDEN;
void sc_pending_common(void) SC_HIDDEN;	/* an import not bound yet */
void sc_shadow_rare(void) SC_HIDDEN;	/* an entry's calls off its counted path */
void sc_return_trampoline(void) SC_HIDDEN;
void sc_return_point(void) SC_HIDDEN;	/* a timed API's return address */
void sc_fn_own(void) SC_HIDDEN;		/* fnown.S: a function's own object's calls */
void sc_fn_return_point(void) SC_HIDDEN;	/* ... and their return address */
/* Whether a return address is one of the trampolines' (a timed call's). */
static inline bool sc_is_return_point(uint64_t a)
{
	return a == (uint64_t)(uintptr_t)sc_return_point ||
	       a == (uint64_t)(uintptr_t)sc_fn_return_point;
}
void sc_calib_nop(void) SC_HIDDEN;
unsigned long sc_calib_work(unsigned long x) SC_HIDDEN;
/* calls entry sc_calib_own_idx's function timed through fnown.S's path */
unsigned long sc_calib_own(unsigned long x) SC_HIDDEN;
extern SC_HIDDEN __thread long sc_calib_own_idx;
uint64_t sc_pclock_step(int64_t delta, uint64_t now) SC_HIDDEN;

/* pclock.c */
extern SC_HIDDEN struct sc_pclock sc_pclock;
extern SC_HIDDEN const uint32_t sc_recip[];     /* pclock.c: 2^16 / k */
extern SC_HIDDEN uint32_t sc_pclock_kmax;       /* pclock.c, asm.h, trampoline.S */
uint64_t sc_pclock_share(uint64_t ticks, uint64_t k) SC_HIDDEN;
void sc_pclock_oncpu(bool measured) SC_HIDDEN;
void sc_pclock_init(uint64_t tsc_hz) SC_HIDDEN;
void sc_pclock_after_fork(void) SC_HIDDEN;
uint64_t sc_pclock_entry(const struct sc_frame *f) SC_HIDDEN;

/* sort.c: qsort's contract, in place, without malloc */
void sc_rt_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *)) SC_HIDDEN;

/* util.c */
char *sc_put_u64(char *d, uint64_t v) SC_HIDDEN;
char *sc_put_s(char *d, const char *s) SC_HIDDEN;      /* s at d, unterminated; the end */

/* env.c: getenv's and strtoull's contracts (base 10, saturating) */
const char *sc_getenv(const char *name) SC_HIDDEN;
uint64_t sc_get_u64(const char *s, const char **end) SC_HIDDEN;
void sc_warn(const char *fmt, ...) SC_HIDDEN __attribute__((format(printf, 1, 2)));
bool sc_fd_is_perf_event(int fd) SC_HIDDEN;
/* "p" + 3 numbers of up to 10 digits + separators and extension */
#define SC_NAME_MAX 48
const char *sc_file_name(char buf[SC_NAME_MAX], uint32_t a, uint32_t b, const char *sep,
			 uint32_t c, const char *ext) SC_HIDDEN;
/* the first message from now on goes to buf instead of stderr, the others
 * nowhere, until called with n 0 (attach.c hands them to scaler) */
void sc_warn_capture(char *buf, size_t n) SC_HIDDEN;

/*
 * a == b for the runtime's tables of API names, which the scan consults
 * for every import (~200 names each time): most names differ from the
 * import's in their first byte, compared here before a call of strcmp.
 */
static inline bool sc_name_eq(const char *a, const char *b)
{
	return a[0] == b[0] && strcmp(a, b) == 0;
}
/* A table of wrappers by API name, and its lookup (NULL if absent). */
struct sc_wrapper {
	const char *name;
	void *fn;
};
void *sc_wrapper_find(const struct sc_wrapper *t, size_t n, const char *name) SC_HIDDEN;
#define SC_WRAPPER_FIND(t, name) sc_wrapper_find((t), sizeof(t) / sizeof((t)[0]), (name))
/* every name of a table of wrappers, to add(name) */
#define SC_WRAPPER_NAMES(t, add)                                         \
	do {                                                             \
		for (size_t i_ = 0; i_ < sizeof(t) / sizeof((t)[0]); i_++) \
			(add)((t)[i_].name);                             \
	} while (0)
uint64_t sc_rdtsc(void) SC_HIDDEN;
uint64_t sc_mono_ns(void) SC_HIDDEN;
uint64_t sc_clock_ns(clockid_t c) SC_HIDDEN;    /* once per image or thread */

/* meta.c */
int sc_meta_open(uint32_t pid, uint32_t first_gen) SC_HIDDEN;
void sc_meta_close(void) SC_HIDDEN;
void sc_meta_add(uint32_t type, const void *a, size_t alen, const char *str) SC_HIDDEN;
/* before a seccomp filter: the file mapped now, so that records take no
 * system call for a while */
void sc_meta_map_now(void) SC_HIDDEN;
/* the longest record, and the most payload it holds (with padding) */
#define SC_META_MAX 8192u
#define SC_META_ROOM (SC_META_MAX - sizeof(struct sc_meta_rec) - 8)
void sc_meta_batch(bool on) SC_HIDDEN;
void sc_meta_reopen_child(char *buf, size_t cap) SC_HIDDEN;
bool sc_meta_has_file(void) SC_HIDDEN;
uint32_t sc_meta_pid(void) SC_HIDDEN;
/* files.c: the runtime's files in the profile directory, by name */
int sc_files_init(void) SC_HIDDEN;
void sc_files_started(void) SC_HIDDEN;
struct stat;
int sc_fstat(int fd, struct stat *st) SC_HIDDEN;
int sc_file_create(const char *name, int flags, dev_t *dev, ino_t *ino) SC_HIDDEN;
int sc_file_still(int fd, const char *name, dev_t dev, ino_t ino, int flags) SC_HIDDEN;
int sc_file_reserve(int fd, const char *name, size_t len) SC_HIDDEN;
void sc_file_remove(const char *name) SC_HIDDEN;
void sc_file_close_same(int fd, dev_t dev, ino_t ino) SC_HIDDEN;
void sc_file_full(const char *name, int err) SC_HIDDEN;
/* A side file of a thread (.args, .kst): created as sc_file_create does,
 * len bytes reserved and mapped shared, its descriptor closed. Returns
 * the mapping, or NULL: *created says whether the file was made (then it
 * could not be reserved or mapped, and is removed again; errno is the
 * creation's otherwise). */
void *sc_file_map_new(const char *name, size_t len, bool *created) SC_HIDDEN;
int sc_file_open_fifo(const char *name) SC_HIDDEN;
void sc_files_close(void) SC_HIDDEN;
extern SC_HIDDEN uint32_t sc_gen;

/* mem.c: the runtime's memory (not the program's malloc) */
void *sc_mem_grow(void *p, size_t n) SC_HIDDEN;
void sc_mem_free(void *p) SC_HIDDEN;
void sc_mem_trim(void) SC_HIDDEN;
const char *sc_mem_strdup(const char *s) SC_HIDDEN;
void sc_mem_init(size_t table_bytes, size_t table_rw_bytes) SC_HIDDEN;
void *sc_mem_table(size_t bytes, size_t rw) SC_HIDDEN;
void *sc_mem_wipe_page(void) SC_HIDDEN;

/* shadow.c */
int sc_shadow_init(void) SC_HIDDEN;
size_t sc_shadow_bytes(size_t *rw) SC_HIDDEN;
/* Allocates an entry; returns its index or -1 (under the lock). */
long sc_entry_new(void *target, uint32_t flags, uint32_t edge) SC_HIDDEN;
void *sc_entry_code(uint32_t idx) SC_HIDDEN;
/* Hooks an import (under the lock): target lies in object `to` (NULL:
 * look it up). Returns its number; SC_HOOK_SKIP if this one cannot be
 * kept (an offset over 4 GB from a load bias), -1 if the table is full.
 * Writes its SC_M_ENTRY; slot (or 0) is repointed at its entry when
 * first called. */
#define SC_HOOK_SKIP (-2)
long sc_hook_new(void *target, struct sc_object *to, uint32_t flags, uint32_t caller,
		 uint32_t callee, const char *name, uintptr_t slot) SC_HIDDEN;
void *sc_hook_code(uint32_t n) SC_HIDDEN;
void *sc_hook_bind(uint32_t n) SC_HIDDEN;
void *sc_hook_pass(uint32_t n) SC_HIDDEN;     /* a call that cannot bind now */
void *sc_hook_target(uint32_t n) SC_HIDDEN;
uint32_t sc_entry_count(void) SC_HIDDEN;
uint32_t sc_hook_count(void) SC_HIDDEN;
/* whether pc lies in the entries' code (which counts calls) */
bool sc_shadow_code_has(uintptr_t pc) SC_HIDDEN;
/* whether p is code of an entry or of an import's stub: what a slot the
 * runtime wrote holds */
bool sc_shadow_code(const void *p) SC_HIDDEN;
void sc_hooks_unbind(void) SC_HIDDEN;
uint32_t sc_entry_flags_for(const char *name, void **wrapper) SC_HIDDEN;

/* objects.c */
void sc_objects_scan(bool patch) SC_HIDDEN;
void sc_objects_prune(void) SC_HIDDEN;
uint32_t sc_object_count(void) SC_HIDDEN;
struct sc_object *sc_object_get(uint32_t id) SC_HIDDEN;
struct sc_object *sc_object_of(uintptr_t addr) SC_HIDDEN;
int sc_object_seg_prot(const struct sc_object *o, uintptr_t a) SC_HIDDEN;
uintptr_t sc_object_base(uint32_t id) SC_HIDDEN;
uint32_t sc_object_id_of(uintptr_t addr) SC_HIDDEN;
size_t sc_object_code_len(uintptr_t addr) SC_HIDDEN;
uintptr_t sc_self_base(void) SC_HIDDEN;
const char *sc_self_path(void) SC_HIDDEN;

/* patch.c */
void sc_objects_patch(uint32_t first) SC_HIDDEN;
void sc_bind_self_to_libc(void) SC_HIDDEN;
void sc_objects_repoint(uint32_t id, uintptr_t slot, void *old, void *code) SC_HIDDEN;
void sc_objects_flush_due(void) SC_HIDDEN;
void sc_objects_after_fork(void) SC_HIDDEN;
extern SC_HIDDEN int32_t sc_pend_budget;
#define SC_PEND_CALLS 64        /* stub calls between looks at the waiting slots */

/* functions.c: patches the functions SCALER_FUNCTIONS names in the
 * objects registered from first on; whether path is the decoder it
 * loaded (left unhooked) */
void sc_functions_patch(uint32_t first) SC_HIDDEN;
/* (un)pauses the calls of every patched function (both locks held) */
void sc_functions_pause(bool on) SC_HIDDEN;
/* a patched function's replay copy for a shadow entry's target */
void *sc_functions_target(void *target) SC_HIDDEN;
/* where a call of patched function fn from another object goes on (slow.c) */
void *sc_fn_caller_code(uint32_t fn, uintptr_t ret) SC_HIDDEN;
void sc_slowpath(void) SC_HIDDEN;
bool sc_functions_decoder(const char *path) SC_HIDDEN;
/* lists patched function fn as refused, for reason why (fnsites.c) */
void sc_functions_refused(uint32_t fn, const char *why) SC_HIDDEN;

/* fnsites.c: the entries patched in an attached process (fnsite.h) */
void sc_fnsites_begin(const char *spec) SC_HIDDEN;
const char *sc_fnsites_spec(void) SC_HIDDEN;
bool sc_fnsites_deferred(void) SC_HIDDEN;
void sc_fnsites_end_defer(void) SC_HIDDEN;
uint64_t sc_fnsites_table(void) SC_HIDDEN;
size_t sc_fnsites_mark(void) SC_HIDDEN;
void sc_fnsites_truncate(size_t mark) SC_HIDDEN;
bool sc_fnsites_add(uintptr_t at, const uint8_t *orig, const uint8_t *jump, uint32_t len,
		    uint32_t fn, int state) SC_HIDDEN;
void sc_fnsites_unloaded(uintptr_t lo, uintptr_t hi) SC_HIDDEN;

/* lock.c */
void sc_lock(void) SC_HIDDEN;
void sc_unlock(void) SC_HIDDEN;
bool sc_lock_held(void) SC_HIDDEN;     /* by this thread */
/* the leaf lock: entries, the meta file, GOT writes; taken after the
 * runtime lock or alone, never held across the loader */
void sc_leaf_lock(void) SC_HIDDEN;
void sc_leaf_unlock(void) SC_HIDDEN;
bool sc_leaf_held(void) SC_HIDDEN;
bool sc_locks_try(void) SC_HIDDEN;
void sc_locks_give(void) SC_HIDDEN;
/* fork child: the lock was taken by the parent's thread in the prepare
 * handler; a recursive mutex cannot be unlocked by another tid, so the
 * child starts with a fresh, unlocked one */
void sc_lock_reset_child(void) SC_HIDDEN;

/* thread.c */
struct sc_thread *sc_thread_get(void) SC_HIDDEN;   /* creates on first use */
int sc_thread_grow(struct sc_thread *t) SC_HIDDEN;
/* the calling thread's file gets room before a seccomp filter */
void sc_thread_room_before_filter(void) SC_HIDDEN;
void sc_thread_busy(struct sc_thread *t) SC_HIDDEN;
/* sc_tls_thread = t, and what the entries read of it (thread.c) */
void sc_thread_set_current(struct sc_thread *t) SC_HIDDEN;
/* the entries' copy of the current thread's cap and recs, after a change */
void sc_thread_publish(void) SC_HIDDEN;
void sc_thread_idle(struct sc_thread *t) SC_HIDDEN;
void sc_thread_finish(struct sc_thread *t, uint64_t tsc) SC_HIDDEN;
void sc_threads_finish_all(uint64_t tsc) SC_HIDDEN;
void sc_thread_after_fork(void) SC_HIDDEN;
/* every thread state made so far (ended ones too), newest first: the
 * first, then each one's all_next until NULL */
struct sc_thread *sc_thread_first(void) SC_HIDDEN;
/* thread tid's CPU time in ns (0: the calling thread's), 0 if unknown */
uint64_t sc_thread_cpu_ns(uint32_t tid) SC_HIDDEN;
/* the calling thread's voluntary and involuntary context switches */
bool sc_thread_switches(long *vol, long *invol) SC_HIDDEN;
void sc_threads_close(void) SC_HIDDEN;
extern SC_HIDDEN __thread uintptr_t sc_tls_start_routine;

/* calib.c: what timing a call costs, taken off each timed call */
uint64_t sc_calibrate_start(uint64_t tsc_hz, const struct sc_calib *given) SC_HIDDEN;
struct sc_calib sc_calib_in_force(void) SC_HIDDEN;
void sc_calib_thread_init(struct sc_thread *t) SC_HIDDEN;
void sc_recalibrate(struct sc_thread *t, uint64_t now) SC_HIDDEN;
extern SC_HIDDEN struct sc_calib sc_cal0;

/* slow.c */
void sc_unwind_prepare(struct sc_thread *t, uintptr_t rsp) SC_HIDDEN;
void sc_tail_credit(struct sc_frame *f, uint64_t now) SC_HIDDEN;
/* The call of record r, estimated at `ticks`, returned above frame `above`
 * (exclusive): the nearest frame below on the same edge books it as
 * nested (sc_rec.dup_ticks), as trampoline.S's sc_same_edge does. */
void sc_same_edge_credit(struct sc_thread *t, struct sc_frame *above, const struct sc_rec *r,
			 uint64_t ticks) SC_HIDDEN;
void sc_rec_book(struct sc_rec *r, uint64_t start, uint64_t t, uint64_t self, uint64_t w,
		 uint64_t pticks) SC_HIDDEN;

/* span.c: the next span for period per, drawn from the thread's
 * generator *rng (as trampoline.S) */
uint32_t sc_span_draw(uint32_t per, uint64_t *rng) SC_HIDDEN;
/* perf.c: the kernel's view of each thread (context switches, kernel
 * samples); none of it is fatal: a thread without it has kind NONE */
void sc_perf_init(uint64_t tsc_hz) SC_HIDDEN;
/* kcpu.c: kernel samples from the recorder's per-CPU events */
typedef void (*sc_kcpu_fn)(struct sc_thread *t, uint64_t ns, const uint64_t *chain, uint64_t nr,
			   void *arg);
void sc_kcpu_init(void) SC_HIDDEN;
int sc_kcpu_process(void) SC_HIDDEN;
bool sc_kcpu_drop(void) SC_HIDDEN;
void sc_kcpu_thread_start(struct sc_thread *t) SC_HIDDEN;
/* whether switch records must carry the CPU (many CPUs); else each
 * switch-in is told with sc_kcpu_switched */
bool sc_kcpu_switch_cpu(void) SC_HIDDEN;
void sc_kcpu_switched(struct sc_thread *t) SC_HIDDEN;
void sc_kcpu_visit(struct sc_thread *t, uint32_t cpu) SC_HIDDEN;
void sc_kcpu_lost(struct sc_thread *t) SC_HIDDEN;
void sc_kcpu_read(struct sc_thread *t, uint64_t until, sc_kcpu_fn fn, void *arg) SC_HIDDEN;
void sc_perf_thread_start(struct sc_thread *t) SC_HIDDEN;
void sc_perf_thread_end(struct sc_thread *t) SC_HIDDEN;
void sc_perf_uid_change(void) SC_HIDDEN;
/* before a seccomp filter is installed (seccomp.c; first: the first
 * time): no thread makes the system calls of its time before its ring
 * from then on */
void sc_perf_seccomp(bool first) SC_HIDDEN;
/* fork child: drop the parent's thread's ring (not mapped in the child) */
void sc_perf_forget(struct sc_thread *t) SC_HIDDEN;
void sc_perf_return(struct sc_frame *f, uint64_t now) SC_HIDDEN;
uint64_t sc_perf_off(struct sc_frame *f, uint64_t now) SC_HIDDEN;
void sc_perf_reset(struct sc_thread *t, uint64_t from) SC_HIDDEN;
/* at the end: the gap since t's last switch-out if it is off the CPU
 * now (ticks, 0 if not), its TSC in *at, its time in *out_at, a
 * preemption or not; and the kernel stack of that switch-out, given to
 * frame g's call */
uint64_t sc_perf_open_gap(const struct sc_thread *t, uint64_t now, uint64_t *at, uint64_t *out_at,
			  bool *preempt) SC_HIDDEN;
void sc_perf_open_stack(struct sc_thread *t, const struct sc_frame *g, uint64_t out_at) SC_HIDDEN;
/* one kernel stack (innermost first) of entry slot `entry` counted w
 * times in table h (.kst, .kso: format.h) */
void sc_kst_add(struct sc_kst_header *h, uint32_t entry, const uint64_t *ip, uint32_t n,
		uint64_t w) SC_HIDDEN;
/* a callchain's kernel frames, without perf's context markers */
uint32_t sc_perf_kernel_frames(const uint64_t *chain, uint64_t nr, uint64_t *out) SC_HIDDEN;

/* offcpu.c: the kernel stacks a thread blocked in (record --kernel, the
 * sched_switch tracepoint where allowed); none of it is fatal */
void sc_offcpu_init(void) SC_HIDDEN;
void sc_offcpu_thread_start(struct sc_thread *t) SC_HIDDEN;
void sc_offcpu_thread_end(struct sc_thread *t) SC_HIDDEN;
void sc_offcpu_forget(struct sc_thread *t) SC_HIDDEN;
/* t, switched out at out_ns (CLOCK_MONOTONIC) in entry slot `entry` (as
 * sc_kst_add's), stayed blocked ns (0: it was preempted) */
void sc_offcpu_gap(struct sc_thread *t, uint32_t entry, uint64_t out_ns, uint64_t ns) SC_HIDDEN;
void sc_offcpu_open(struct sc_thread *t, uint32_t entry, uint64_t out_ns, uint64_t ns) SC_HIDDEN;

/* init.c: start-up (0, or -1 said and left unhooked); the end of the
 * image, status from exit()/_exit() when known */
int sc_start(const char *dir, const char *timing, int argc, char **argv) SC_HIDDEN;
void sc_record_end(int status, uint32_t how) SC_HIDDEN;
void sc_record_exec(void) SC_HIDDEN;
void sc_fork_child_setup(void) SC_HIDDEN;       /* a fork child's own state */

/* rawfork.c: a child made without the fork handlers; sc_fork_mark is
 * read by trampoline.S (zero: such a child, whose state is its parent's) */
extern SC_HIDDEN uint64_t *sc_fork_mark;
void sc_rawfork_init(void) SC_HIDDEN;
bool sc_rawfork_claim(void) SC_HIDDEN;
bool sc_rawfork_own(void) SC_HIDDEN;
bool sc_rawfork_adopt(void) SC_HIDDEN;
extern SC_HIDDEN int sc_exit_status;
extern SC_HIDDEN volatile int sc_in_signal;
void sc_signals_init(void) SC_HIDDEN;
void *sc_signal_wrapper(const char *name) SC_HIDDEN;
void sc_signal_wrapper_names(void (*add)(const char *name)) SC_HIDDEN;

/* pause.c: while sc_paused (under the leaf lock), every hooked GOT slot
 * holds its call's destination: calls are neither counted nor timed.
 * sc_unpatch_all and sc_repatch_all set it and rewrite the slots (both
 * locks held); sc_pause_target is what import n's slot holds paused. */
extern SC_HIDDEN bool sc_paused;
void sc_unpatch_all(void) SC_HIDDEN;
void sc_repatch_all(void) SC_HIDDEN;
void *sc_pause_target(uint32_t n) SC_HIDDEN;

/* control.c */
void sc_control_init(void) SC_HIDDEN;   /* before the first scan */
void sc_control_listen(void) SC_HIDDEN; /* once the runtime is active */
void sc_control_run(void) SC_HIDDEN;    /* a request that waited for a lock */
void sc_control_end(uint64_t tsc) SC_HIDDEN;
uint64_t sc_control_paused_in(uint64_t from, uint64_t to) SC_HIDDEN;
void sc_control_after_fork(void) SC_HIDDEN;    /* the child's new stream */
void sc_control_recal(struct sc_thread *t, uint64_t now) SC_HIDDEN;
extern SC_HIDDEN int sc_control_due;
bool sc_control_handler(void *h) SC_HIDDEN;     /* is h its handler */

/* attach.c: a fork child of an attached process runs unprofiled */
void sc_attach_child(void) SC_HIDDEN;
/* unpatch.c: every GOT slot the runtime wrote back to the value it held
 * before (detaching); how many were put back */
size_t sc_unpatch_detach(void) SC_HIDDEN;

/* exec.c */
void sc_exec_init(void) SC_HIDDEN;

/* inherit.c: values handed down through exec (SCALER_CALIB) */
struct sc_inherited {
	uint64_t hz;
	struct sc_calib cal;
	uint32_t xsave_size;
	int have_xsave;
	uint32_t pid, gen;      /* the image that exec'd: its meta file's pid */
	bool has_image;         /* and gen, if it said (has_image) */
};
bool sc_inherit_get(struct sc_inherited *out) SC_HIDDEN;
void sc_inherit_set_clock(uint64_t tsc, uint64_t mono, uint64_t hz) SC_HIDDEN;
bool sc_inherit_format(char *buf, size_t n) SC_HIDDEN;
void *sc_exec_wrapper(const char *name) SC_HIDDEN;
void sc_exec_wrapper_names(void (*add)(const char *name)) SC_HIDDEN;
/* uids.c: set*uid wrappers that declare the new user first */
void *sc_uid_wrapper(const char *name) SC_HIDDEN;
void sc_uid_wrapper_names(void (*add)(const char *name)) SC_HIDDEN;
/* seccomp.c: prctl and syscall, which may install a seccomp filter;
 * once one may be in force, sc_sandboxed: the runtime makes no system
 * call it can do without (a filter may kill the process for it) */
extern SC_HIDDEN bool sc_sandboxed;
void *sc_seccomp_wrapper(const char *name) SC_HIDDEN;
void sc_seccomp_wrapper_names(void (*add)(const char *name)) SC_HIDDEN;

/* wrap.c */
/* The wrapper for an API, or NULL. A wrapper runs untimed (it sees the
 * program's return address) unless it sets *timed. */
void *sc_wrapper_for(const char *name, bool *timed) SC_HIDDEN;
void sc_wrapper_names(void (*add)(const char *name)) SC_HIDDEN;

#endif
