/*
 * profile.h - loading a profile directory (format.h) into memory and
 * deriving the numbers `scaler report` shows.
 *
 * All derived times are in nanoseconds, rounded to integers once per
 * (caller, callee, api) key and per thread, so that the component arithmetic
 * below is exact integer arithmetic (see the self-time invariant in
 * profile.c).
 */
#ifndef SCALER_PROFILE_H
#define SCALER_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "format.h"

/* Latency histograms in the report: bucket i holds [2^i, 2^(i+1)) ns
 * (bucket 0 also everything below 1 ns); the last is open-ended. */
#define SC_HIST_BUCKETS 40
static inline uint64_t sc_hist_lo_ns(int i) { return i == 0 ? 0 : (uint64_t)1 << i; }

/* A caller component's time spent in one callee component. */
struct sc_edge {
	const char *callee;
	int64_t ns;             /* sum of total_ns of calls caller -> callee */
	uint64_t calls;
};

/* Objects sharing a basename form one component. */
struct sc_component {
	const char *name;       /* basename; unique within one sc_agg */
	const char *path;       /* path of the first object seen with the name */
	uint32_t nthreads;      /* threads that belong to the component */
	int64_t threads_ns;     /* wall time of those threads */
	int64_t in_ns;          /* calls into it from other components */
	int64_t out_ns;         /* its calls into other components */
	uint64_t in_calls, out_calls;
	int64_t total_ns;       /* threads_ns + in_ns */
	int64_t self_ns;        /* total_ns - out_ns; may be < 0 (estimates) */
	int64_t wait_ns;        /* part of out_ns spent in blocking APIs */
	/* The same two figures with every call's time weighted by 1/k, k the
	 * threads running (not waiting) while it ran (paper section 3.4): the
	 * component's share of the process's critical time. */
	int64_t attr_total_ns;
	int64_t attr_self_ns;
	int64_t attr_threads_ns;    /* its threads' attributed effective time */
	size_t nout;
	struct sc_edge *out;    /* out_by_callee, by ns desc, calls desc, name */
};

/* Calls aggregated by (caller component, callee component, api). */
struct sc_call {
	const char *caller;
	const char *callee;
	const char *api;
	uint64_t count;         /* exact */
	uint64_t timed;         /* calls measured: total_ns is estimated from
				   them (all of count in timing "all") */
	int64_t total_ns;       /* estimated inclusive time */
	int64_t self_ns;        /* estimated exclusive time, >= 0 */
	int wait;               /* a blocking API (SC_ENT_WAIT): time is Wait */
	int64_t wait_ns;        /* part of total_ns that is Wait: all of it for
				   a blocking API, the blocked calls of a
				   read-like one (SC_ENT_IOWAIT) */
	int64_t attr_ns;        /* total_ns weighted by 1/k running threads */
	int64_t max_ns;         /* longest timed call */
	int64_t p50_ns, p99_ns; /* from hist, interpolated within a bucket */
	/* Estimated calls per latency bucket: hist[i] counts calls of
	 * [sc_hist_lo_ns(i), sc_hist_lo_ns(i + 1)) ns. */
	uint64_t hist[SC_HIST_BUCKETS];
};

struct sc_agg {
	size_t ncomp;
	struct sc_component *comp;  /* by total_ns desc, then name */
	size_t ncalls;
	struct sc_call *calls;      /* by total_ns desc, count desc, names */
	int64_t threads_ns;         /* sum of all threads' wall time */
	int64_t attr_ns;            /* critical time: threads' effective time
				       weighted by 1/k running threads */
	uint64_t calls_count;       /* sum of count over calls */
};

struct sc_object {
	uint32_t id;
	uint32_t flags;         /* SC_OBJ_* */
	uint64_t base;
	const char *path;
	const char *name;       /* component name: basename of path */
	int unloaded;           /* an SC_M_UNLOAD record was seen */
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
	long double attr_ticks;     /* est_ticks weighted by 1/k (parallel clock) */
	long double block_ticks;    /* part of est_ticks that blocked (Wait) */
	long double hist[SC_REC_HIST]; /* estimated calls per tick bucket */
	uint64_t max_ticks;
	long double total_ns;
	long double self_ns;
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
	uint64_t start_p, end_p;    /* parallel clock (format.h) */
	long double calls_ticks, calls_attr; /* its timed calls, raw and 1/k */
	long double wait_p;         /* parallel clock spent in Wait APIs */
	int64_t attr_ns;            /* effective time weighted by 1/k running */
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
	struct sc_agg agg;
	/* the interceptor's cost taken off each timed call, over the
	 * threads' measurements (sc_thr_header.ovh_*), in ticks, and as ns
	 * (0 without measurements or a clock rate) */
	uint64_t ovh_sum, ovh_n;
	uint64_t ovh_min, ovh_max;
	int64_t ovh_mean_ns, ovh_min_ns, ovh_max_ns;
};

#define SC_TIMING_MIXED 0xffffffffu

struct sc_profile {
	const char *dir;
	size_t nimages;
	struct sc_image *images;    /* by pid, then gen */
	uint32_t timing_mode;       /* common to all images, or SC_TIMING_MIXED */
	int64_t wall_ns;            /* largest wall_ns of any image */
	struct sc_agg agg;          /* all images, summed by name */
	/* private: every string above points into blocks owned here */
	void *strings_;
};

/* Load `dir`. Returns 0, or -1 with a one-line message (naming the file at
 * fault) in err; *out needs sc_profile_free in both cases. */
int sc_profile_load(const char *dir, struct sc_profile *out, char *err, size_t errlen);
void sc_profile_free(struct sc_profile *p);

/* "adaptive", "all", "none", "mixed" or "unknown". */
const char *sc_timing_name(uint32_t mode);

/* Look up a component of an aggregate by name, NULL if absent. */
const struct sc_component *sc_agg_component(const struct sc_agg *a, const char *name);

#endif
