/*
 * model.h - what `scaler report` derives from a loaded profile (profile.h):
 * per process image and for the whole profile, the components (objects
 * sharing a basename), the calls between them by (caller, callee, api),
 * the time each component spends in each other one, and its self time.
 *
 * All derived times are in nanoseconds, rounded to integers once per
 * (caller, callee, api) key and per thread, so that the component arithmetic
 * is exact integer arithmetic (see the self-time invariant in model.c).
 */
#ifndef SCALER_MODEL_H
#define SCALER_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "estimate.h"
#include "profile.h"

/* A caller component's time spent in one callee component. */
struct sc_edge {
	const char *callee;
	int64_t ns;             /* sum of total_ns of calls caller -> callee */
	uint64_t calls;
	/* An edge no call was seen on (calls 0): the callee ran entered
	 * through function pointers nothing intercepts, and ns (attr_ns
	 * attributed) is the time taken for it off the caller (the callee's
	 * unseen_in_ns); the caller's other calls into it are another edge. */
	int unseen;
	int64_t attr_ns;
	int64_t wait_ns;        /* part of ns blocked (the calls' wait_ns) */
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
	/* Entered unseen: a component without threads that calls out for
	 * longer than it was seen to run (threads_ns + in_ns) was entered
	 * through function pointers (Python's extension modules); the
	 * difference is its unseen_in_ns, taken as unseen_out_ns off the
	 * components that run threads (model.c: take_unseen). */
	int64_t unseen_in_ns, unseen_out_ns;
	/* The part of in_ns already on the stack: made on its own threads
	 * (callbacks), so in threads_ns (all of in_ns when it is the only
	 * component of its process running threads), or nested in a call
	 * into it through another edge (model.c: find_nested). */
	int64_t reenter_ns, attr_reenter_ns;
	/* On the stack: threads_ns + in_ns - reenter_ns + unseen_in_ns, at
	 * most all threads' time (model.c: comp_total). */
	int64_t total_ns;
	/* threads_ns + in_ns + unseen_in_ns - out_ns - unseen_out_ns; may
	 * be < 0 (estimates) */
	int64_t self_ns;
	int64_t wait_ns;        /* part of out_ns spent in blocking APIs */
	/* The blocked part of its self time: the Wait of the calls into it
	 * that is their own, not their calls out (epoll_wait's in libc).
	 * self_ns - self_wait_ns is its work: what the component view shows
	 * apart, so that blocking is never read as a library's work. */
	int64_t self_wait_ns;
	int64_t preempt_ns;     /* part of out_ns off-CPU but runnable */
	/* The same two figures with every call's time weighted by 1/k, k the
	 * threads running (not waiting) while it ran (paper section 3.4): the
	 * component's share of the process's critical time. */
	int64_t attr_total_ns;
	int64_t attr_self_ns;
	int64_t attr_threads_ns;    /* its threads' attributed effective time */
	int64_t attr_unseen_in_ns, attr_unseen_out_ns;
	size_t nout;
	struct sc_edge *out;    /* out_by_callee, by ns desc, calls desc, name */
};

/* A kernel function and the time a call key spent in it (inclusive). */
struct sc_call_kfunc {
	const char *name;
	int64_t ns;
};

/* Sums the n kernel functions of v by name, in place, and orders them
 * largest first (ties by name); returns how many remain. */
size_t sc_kfuncs_sum(struct sc_call_kfunc *v, size_t n);

/* Calls aggregated by (caller component, callee component, api). */
struct sc_call {
	const char *caller;
	const char *callee;
	const char *api;        /* the API as people read it (C++ demangled) */
	const char *symbol;     /* ... and as linked: the calls' key */
	uint64_t count;         /* exact */
	uint64_t timed;         /* calls measured: total_ns is estimated from
				   them (all of count in timing "all") */
	int64_t total_ns;       /* estimated inclusive time */
	int64_t self_ns;        /* estimated exclusive time, >= 0 */
	int64_t edge_ns;        /* its part of its edge's time: total_ns less
				   the calls on the same edge nested in these
				   (theirs already), so that the edge's time
				   (sc_edge.ns) counts no time twice */
	int wait;               /* a blocking API (SC_ENT_WAIT): time is Wait */
	int function;           /* a function patched at its entry (SC_ENT_FUNC),
				   not an import */
	int64_t wait_ns;        /* part of total_ns that is Wait: all of it for
				   a blocking API, the blocked calls of a
				   read-like one (SC_ENT_IOWAIT) */
	int64_t attr_ns;        /* total_ns weighted by 1/k running threads */
	/* Measured by the kernel (measured 1: some of its calls ran on
	 * threads with perf events, 2: with kernel samples): off-CPU blocked (then wait_ns is it),
	 * off-CPU preempted, on-CPU in the kernel, and that kernel time's
	 * functions, inclusive, largest first (record --kernel); okfuncs:
	 * the same of its blocked time, the functions of the kernel stacks
	 * it blocked at (the sched_switch tracepoint) */
	int measured;
	int64_t blocked_ns, preempt_ns, kernel_ns;
	int64_t self_preempt_ns;        /* the part of preempt_ns in self_ns */
	size_t nkfuncs, nokfuncs;
	struct sc_call_kfunc *kfuncs, *okfuncs;
	int64_t max_ns;         /* longest timed call */
	int64_t p50_ns, p99_ns; /* from hist, interpolated within a bucket */
	/* Estimated calls per latency bucket: hist[i] counts calls of
	 * [sc_hist_lo_ns(i), sc_hist_lo_ns(i + 1)) ns. */
	uint64_t hist[SC_HIST_BUCKETS];
	/* Argument and return values (--args), by name; owned by the agg */
	uint32_t nargs;
	struct sc_argdist *args;
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
	int wait_source;            /* enum sc_wait_source over its images */
	int kernel_sampled;         /* some thread had kernel samples */
};

/* The aggregates of one profile: one per image and one of them all. */
struct sc_model {
	const struct sc_profile *p;
	struct sc_agg agg;          /* all images, summed by name */
	size_t nimages;
	struct sc_agg *images;      /* images[i] is of p->images[i] */
};

/* Build the model of p (loaded by sc_profile_load; placeholder names of
 * unknown objects are added to its strings). Free with sc_model_free. */
void sc_model_build(struct sc_model *m, struct sc_profile *p);
void sc_model_free(struct sc_model *m);

/* Names the threads' start routines the runtime could not (routines.c):
 * from the objects' symbols, when their files can be read. */
void sc_model_name_routines(struct sc_profile *p);

/* The aggregate of one of m->p's images. */
const struct sc_agg *sc_model_image(const struct sc_model *m, const struct sc_image *im);

/* Look up a component of an aggregate by name, NULL if absent. */
/* ns (a part of call k's total: its Wait, its attributed time) as it
 * counts in k's edge: in proportion to edge_ns's share of total_ns. */
int64_t sc_call_on_edge(const struct sc_call *k, int64_t ns);
const struct sc_component *sc_agg_component(const struct sc_agg *a, const char *name);

#endif
