/*
 * profile.h - what the reader makes of a profile directory (format.h): its
 * process images, each with its objects, shadow entries and threads, their
 * counters summed and estimated (estimate.h), in ticks and in nanoseconds.
 *
 * The reader checks the format version of every file: it reads versions
 * SC_FORMAT_MIN_VERSION to SC_FORMAT_VERSION and fills in what an older
 * one lacks as unknown. What the report derives from this (components,
 * calls between them, their self times) is the model: src/cli/model.h.
 */
#ifndef SCALER_PROFILE_H
#define SCALER_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "argdist.h"
#include "format.h"

struct sc_object {
	uint32_t id;
	uint32_t flags;         /* SC_OBJ_* */
	uint64_t base;
	const char *path;
	const char *name;       /* component name: basename of path */
	int unloaded;           /* an SC_M_UNLOAD record was seen */
};

/* A kernel function and the time its entry's calls spent in it (inclusive). */
struct sc_kfunc {
	const char *name;
	long double ticks;
};

/* A shadow entry with its counters summed over the image's threads. */
struct sc_entry {
	uint32_t idx;
	uint32_t caller, callee;    /* object ids */
	uint32_t flags;             /* SC_ENT_* */
	const char *raw_name;       /* as recorded */
	const char *api;            /* sc_api_name(raw_name) */
	uint64_t count;
	uint64_t timed;
	long double est_ticks;      /* estimated inclusive ticks, overhead removed */
	long double self_ticks;     /* estimated exclusive ticks */
	long double dup_ticks;      /* of est_ticks, calls on the same edge
				       nested inside (sc_estimate_dup) */
	long double attr_ticks;     /* est_ticks weighted by 1/k (parallel clock) */
	long double block_ticks;    /* part of est_ticks that blocked (Wait):
				       measured where its threads were
				       (blocked_ticks), else by its name */
	/* Measured by the kernel (format 6, threads with perf_kind set):
	 * off-CPU blocked, off-CPU preempted (runnable), on-CPU in the
	 * kernel; and the kernel functions of that kernel time, inclusive,
	 * largest first (record --kernel), and those of its blocked time
	 * (okfuncs: the stacks it blocked at, with the sched_switch
	 * tracepoint) */
	long double blocked_ticks, preempt_ticks, kernel_ticks;
	long double self_preempt_ticks; /* the part of preempt_ticks in self_ticks */
	size_t nkfuncs, nokfuncs;
	struct sc_kfunc *kfuncs, *okfuncs;
	long double hist[SC_REC_HIST]; /* estimated calls per tick bucket */
	uint64_t max_ticks;
	long double total_ns;
	long double self_ns;
	long double dup_ns;         /* dup_ticks */
	uint32_t nargs;             /* values kept (--args: the .args files) */
	struct sc_argdist *args;
};

struct sc_thread {
	uint32_t seq;
	uint32_t tid;
	uint64_t start_routine;     /* 0 for the main thread or if unknown */
	uint32_t routine_obj;       /* UINT32_MAX if unknown */
	uint32_t obj;               /* object id of the component it belongs to */
	char name[17];              /* comm from the .thr header */
	int has_file;               /* a .thr file was read */
	int has_meta;               /* an SC_M_THREAD record was seen */
	uint64_t nrecs;             /* counter records in the .thr file */
	uint64_t start_tsc, end_tsc;/* end_tsc as recorded (0 = still running) */
	uint64_t last_tsc;      /* latest timed return seen by the runtime */
	uint64_t wall_ticks;        /* with the fallbacks of profile.c applied */
	int64_t wall_ns;
	const char *routine;        /* start routine symbol, "" if unknown */
	long double wait_ticks;     /* estimated time in Wait APIs */
	int64_t wait_ns;
	/* measured off-CPU but runnable in its timed calls (perf_kind) */
	long double preempt_ticks;
	int64_t preempt_ns;
	/* its CPU time (user and system) as the kernel counted it, if
	 * has_cpu (not: killed, counting paused or reset, an older file) */
	int has_cpu;
	int64_t cpu_ns;
	uint64_t start_p, end_p;    /* parallel clock (format.h) */
	long double calls_ticks, calls_attr; /* its timed calls, raw and 1/k */
	long double wait_p;         /* parallel clock spent in Wait APIs */
	int64_t attr_ns;            /* effective time weighted by 1/k running */
	uint64_t paused_ticks, paused_p; /* of its life, counting paused
					    (taken off wall_ticks, attr_ns) */
	uint64_t calls;             /* calls it made through every entry, exact */
	uint64_t barrier_calls;     /* of them, pthread_barrier_wait's */
	int perf_kind;              /* enum sc_perf_kind: how its Wait is known */
	unsigned perf_lost;         /* records the kernel dropped */
	int off_split;              /* off_untimed and rblocked are kept */
	uint64_t off_untimed;       /* ticks blocked outside timed calls */
	int on_cpu;                 /* the runtime kept off_p, and wpticks
				       of on-CPU time only */
	uint64_t off_p;             /* parallel clock while off-CPU */
};

/* A thread's longest timed call through one entry (format version 5 on:
 * sc_rec.max_tsc), for the trace export's call slices. */
struct sc_longest {
	uint32_t seq;               /* the thread */
	uint32_t entry;             /* index into the image's entries */
	uint64_t start_tsc;
	uint64_t ticks;
};

/* A function --functions matched that the runtime did not patch. */
struct sc_skipped {
	uint32_t obj;               /* object id */
	const char *name, *reason;
};

/* Where an image's Wait comes from. */
enum sc_wait_source {
	SC_WAIT_NAMES = 0,          /* guessed from API names (SC_ENT_WAIT...) */
	SC_WAIT_MEASURED = 1,       /* measured: time off-CPU, blocked */
	SC_WAIT_MIXED = 2,          /* measured on some threads only */
};

/* One process image: one pid between two execs. */
struct sc_image {
	const char *meta_file;      /* file name within the profile directory */
	struct sc_meta_header hdr;
	uint32_t pid, ppid, gen;
	uint32_t timing_mode;       /* enum sc_timing_mode */
	size_t argc;
	const char **argv;          /* SC_M_CMDLINE strings (last record wins) */
	int has_end, has_exit;
	struct sc_m_end end;
	struct sc_m_exit exit;
	long double tsc_hz;         /* 0 if unknown: then all times are 0 */
	int hz_from_end;            /* tsc_hz is the long-baseline calibration */
	int64_t wall_ns;            /* EXIT.wall_ns, else END - start, else 0 */
	int exit_status;            /* EXIT, else END.status if exited, else -1 */
	int incomplete;             /* neither END nor EXIT was recorded */
	int torn_tail;              /* the .meta ended inside a record */
	size_t nobjects;
	struct sc_object *objects;  /* by id */
	size_t nentries;
	struct sc_entry *entries;   /* by idx */
	size_t nthreads;
	struct sc_thread *threads;  /* by seq */
	size_t nlongest;
	struct sc_longest *longest; /* in the order read */
	size_t nskipped;
	struct sc_skipped *skipped; /* in the order recorded */
	int wait_source;            /* enum sc_wait_source, over its threads */
	int kernel_sampled;         /* some thread had kernel samples */
	/* the interceptor's cost taken off each timed call, over the
	 * threads' measurements (sc_thr_header.ovh_*), in ticks, and as ns
	 * (0 without measurements or a clock rate); unknown (ovh_unknown
	 * set) in a format 3 profile, which has no such figures */
	int ovh_unknown;
	uint64_t ovh_sum, ovh_n;
	uint64_t ovh_min, ovh_max;
	int64_t ovh_mean_ns, ovh_min_ns, ovh_max_ns;
};

#define SC_TIMING_MIXED 0xffffffffu

/* A file of the directory the reader did not use, and why (one line). */
struct sc_skipped_file {
	const char *file;           /* name within the profile directory */
	const char *reason;
};

struct sc_profile {
	const char *dir;
	size_t nimages;
	struct sc_image *images;    /* by pid, then gen */
	uint32_t timing_mode;       /* common to all images, or SC_TIMING_MIXED */
	int64_t wall_ns;            /* largest wall_ns of any image */
	size_t nskipped_files;
	struct sc_skipped_file *skipped_files; /* by file name */
	/* bytes of fork parents' .meta files read for their children's
	 * records (profile.c: each file's start, once, as far as referred) */
	uint64_t parent_bytes_read;
	/* private: every string above points into blocks owned here */
	void *strings_;
};

/*
 * Load `dir`. A file the reader cannot trust or use is skipped and listed
 * in out->skipped_files (profile.c says which files it trusts), with its
 * image's other files when it is a .meta; the rest is loaded. Returns 0,
 * or -1 with a one-line message in err when the directory cannot be read
 * or no image could be (naming the first file skipped); *out needs
 * sc_profile_free in both cases.
 */
int sc_profile_load(const char *dir, struct sc_profile *out, char *err, size_t errlen);
void sc_profile_free(struct sc_profile *p);

/*
 * The uids that the run's processes declared they became (SC_M_UID) in
 * the .meta files of directory dirfd that its owner dir_uid or root owns:
 * a file owned by one of them was made by the run. Returns their number
 * (repeats kept) and the array in *out (malloc'ed, NULL when none).
 */
size_t sc_profile_run_uids(int dirfd, uid_t dir_uid, uint32_t **out);

/*
 * Opens directory dirfd's file name for reading if it is the run's as the
 * reader takes it: a regular file (not a link) owned by dir_uid, root or
 * one of uids (sc_profile_run_uids). The descriptor with *st filled in,
 * or -1 with the reason in why. (The reader also takes a thread's files
 * of any owner that its image's metadata declares.)
 */
int sc_profile_open_run_file(int dirfd, uid_t dir_uid, const uint32_t *uids, size_t nuids,
			     const char *name, struct stat *st, char *why, size_t whylen);

/* One line per skipped file on f: "scaler: skipped DIR/FILE: reason". */
void sc_profile_print_skipped(const struct sc_profile *p, FILE *f);

/* "adaptive", "all", "none", "mixed" or "unknown". */
const char *sc_timing_name(uint32_t mode);

/* A copy of s kept with p's strings (freed by sc_profile_free). */
const char *sc_profile_strdup(struct sc_profile *p, const char *s);

/* The object `id` of an image, NULL if unknown. */
const struct sc_object *sc_image_object(const struct sc_image *im, uint32_t id);

/* Component name of an object id; an unknown id gets a placeholder,
 * "[object N]", kept with the profile's strings. */
const char *sc_object_name(struct sc_profile *p, const struct sc_image *im, uint32_t id);

#endif
