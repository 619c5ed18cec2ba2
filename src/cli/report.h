/*
 * report.h - what the writers of `scaler report` share: the selection the
 * options make (one process, one component, a share threshold, a sort
 * order), the thread groups, and the formatting helpers for people.
 *
 * cmd_report.c parses the options, loads the profile and builds its model
 * (model.h), fills a `struct report` with report_select() and hands it to
 * the writer --format names in the table of report_writers.c
 * (report_text.c, report_json.c, ...). Every writer shows the same rows:
 * the filtering and ordering is done once, here.
 */
#ifndef SCALER_REPORT_H
#define SCALER_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "model.h"

enum report_sort {
	SORT_TOTAL, SORT_SELF, SORT_COUNT, SORT_AVG, SORT_P99, SORT_NAME, SORT_ATTR,
};

/* What a stack export weighs its frames by (--weight). */
enum report_weight { WEIGHT_TIME, WEIGHT_COUNT };

/* Threads with the same start routine (report_model.c). */
struct report_group {
	const char *routine;
	uint64_t threads;
	int64_t wall_ns, wait_ns, attr_ns;
	int64_t preempt_ns;     /* measured runnable, off-CPU, in calls */
	int64_t cpu_ns;         /* its threads' CPU time, -1 if one's is
				   not known */
	/* where its threads ran: one image and one object holding their
	 * start routine, else NULL / UINT32_MAX; when they started (the
	 * first and the last one, ns on the image's clock) */
	const struct sc_image *image;
	uint32_t routine_obj;
	long double start_lo, start_hi;
	uint32_t seq_lo, seq_hi;        /* their thread numbers */
	uint64_t calls;                 /* the calls they made, exact */
	uint64_t barrier_threads;       /* those that called pthread_barrier_wait */
	uint64_t barrier_calls;         /* how often */
	/* set on a group of workers that a slower group of the same kind
	 * (report_model.c: report_groups) keeps waiting; `slower` is then
	 * that group's index (the slowest one), and the evidence: the call
	 * they wait for each other in (pthread_barrier_wait, pthread_join),
	 * its count, and how far apart the two groups' threads started */
	int imbalance;
	size_t slower;
	const char *rendezvous;
	uint64_t rendezvous_calls;
	int64_t start_spread_ns;
};

struct report {
	FILE *out;
	const struct sc_profile *p;
	const struct sc_model *model;   /* of p */
	const struct sc_image *only;    /* --pid: that image alone, else NULL */
	const struct sc_agg *agg;       /* model->agg, or only's aggregate */
	const char *component;          /* --component PATTERN as given, else NULL */
	/* the components it selects (report_select: report_match_components) */
	size_t nselected;
	const char **selected;
	enum report_sort sort;
	double min_percent;             /* --min-percent; 0 shows every row */
	int threads;                    /* --threads: the per-thread tables */
	enum report_weight weight;      /* --weight: the stack exports' unit */
	int color;                      /* ANSI colour in the text view */
	int cols;                       /* the text view's width: the terminal's,
					   else $COLUMNS, else 120 (0: 120) */
	int timed;                      /* the profile has times (not --timing=none) */
	/* calls shown, in display order (the agg's own rows) */
	size_t ncalls;
	const struct sc_call **calls;
	/* components shown, in display order */
	size_t ncomp;
	const struct sc_component **comp;
	size_t ngroups;
	struct report_group *groups;    /* of the selected images */
	/* calls over time (record --interval; series.h), or NULL */
	const struct series *series;
};

/* What every format says of an edge the model found unseen (model.h:
 * unseen_in_ns): the callee was entered where nothing intercepts. */
#define UNSEEN_NOTE "entered through pointers: not seen"

/* ---- report_model.c ---- */

/* Parse a --sort key; -1 if unknown. */
int report_sort_parse(const char *s);
/* The i-th --sort key (what it orders by in *help), NULL past the last. */
const char *report_sort_choice(size_t i, const char **help);

/* Fill r's rows from r->p, r->only, r->agg and the options. */
void report_select(struct report *r);
void report_release(struct report *r);

/* Is image im part of the report (all of them unless --pid)? */
int report_has_image(const struct report *r, const struct sc_image *im);

/* Walking the threads (those with a .thr file) of all images, or of
 * `only`: start with it zeroed; NULL at the end; *im is the thread's image. */
struct report_iter {
	size_t i, k;
};
const struct sc_thread *report_next_thread(const struct sc_profile *p, const struct sc_image *only,
					   struct report_iter *it, const struct sc_image **im);

/* Thread groups of all images (only == NULL) or of one of m's; *out is
 * malloc'd. */
size_t report_groups(const struct sc_model *m, const struct sc_image *only,
		     struct report_group **out);

/* "main" for the main thread, the routine symbol, or "?" if unknown. */
const char *report_thread_routine(const struct sc_thread *t);

/* Is a row of ns (timed) or count (untimed) under --min-percent? */
int report_row_hidden(const struct report *r, int64_t ns, uint64_t count);

/* Is a call / component row shown (--component, --min-percent)? The
 * per-process lists of the JSON use these on their own rows. */
int report_call_shown(const struct report *r, const struct sc_call *c);
int report_comp_shown(const struct report *r, const struct sc_component *c);

/* Does a call's latency histogram have any count? */
int report_has_hist(const struct sc_call *c);

/* A group's effective (not waiting) time per thread. */
long double report_group_eff(const struct report_group *g);

void *report_xcalloc(size_t n, size_t size);

/* ---- report_match.c: --component PATTERN ---- */

/* The names of a's components that pattern selects (a whole name, a glob,
 * or the start of names: report_match.c) into out, which has room for
 * a->ncomp; returns how many. */
size_t report_match_components(const struct sc_agg *a, const char *pattern,
			       const char **out);
/* Is the component called name selected (always, without --component)? */
int report_comp_selected(const struct report *r, const char *name);

/* ---- report_names.c: function names for people ---- */

/* The length of sym without its clone suffixes (".isra.0", ".constprop.1",
 * ".part.0", ".cold", ...; "foo.part.0.cold" -> 3), also when already
 * demangled ("f(int) [clone .isra.0]" -> 6); strlen(sym) if none. */
size_t report_clone_base(const char *sym);
/* The function a call's api (the model's name, already demangled) or its
 * clone belongs to, in buf or api itself: "foo(int) [clone .isra.0]" ->
 * "foo(int)", "bar.cold" -> "bar". */
const char *report_function_name(const char *api, char *buf, size_t n);

/* ---- report_functions.c: a component's patched functions ---- */

struct report_fn_figures {
	uint64_t count, timed;
	int64_t total_ns, self_ns, max_ns;  /* inclusive, exclusive */
	int64_t run_ns;                     /* self_ns less its preempted part:
					       on the CPU, as a sampling
					       profiler sees it (excl) */
	int64_t p50_ns, p99_ns;             /* valid if has_hist */
	int has_hist;
	uint64_t hist[SC_HIST_BUCKETS];
	const char *caller;                 /* the first caller seen */
	int callers_many;                   /* and others too */
};

/* One symbol of a function: itself, or one of its clones. */
struct report_fn_part {
	const char *symbol;                 /* as linked: "_Z3fooi.isra.0" */
	const char *api;                    /* demangled: "foo(int) [clone .isra.0]" */
	const char *suffix;                 /* symbol's clone suffix, "" if none */
	struct report_fn_figures fig;
};

/* A function and its clones, every caller's calls summed. */
struct report_fn {
	char *name;                         /* report_function_name */
	struct report_fn_figures fig;
	size_t nparts;
	struct report_fn_part *parts;       /* by run_ns, total_ns, count desc */
};

/* The functions of component among r's shown calls of kind "function",
 * by total_ns then count desc, into *out (free with
 * report_functions_free); returns how many. */
size_t report_functions(const struct report *r, const char *component, struct report_fn **out);
/* The self time of component c on the CPU: its self_ns less the preempted
 * part of the self time of the calls into it (the %self of excl). */
int64_t report_comp_run_ns(const struct report *r, const struct sc_component *c);
void report_functions_free(struct report_fn *fn, size_t n);

/* ---- report_kernel.c: an API's time below the system call ---- */

/* A call row's time: user code, on-CPU kernel (record --kernel), blocked
 * and preempted, adding up to its total_ns. */
struct report_ksplit {
	int64_t user, kernel, blocked, preempted;
};
void report_kernel_split(const struct sc_call *c, struct report_ksplit *s);
/* The views show the split of a row measured by the kernel whose kernel,
 * blocked and preempted parts hold at least this percentage of it. */
#define REPORT_KERNEL_PCT 5
int report_kernel_shown(const struct sc_call *c);
/* Is a kernel function a system call's own ("__x64_sys_write",
 * "ksys_write")? */
int report_kernel_syscall(const char *name);
/* Indexes into c->kfuncs of the system call, then of the functions below
 * it, largest first (report_kernel.c says how far that is the call
 * chain), at most max; how many (0: no kernel functions). */
size_t report_kernel_chain(const struct sc_call *c, size_t *idx, size_t max);
/* The same of c->okfuncs: where its blocked time was spent (the stacks
 * it blocked at, record --kernel with the sched_switch tracepoint). */
size_t report_kernel_off_chain(const struct sc_call *c, size_t *idx, size_t max);

/* ---- report_fmt.c: text for people ---- */

int report_text_width(const char *s);
/* s cut to width columns with a trailing "…", control characters as '?' */
void report_fit(char *dst, size_t n, const char *s, int width);
/* The n names cut to width columns each as report_fit does, into out
 * (n rows of outsz bytes), except that two different names never come
 * out the same: those that would keep their ends ("head…tail"), and if
 * even that cannot tell them apart, get "~N" (their order) at the end. */
void report_fit_unique(char *out, size_t outsz, const char *const *names, size_t n, int width);
void report_fmt_count(char *b, size_t n, uint64_t v);
void report_fmt_ns(char *b, size_t n, long double ns);
void report_fmt_pct(char *b, size_t n, long double part, long double whole);
int64_t report_clamp0(int64_t v);
/* A component's work: its self time (clamped at 0) less the Wait inside
 * it (model.h: self_wait_ns); what is left of the self time is Wait. */
int64_t report_comp_work(const struct sc_component *c);
const struct sc_image *report_root_image(const struct sc_profile *p);
void report_fmt_command(char *b, size_t n, const struct sc_image *im);
void report_status_label(char *b, size_t n, const struct sc_image *im);
const char *report_timing_desc(uint32_t mode);
/* Where Wait came from (enum sc_wait_source): a word for JSON, a line */
const char *report_wait_name(int source);
const char *report_wait_desc(int source);
/* The one-line explanation of an imbalanced group g (of r->groups). */
void report_imbalance_text(char *b, size_t n, const struct report *r,
			   const struct report_group *g);

/* ---- report_stacks.c: the nesting tree ----
 *
 * Per process: process -> each component that runs threads (its threads'
 * time) -> each API it calls, "callee:api" -> under an API of component
 * X, X's own calls out, apportioned by that API's share of X's nested
 * time -> ... The measured figures hold at every level (an API node's
 * children add up to no more than its time, a process's to its threads'
 * time); where a component's calls out sit among the APIs that called it
 * is an estimate (report_stacks.c). The folded, speedscope, pprof and
 * HTML writers all walk this one array.
 */
enum stack_kind { STACK_PROCESS, STACK_COMPONENT, STACK_API };
#define STACK_NONE ((size_t)-1)

struct stack_node {
	size_t parent;          /* index of the parent, STACK_NONE for a process */
	size_t end;             /* one past the last node of its subtree */
	enum stack_kind kind;
	unsigned depth;         /* 0 for a process, 1 for a component */
	const char *name;       /* command name / component / API */
	const char *component;  /* the component the frame runs in (an API's
				   callee); NULL for a process */
	const struct sc_image *image;
	const struct sc_call *call; /* the call row an API node is part of */
	size_t frame;           /* index into the tree's frames: nodes of the
				   same label share one */
	int64_t ns;             /* inclusive time: >= the children's sum */
	int64_t self_ns;        /* ns less the children's ns */
	uint64_t count;         /* calls of this node itself (API nodes) */
	uint64_t total_count;   /* count plus the children's total_count */
};

struct stack_tree {
	size_t n;
	struct stack_node *nodes;  /* preorder: a node's subtree is [i, end) */
	int truncated;             /* the node cap was reached */
	size_t nframes;
	size_t *frames;            /* per frame: its first node */
};

/* Longest path: the process, its component and the API levels. */
#define STACK_MAX_PATH 32

/* The tree of the report's processes (all, or --pid's); free it with
 * report_stacks_free. */
void report_stacks(const struct report *r, struct stack_tree *t);
void report_stacks_free(struct stack_tree *t);
/* A node's own weight (its leaf value in folded stacks) and its subtree's. */
uint64_t report_stack_self(const struct stack_node *n, enum report_weight w);
uint64_t report_stack_total(const struct stack_node *n, enum report_weight w);
/* The nodes from node i's process down to i, into path (STACK_MAX_PATH);
 * returns how many. */
size_t report_stack_path(const struct stack_tree *t, size_t i, size_t *path);
/* A node's frame name: "cmd[pid]" (".gen" after an exec), the component,
 * or "callee:api". */
void report_stack_label(const struct stack_node *n, char *buf, size_t len);
/* The label as the exports show it: an API's C++ name demangled, as in the
 * text and HTML views ("libstdc++.so.6:operator new(unsigned long)"). */
void report_stack_title(const struct stack_node *n, char *buf, size_t len);

/* ---- the writers ---- */
void report_text(const struct report *r);
void report_json(const struct report *r);
/* One call as an object of the report's "calls" (also `scaler live`'s). */
struct sc_json;
void report_json_call(struct sc_json *j, const struct sc_call *c);
void report_csv(const struct report *r);
void report_html(const struct report *r);
void report_folded(const struct report *r);
void report_speedscope(const struct report *r);
void report_chrome(const struct report *r);
void report_pprof(const struct report *r);

/* ---- report_writers.c: the table of them ---- */

struct report_writer {
	const char *name;               /* --format NAME */
	const char *description;        /* one line, for the help */
	void (*write)(const struct report *r);
};

/* The writer called name, or NULL. */
const struct report_writer *report_writer(const char *name);
/* The i-th writer's name (its description in *help), NULL past the last:
 * the choices of --format. */
const char *report_writer_choice(size_t i, const char **help);

#endif
