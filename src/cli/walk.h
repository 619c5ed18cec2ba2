/*
 * walk.h - CrossWalk's descent on a profile (walk.c), for `scaler walk`:
 * from the process down the nesting tree (report.h) to the component, the
 * API or patched function, and below a system call into the kernel, at
 * each level taking the child that holds at least the threshold of the
 * whole time, with a branch of its own for a child close to it.
 *
 * The time walked is on-CPU time by default: each place's time less what
 * its calls were measured blocked (or, unmeasured, Wait by their names)
 * and preempted, so that a server's busy path is followed rather than
 * where it sleeps; with wall set, the whole time, blocked included.
 *
 * The kernel levels need per-call kernel data (`scaler record --kernel`);
 * a profile without it ends the walk above the kernel, and says so.
 */
#ifndef SCALER_WALK_H
#define SCALER_WALK_H

#include <stddef.h>
#include <stdint.h>

#include "report.h"

#define WALK_MAX_STEPS 40       /* STACK_MAX_PATH, threads, functions, kernel */
#define WALK_MAX_BRANCHES 4

enum walk_level {
	WALK_PROCESS, WALK_THREADS, WALK_COMPONENT, WALK_API, WALK_FUNCTION,
	WALK_SYSCALL, WALK_KERNEL,
};

struct walk_step {
	enum walk_level level;
	char name[256];         /* "cmd[pid]", a thread group, a component,
				   an API or function (demangled), a kernel
				   function */
	char component[256];    /* the component its code runs in (component,
				   API, function: the callee) */
	char file[1024];        /* that component's file, "" if unknown */
	char caller[256];       /* API, function: the calling component */
	char symbol[256];       /* function: its symbol as linked, "" if none */
	char root[256];         /* component: the start routine of its thread
				   with the most time ("main"), "" if none */
	/* API, function: blocked (Wait) and preempted in this place: of ns
	 * in a wall walk, besides ns in an on-CPU one */
	int64_t wait_ns, off_preempt_ns;
	long double bytes;      /* API: mean bytes per call (record --args:
				   a size its prototype names), 0 if none */
	/* API, function measured by the kernel (record --kernel): of ns, on
	 * CPU in the kernel and preempted (-1: not measured); and the
	 * deepest kernel function holding half its kernel time, "" if none */
	int64_t kernel_ns, preempt_ns;
	char kernel_fn[128];
	int64_t kernel_fn_ns;
	uint64_t calls;         /* API, function: the calls in this place */
	uint64_t untimed;       /* functions of its component patched and
				   called from it, counted but not timed */
	double share;           /* of the whole time, in [0, 1] */
	int64_t ns;
	int64_t self_ns;        /* of ns, what none of its children holds */
};

struct walk_path {
	size_t n;
	struct walk_step step[WALK_MAX_STEPS];
};

struct walk {
	int wall;               /* walks wall time, not on-CPU time */
	int64_t total_ns;       /* the whole time: all processes' threads'
				   (on-CPU: less blocked and preempted) */
	double threshold;       /* share a child needs to be descended into */
	struct walk_path path;
	size_t nbranches;
	struct walk_path branch[WALK_MAX_BRANCHES];  /* whole paths too */
	int kernel_data;        /* the profile has per-call kernel data */
};

/* The name of a level as the JSON says it ("process", "api", ...). */
const char *walk_level_name(enum walk_level l);

/* The walk of the profile in dir; 0, or -1 with a one-line message in
 * err. */
int walk_dir(const char *dir, double threshold, int wall, struct walk *w, char *err,
	     size_t errlen);

/* The walk of r's processes (r filled by report_select) at threshold
 * (0 < threshold <= 1) into *w, of wall time if wall is set, else of
 * on-CPU time. */
void walk_run(const struct report *r, double threshold, int wall, struct walk *w);

/* The walk as a sentence a person can act on, then its steps. */
void walk_text(FILE *o, const struct walk *w);
/* {"format": "scaler-walk", "version": 1, "time": "on-cpu"|"wall",
 *  "path": [...], "branches": [...]} */
void walk_json(FILE *o, const struct walk *w);

#endif
