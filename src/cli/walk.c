/*
 * walk.c - CrossWalk's descent (walk.h) on the nesting tree of a profile
 * (report_stacks.c): Mirgorodskiy and Miller start at main, take the callee
 * whose inclusive time is above a threshold of the whole run, and go on
 * from it until no callee is; below a system call they go on in the
 * kernel. Here the levels are the tree's: the process with the most time,
 * the component whose threads run, the API (or patched function) each
 * component calls, nested as the tree nests them, then the kernel.
 *
 * The time walked is on-CPU time unless the wall walk is asked for: a
 * node's time less the blocked and preempted time of the calls below it
 * (node_weights: each call row's measured parts, or unmeasured its Wait,
 * scaled to the node's part of the row, summed up the tree), its own
 * code's time counted as on CPU (a component blocks in calls). Every
 * share is of the whole time walked (all processes' threads), as the
 * threshold is: a step's share never exceeds its parent's. A child within
 * a quarter of the chosen one and above the threshold too is walked as a
 * branch of its own (a whole path), up to WALK_MAX_BRANCHES.
 *
 * Functions patched with --functions and called from their own component
 * are no edge of the tree (report_stacks.c): they are offered as children
 * of a node of that component, their time scaled by the node's part of
 * the component's self time, the placing being unknown as it is for the
 * tree's own rows. Their nesting among themselves is not recorded, so a
 * function ends the walk above the kernel.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "argdist.h"
#include "json.h"
#include "walk.h"
#include "walk_deeper.h"

#define CLOSE_NUM 2     /* a child is close to the chosen one when it has */
#define CLOSE_DEN 3     /* at least 2/3 of its time */
#define MAX_CANDS 256   /* children looked at per node (the largest) */
#define WALK_CALLEES 256        /* callees of a function looked at */
#define WALK_GROUP 64           /* processes alike walked as one */

struct cand {
	enum walk_level level;
	const char *name;       /* of the step; NULL: label is (a cand is moved
				   by qsort: it cannot point into itself) */
	char label[256];        /* "cmd[pid]", a function's name for people */
	const char *component, *caller;
	uint64_t calls;
	int64_t ns, self_ns;    /* the time walked */
	int64_t wait_ns, preempt_ns;    /* blocked and preempted there */
	size_t node;            /* in the tree, STACK_NONE if not a node */
	size_t nodes[WALK_GROUP], nnodes;       /* the same place in
						   processes alike (node
						   first) */
	int64_t wall_ns;        /* of the nodes */
	const struct sc_image *image;
	const char *symbol;     /* function: as linked (the largest part's) */
	int64_t fn_total;       /* function: the time of all its calls */
	/* API, function, kernel: the call row, and the part of it in this
	 * place; kernel: its place in the row's kernel chain */
	const struct sc_call *call;
	long double part;
	size_t chain;
};

struct ctx {
	const struct report *r;
	const struct stack_tree *t;
	struct walk *w;
	int64_t min_ns;         /* threshold * total */
	/* per node of t: the time walked (on-CPU or wall), its part that no
	 * child holds, and the blocked and preempted time below it */
	int64_t *ns, *self_ns, *blocked_ns, *preempt_ns;
};

static const char *const level_names[] = {
	[WALK_PROCESS] = "process", [WALK_THREADS] = "threads", [WALK_COMPONENT] = "component",
	[WALK_API] = "api", [WALK_FUNCTION] = "function", [WALK_SYSCALL] = "syscall",
	[WALK_KERNEL] = "kernel",
};

const char *walk_level_name(enum walk_level l)
{
	return level_names[l];
}

static const char *cname(const struct cand *c)
{
	return c->name ? c->name : c->label;
}

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return strcmp(cname(x), cname(y));
}

/* The component a node's own code runs in. */
static const char *node_component(const struct stack_node *n)
{
	return n->kind == STACK_COMPONENT ? n->name : n->component;
}

/*
 * The blocked and preempted parts of ns of call row c's time (its
 * measured parts, else its Wait), each at most what is left of ns. A
 * blocking API (epoll_wait, sigsuspend: SC_ENT_WAIT) runs no code of its
 * own but its kernel's: all its time but its kernel samples' (none
 * without record --kernel) and its preempted time is blocked, whatever
 * the switches measured (a switch record lost from a thread's full ring
 * would leave a long sleep counted as on CPU).
 */
static void call_off(const struct sc_call *c, int64_t ns, int64_t *blocked, int64_t *preempted)
{
	struct report_ksplit k;
	long double f;
	int64_t b;

	*blocked = *preempted = 0;
	if (!c || c->total_ns <= 0 || ns <= 0)
		return;
	report_kernel_split(c, &k);
	f = (long double)ns / (long double)c->total_ns;
	b = c->measured ? k.blocked : c->wait_ns;
	if (c->wait && c->total_ns - k.preempted - k.kernel > b)
		b = c->total_ns - k.preempted - k.kernel;
	*blocked = (int64_t)((long double)b * f);
	*preempted = (int64_t)((long double)k.preempted * f);
	if (*blocked > ns)
		*blocked = ns;
	if (*preempted > ns - *blocked)
		*preempted = ns - *blocked;
}

/* The time walked of ns of call row c's time: all of it in a wall walk,
 * else its on-CPU part. */
static int64_t call_walked(const struct ctx *x, const struct sc_call *c, int64_t ns)
{
	int64_t b, p;

	if (x->w->wall)
		return ns;
	call_off(c, ns, &b, &p);
	return ns - b - p;
}

/* The CPU time of the threads of image im that run component comp's
 * code, as the kernel counted it; -1 if one of them has none. */
static int64_t threads_cpu(const struct sc_image *im, const char *comp)
{
	int64_t sum = 0;

	for (size_t i = 0; i < im->nthreads; i++) {
		const struct sc_thread *t = &im->threads[i];
		const struct sc_object *o = sc_image_object(im, t->obj);

		if (!o || !o->name || strcmp(o->name, comp))
			continue;
		if (!t->has_cpu)
			return -1;
		sum = sc_add_sat(sum, t->cpu_ns);
	}
	return sum;
}

/*
 * Each node's blocked and preempted time and time walked (x->ns...): an
 * API node's own from its call row, scaled to its part of the row, plus
 * its children's, at most its time (the runtime books a switch to the
 * innermost timed call in flight: a row's parts are its own, not its
 * callees'). Preorder: a node's children follow it, so one pass from
 * the end has every child done before its parent.
 */
static int node_weights(struct ctx *x)
{
	const struct stack_tree *t = x->t;
	size_t n = t->n ? t->n : 1;

	x->ns = calloc(n, sizeof(*x->ns));
	x->self_ns = calloc(n, sizeof(*x->self_ns));
	x->blocked_ns = calloc(n, sizeof(*x->blocked_ns));
	x->preempt_ns = calloc(n, sizeof(*x->preempt_ns));
	if (!x->ns || !x->self_ns || !x->blocked_ns || !x->preempt_ns)
		return -1;
	/* self_ns holds the children's time walked until the node is done */
	for (size_t i = t->n; i-- > 0;) {
		const struct stack_node *nd = &t->nodes[i];
		int64_t b = 0, p = 0, ns = nd->ns > 0 ? nd->ns : 0, kids = x->self_ns[i];

		/* its row's own parts, within what its children leave */
		if (nd->kind == STACK_API) {
			int64_t self = nd->self_ns > 0 ? nd->self_ns : 0;

			call_off(nd->call, nd->ns, &b, &p);
			b = b < self ? b : self;
			p = p < self - b ? p : self - b;
		}
		b += x->blocked_ns[i];
		p += x->preempt_ns[i];
		x->blocked_ns[i] = b < ns ? b : ns;
		x->preempt_ns[i] = p < ns - x->blocked_ns[i] ? p : ns - x->blocked_ns[i];
		x->ns[i] = x->w->wall ? ns : ns - x->blocked_ns[i] - x->preempt_ns[i];
		/* a component's threads: their own code's time off the CPU
		 * (preempted, faults) is in no call; the kernel's count of
		 * their CPU time tells it */
		if (!x->w->wall && nd->kind == STACK_COMPONENT && nd->depth == 1) {
			int64_t cpu = threads_cpu(nd->image, nd->name);

			if (cpu >= 0)
				x->ns[i] = cpu > ns ? ns : cpu > kids ? cpu : kids;
		}
		/* a process is its components' threads */
		if (!x->w->wall && nd->kind == STACK_PROCESS)
			x->ns[i] = kids < ns ? kids : ns;
		x->self_ns[i] = x->ns[i] > kids ? x->ns[i] - kids : 0;
		if (nd->parent != STACK_NONE) {
			x->blocked_ns[nd->parent] += x->blocked_ns[i];
			x->preempt_ns[nd->parent] += x->preempt_ns[i];
			x->self_ns[nd->parent] += x->ns[i];
		}
	}
	return 0;
}

/* Is sym one of the n names? */
static int named(char **names, size_t n, const char *sym)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], sym))
			return 1;
	return 0;
}

/*
 * The functions of component comp (of image im) called from comp itself,
 * as candidates c[nc...]: all of them, or when within is a function's
 * symbol those it calls (found in the component's file by walk_callees:
 * which function called which is not recorded), else those no patched
 * function of comp calls. Each gets part of its
 * time, at most cap. Clones are one function (report_function_name).
 */
static size_t own_functions(const struct ctx *x, const struct sc_image *im, const char *comp,
			    const char *within, long double part, int64_t cap, struct cand *c,
			    size_t nc)
{
	const struct sc_agg *a = sc_model_image(x->r->model, im);
	const struct sc_component *k = sc_agg_component(a, comp);
	char *callees[WALK_CALLEES], err[256], dem[1024];
	size_t ncallees = 0;

	if (!k || cap <= 0 || part <= 0)
		return nc;
	if (within && !(ncallees = walk_callees(k->path, &within, 1, callees, WALK_CALLEES, err,
						 sizeof(err))))
		return nc;
	/* not within one: those no patched function calls, which are offered
	 * under the function instead */
	for (size_t i = 0; !within && i < a->ncalls && ncallees < WALK_CALLEES; i++) {
		const struct sc_call *f = &a->calls[i];
		const char *sym = f->symbol ? f->symbol : f->api;

		if (f->function && f->total_ns > 0 && !strcmp(f->callee, comp))
			ncallees += walk_callees(k->path, &sym, 1, callees + ncallees,
						 WALK_CALLEES - ncallees, err, sizeof(err));
	}
	for (size_t i = 0; i < a->ncalls && nc < MAX_CANDS; i++) {
		const struct sc_call *f = &a->calls[i];
		const char *sym = f->symbol ? f->symbol : f->api;
		const char *name;
		size_t j;

		if (!f->function || f->total_ns <= 0 || strcmp(f->callee, comp) ||
		    strcmp(f->caller, comp) || (within != NULL) != named(callees, ncallees, sym))
			continue;
		name = report_function_name(f->api, dem, sizeof(dem));
		for (j = 0; j < nc && (c[j].level != WALK_FUNCTION || strcmp(cname(&c[j]), name)); j++)
			;
		if (j == nc) {
			memset(&c[nc], 0, sizeof(c[nc]));
			c[nc].level = WALK_FUNCTION;
			snprintf(c[nc].label, sizeof(c[nc].label), "%s", name);
			c[nc].name = NULL;
			c[nc].component = comp;
			c[nc].caller = comp;
			c[nc].node = STACK_NONE;
			c[nc].image = im;
			nc++;
		}
		int64_t here = (int64_t)((long double)f->total_ns * part), b, p;

		if (!c[j].symbol || call_walked(x, f, f->total_ns) > c[j].fn_total)
			c[j].symbol = sym;
		c[j].fn_total += call_walked(x, f, f->total_ns);
		if (!c[j].call || f->total_ns > c[j].call->total_ns) {
			c[j].call = f;
			c[j].part = part;
		}
		call_off(f, here, &b, &p);
		c[j].wait_ns += b;
		c[j].preempt_ns += p;
		c[j].ns += call_walked(x, f, here);
		c[j].calls += (uint64_t)((long double)f->count * part + 0.5L);
		if (c[j].ns > cap)
			c[j].ns = cap;
	}
	for (size_t i = 0; i < ncallees; i++)
		free(callees[i]);
	return nc;
}

/* Functions of node n's component called from within it (see the top):
 * under a patched function's node, those it calls. */
static size_t function_cands(const struct ctx *x, const struct stack_node *n, int64_t cap,
			     struct cand *c, size_t nc)
{
	const struct sc_agg *a = sc_model_image(x->r->model, n->image);
	const char *comp = node_component(n);
	const struct sc_component *k = sc_agg_component(a, comp);
	const char *within = NULL;
	long double part;

	if (!k || k->self_ns <= 0 || n->self_ns <= 0)
		return nc;
	part = (long double)n->self_ns / (long double)k->self_ns;
	if (part > 1)
		part = 1;
	if (n->kind == STACK_API && n->call && n->call->function)
		within = n->call->symbol ? n->call->symbol : n->call->api;
	return own_functions(x, n->image, comp, within, part, cap, c, nc);
}

/* Processes forked alike (same parent, same command line: a server's
 * workers) are one step, as a thread group is: their work is one. */
static int alike(const struct sc_image *a, const struct sc_image *b)
{
	if (a->ppid != b->ppid || a->gen != b->gen || a->argc != b->argc)
		return 0;
	for (size_t i = 0; i < a->argc; i++)
		if (strcmp(a->argv[i], b->argv[i]))
			return 0;
	return 1;
}

/* The aggregate row of all images for call row c (sc_model's agg: summed
 * by name), for a step made of nodes of several processes; c if none. */
static const struct sc_call *agg_call(const struct ctx *x, const struct sc_call *c)
{
	const struct sc_agg *a = &x->r->model->agg;

	for (size_t i = 0; c && i < a->ncalls; i++)
		if (!strcmp(a->calls[i].caller, c->caller) && !strcmp(a->calls[i].callee, c->callee) &&
		    !strcmp(a->calls[i].api, c->api) && a->calls[i].function == c->function)
			return &a->calls[i];
	return c;
}

/* Node j as a new candidate k. */
static void node_cand(const struct ctx *x, size_t j, struct cand *k)
{
	const struct stack_tree *t = x->t;
	const struct stack_node *n = &t->nodes[j];

	memset(k, 0, sizeof(*k));
	k->node = j;
	k->nodes[0] = j;
	k->nnodes = 1;
	k->ns = x->ns[j];
	k->self_ns = x->self_ns[j];
	k->wait_ns = x->blocked_ns[j];
	k->preempt_ns = x->preempt_ns[j];
	k->wall_ns = n->ns;
	k->image = n->image;
	switch (n->kind) {
	case STACK_PROCESS:
		k->level = WALK_PROCESS;
		report_stack_label(n, k->label, sizeof(k->label));
		k->name = NULL;
		break;
	case STACK_COMPONENT:
		k->level = WALK_COMPONENT;
		k->name = n->name;
		break;
	case STACK_API:
		k->level = n->call && n->call->function ? WALK_FUNCTION : WALK_API;
		k->name = n->call ? n->call->api : n->name;
		if (k->level == WALK_FUNCTION) {
			char dem[1024];

			snprintf(k->label, sizeof(k->label), "%s",
				 report_function_name(k->name, dem, sizeof(dem)));
			k->name = NULL;
		}
		k->component = n->component;
		k->caller = node_component(&t->nodes[n->parent]);
		k->calls = n->count;
		if (n->call && n->call->function) {
			k->symbol = n->call->symbol ? n->call->symbol : n->call->api;
			k->fn_total = call_walked(x, n->call, n->call->total_ns);
		}
		k->call = n->call;
		if (n->call && n->call->total_ns > 0)
			k->part = (long double)n->ns / (long double)n->call->total_ns;
		break;
	}
}

/* Adds node j to candidate k (the same place in another process). */
static void merge_node(const struct ctx *x, size_t j, struct cand *k)
{
	struct cand m;

	node_cand(x, j, &m);
	if (k->nnodes < WALK_GROUP)
		k->nodes[k->nnodes++] = j;
	k->ns += m.ns;
	k->self_ns += m.self_ns;
	k->wait_ns += m.wait_ns;
	k->preempt_ns += m.preempt_ns;
	k->wall_ns += m.wall_ns;
	k->calls += m.calls;
	if (k->call && m.call && k->call != m.call) {
		/* rows of several images: their sum, for the kernel part */
		k->call = agg_call(x, k->call);
		k->part = k->call->total_ns > 0 ? (long double)k->wall_ns /
			  (long double)k->call->total_ns : 0;
		if (k->symbol)
			k->fn_total = call_walked(x, k->call, k->call->total_ns);
	} else if (k->call && k->call->total_ns > 0) {
		k->part = (long double)k->wall_ns / (long double)k->call->total_ns;
	}
}

/* The processes, those alike as one candidate "cmd[pid] and N alike". */
static size_t processes(const struct ctx *x, struct cand *c)
{
	const struct stack_tree *t = x->t;
	size_t nc = 0;

	for (size_t j = 0; j < t->n; j = t->nodes[j].end) {
		size_t g;

		for (g = 0; g < nc && !alike(c[g].image, t->nodes[j].image); g++)
			;
		if (g < nc)
			merge_node(x, j, &c[g]);
		else if (nc < MAX_CANDS)
			node_cand(x, j, &c[nc++]);
	}
	for (size_t g = 0; g < nc; g++)
		if (c[g].nnodes > 1) {
			size_t len = strlen(c[g].label);

			snprintf(c[g].label + len, sizeof(c[g].label) - len, " and %zu alike",
				 c[g].nnodes - 1);
		}
	return nc;
}

/* The children of candidate at (NULL: the processes), largest first: of
 * each of its nodes, those of the same place one candidate. */
static size_t children(const struct ctx *x, const struct cand *at, struct cand *c)
{
	const struct stack_tree *t = x->t;
	size_t nc = 0;
	int64_t cap = 0;

	if (!at) {
		nc = processes(x, c);
		qsort(c, nc, sizeof(*c), cmp_cand);
		return nc;
	}
	for (size_t m = 0; m < at->nnodes; m++) {
		size_t i = at->nodes[m];

		for (size_t j = i + 1; j < t->nodes[i].end; j = t->nodes[j].end) {
			struct cand k;
			size_t g;

			node_cand(x, j, &k);
			for (g = 0; g < nc && (c[g].level != k.level || strcmp(cname(&c[g]), cname(&k)) ||
					       (k.component && strcmp(c[g].component, k.component)));
			     g++)
				;
			if (g < nc)
				merge_node(x, j, &c[g]);
			else if (nc < MAX_CANDS)
				c[nc++] = k;
		}
		cap += x->self_ns[i];
	}
	for (size_t m = 0; m < at->nnodes; m++)
		if (t->nodes[at->nodes[m]].kind != STACK_PROCESS)
			nc = function_cands(x, &t->nodes[at->nodes[m]], cap, c, nc);
	qsort(c, nc, sizeof(*c), cmp_cand);
	return nc;
}

/*
 * Mean bytes per call of a call row with argument values (record --args):
 * of its first value whose name says it is a size in bytes (the built-in
 * prototypes' names, argspec.c); 0 if it has none. A count of iovecs,
 * descriptors or a timeout is no size.
 */
static long double bytes_per_call(const struct sc_call *c)
{
	static const char *const sizes[] = {
		"size", "nmemb*size", "size*nmemb", "n", "len", "count", "nbytes", "length",
		"new_size",
	};

	for (uint32_t i = 0; i < c->nargs; i++)
		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
			if (!strcmp(c->args[i].name, sizes[k]) && c->args[i].calls > 0)
				return sc_argdist_mean(&c->args[i]);
	return 0;
}

/*
 * The kernel functions of call row c that the walk follows, into
 * f[WALK_KFUNCS] (as a call row's, largest first): its on-CPU ones, and
 * in a wall walk its time blocked too, each function holding the time
 * blocked at switch-outs below it (c->okfuncs) besides its own on-CPU
 * time; then its chain (report_kernel_chain) into idx. Returns the
 * chain's length; *fk the row whose kfuncs are f.
 */
#define WALK_KFUNCS 128
static size_t walk_chain(const struct ctx *x, const struct sc_call *c, struct sc_call *fk,
			 struct sc_call_kfunc *f, size_t *idx)
{
	size_t n = 0;

	*fk = *c;
	for (size_t i = 0; i < c->nkfuncs && n < WALK_KFUNCS; i++)
		f[n++] = c->kfuncs[i];
	for (size_t i = 0; x->w->wall && i < c->nokfuncs && n < WALK_KFUNCS; i++)
		f[n++] = c->okfuncs[i];
	fk->kfuncs = f;
	fk->nkfuncs = sc_kfuncs_sum(f, n);
	return report_kernel_chain(fk, idx, WALK_MAX_STEPS);
}

/* What the kernel measured of an API or function's call row c, scaled
 * to its place: the kernel and preempted parts, and the deepest function
 * of its kernel chain that holds at least half of the system call's time
 * (what the sentence names when no kernel step passed the threshold). */
static void kernel_figures(const struct ctx *x, struct walk_step *s, const struct cand *c)
{
	struct report_ksplit k;
	struct sc_call_kfunc f[WALK_KFUNCS];
	struct sc_call fk;
	size_t idx[WALK_MAX_STEPS], n, last = 0;
	const struct sc_call *call = c->call;

	report_kernel_split(call, &k);
	s->kernel_ns = call->measured > 1 ? (int64_t)((long double)k.kernel * c->part) : -1;
	s->preempt_ns = (int64_t)((long double)k.preempted * c->part);
	n = walk_chain(x, call, &fk, f, idx);
	for (size_t i = 1; i < n; i++)
		if (f[idx[i]].ns * 2 >= f[idx[0]].ns)
			last = i;
	/* worth naming only where the kernel holds a part of the call (in
	 * a wall walk: with the time blocked in it) */
	if (n && (s->kernel_ns + (x->w->wall && call->nokfuncs ? s->wait_ns : 0)) * 10 >= s->ns) {
		snprintf(s->kernel_fn, sizeof(s->kernel_fn), "%s", f[idx[last]].name);
		s->kernel_fn_ns = (int64_t)((long double)f[idx[last]].ns * c->part);
	}
}

/* The start routine of the longest thread of step s's component. */
static void thread_root(struct walk_step *s, const struct sc_image *im)
{
	int64_t best = -1;

	for (size_t i = 0; i < im->nthreads; i++) {
		const struct sc_thread *t = &im->threads[i];
		const struct sc_object *o = sc_image_object(im, t->obj);

		if (o && o->name && !strcmp(o->name, s->component) && t->wall_ns > best) {
			best = t->wall_ns;
			snprintf(s->root, sizeof(s->root), "%s", report_thread_routine(t));
		}
	}
	if (!strcmp(s->root, "?"))
		s->root[0] = 0;
}

static void push(const struct ctx *x, struct walk_path *p, const struct cand *c)
{
	const char *comp = c->level == WALK_COMPONENT ? cname(c) : c->component;
	const struct sc_component *k;
	int64_t total = x->w->total_ns;
	struct walk_step *s;

	if (p->n == WALK_MAX_STEPS)
		return;
	s = &p->step[p->n++];
	memset(s, 0, sizeof(*s));
	s->level = c->level;
	snprintf(s->name, sizeof(s->name), "%s", cname(c));
	if (comp) {
		snprintf(s->component, sizeof(s->component), "%s", comp);
		const struct sc_agg *a = sc_model_image(x->r->model, c->image);

		k = sc_agg_component(a, comp);
		snprintf(s->file, sizeof(s->file), "%s", k ? k->path : "");
		for (size_t i = 0; i < a->ncalls; i++)
			s->untimed += a->calls[i].function && a->calls[i].count &&
				      a->calls[i].total_ns <= 0 &&
				      !strcmp(a->calls[i].caller, comp) &&
				      !strcmp(a->calls[i].callee, comp);
	}
	if (c->caller)
		snprintf(s->caller, sizeof(s->caller), "%s", c->caller);
	s->wait_ns = c->wait_ns;
	s->off_preempt_ns = c->preempt_ns;
	if (c->symbol)
		snprintf(s->symbol, sizeof(s->symbol), "%s", c->symbol);
	if (c->call && (c->level == WALK_API || c->level == WALK_FUNCTION))
		s->bytes = bytes_per_call(c->call);
	s->calls = c->calls;
	s->ns = c->ns;
	s->self_ns = c->self_ns;
	s->share = total > 0 ? (double)c->ns / (double)total : 0;
	s->kernel_ns = s->preempt_ns = -1;
	if ((c->level == WALK_API || c->level == WALK_FUNCTION) && c->call && c->call->measured)
		kernel_figures(x, s, c);
	if (c->level == WALK_COMPONENT)
		thread_root(s, c->image);
}

/* A thread group's time walked: its threads' time, on-CPU their CPU time
 * as the kernel counted it, else their time less their Wait (blocked:
 * measured where its threads were) and preempted time. */
static int64_t group_walked(const struct ctx *x, const struct report_group *g)
{
	if (x->w->wall)
		return g->wall_ns;
	if (g->cpu_ns >= 0)
		return g->cpu_ns < g->wall_ns ? g->cpu_ns : g->wall_ns;
	return g->wall_ns - g->wait_ns - g->preempt_ns;
}

/* The thread group with the most time, as a step, when the process has
 * more than one and it is not the main thread's (the levels below stay
 * the process's: calls are kept per component, not per thread group). */
static void threads_step(const struct ctx *x, struct walk_path *p, const struct sc_image *im)
{
	struct report_group *g = NULL;
	size_t n = report_groups(x->r->model, im, &g), best = 0;
	struct cand c = { .level = WALK_THREADS, .node = STACK_NONE };

	for (size_t i = 1; i < n; i++)
		if (group_walked(x, &g[i]) > group_walked(x, &g[best]))
			best = i;
	/* the main thread's group says nothing the process does not */
	if (n > 1 && group_walked(x, &g[best]) > 0 && strcmp(g[best].routine, "main")) {
		snprintf(c.label, sizeof(c.label), "%s (%" PRIu64 " thread%s)", g[best].routine,
			 g[best].threads, g[best].threads == 1 ? "" : "s");
		c.name = NULL;
		c.ns = group_walked(x, &g[best]);
		/* estimates: never more than the process */
		if (p->n && c.ns > p->step[p->n - 1].ns)
			c.ns = p->step[p->n - 1].ns;
		c.image = im;
		push(x, p, &c);
	}
	free(g);
}

/*
 * The kernel below a call (record --kernel): under an API or function its
 * system call, under that the next function of the chain below it
 * (report_kernel_chain: the kernel's functions by inclusive time, which
 * is the call chain as far as those times tell). One child at most: the
 * siblings of a kernel function are not told apart from its callees, so
 * the kernel levels have no branches.
 */
static size_t kernel_children(const struct ctx *x, const struct cand *at, struct cand *c)
{
	size_t idx[WALK_MAX_STEPS], n, next;
	const struct sc_call *k = at->call;
	struct sc_call_kfunc f[WALK_KFUNCS];
	struct sc_call fk;

	if (!k || at->part <= 0)
		return 0;
	n = walk_chain(x, k, &fk, f, idx);
	next = at->level == WALK_API || at->level == WALK_FUNCTION ? 0 : at->chain + 1;
	if (next >= n)
		return 0;
	memset(c, 0, sizeof(*c));
	c->level = next ? WALK_KERNEL : WALK_SYSCALL;
	c->ns = (int64_t)((long double)f[idx[next]].ns * at->part);
	snprintf(c->label, sizeof(c->label), "%s", f[idx[next]].name);
	/* functions of the same time below the system call: one calls the
	 * other, and which cannot be told: one step names them all */
	while (next && next + 1 < n && f[idx[next + 1]].ns == f[idx[next]].ns) {
		size_t len = strlen(c->label);

		next++;
		snprintf(c->label + len, sizeof(c->label) - len, " / %s", f[idx[next]].name);
	}
	c->name = NULL;
	if (c->ns > at->ns)
		c->ns = at->ns;
	c->node = STACK_NONE;
	c->image = at->image;
	c->call = k;
	c->part = at->part;
	c->chain = next;
	return 1;
}

/* Walks on from candidate c (already chosen: pushed on p). */
static void descend(struct ctx *x, struct walk_path *p, const struct cand *c);

/* Takes the children of c that pass the threshold: the largest on p, a
 * close second on a branch of its own. */
static void choose(struct ctx *x, struct walk_path *p, struct cand *kids, size_t nk)
{
	if (!nk || kids[0].ns <= 0 || kids[0].ns < x->min_ns || p->n == WALK_MAX_STEPS)
		return;
	if (nk > 1 && kids[1].ns >= x->min_ns && kids[1].ns > 0 &&
	    kids[1].ns * CLOSE_DEN >= kids[0].ns * CLOSE_NUM &&
	    x->w->nbranches < WALK_MAX_BRANCHES) {
		struct walk_path *b = &x->w->branch[x->w->nbranches++];

		*b = *p;
		push(x, b, &kids[1]);
		descend(x, b, &kids[1]);
	}
	push(x, p, &kids[0]);
	descend(x, p, &kids[0]);
}

static void descend(struct ctx *x, struct walk_path *p, const struct cand *c)
{
	struct cand *kids = calloc(MAX_CANDS, sizeof(*kids));
	size_t nk;

	if (!kids) {
		perror("scaler walk");
		exit(1);
	}
	if (c->level == WALK_PROCESS)
		threads_step(x, p, c->image);
	if (c->level == WALK_API || c->level == WALK_FUNCTION || c->level == WALK_SYSCALL ||
	    c->level == WALK_KERNEL)
		nk = kernel_children(x, c, kids);
	else
		nk = 0;
	if (!nk && c->node != STACK_NONE)
		nk = children(x, c, kids);
	/* a function called from its own component: the functions it calls,
	 * each with the part of its time that this place holds of the
	 * function's */
	if (!nk && c->node == STACK_NONE && c->level == WALK_FUNCTION && c->symbol && c->fn_total > 0) {
		nk = own_functions(x, c->image, c->component, c->symbol,
				   (long double)c->ns / (long double)c->fn_total, c->ns, kids, 0);
		qsort(kids, nk, sizeof(*kids), cmp_cand);
	}
	choose(x, p, kids, nk);
	free(kids);
}

void walk_run(const struct report *r, double threshold, int wall, struct walk *w)
{
	struct stack_tree t;
	struct cand *kids = calloc(MAX_CANDS, sizeof(*kids));
	struct ctx x = { .r = r, .t = &t, .w = w };
	size_t nk;

	if (!kids) {
		perror("scaler walk");
		exit(1);
	}
	memset(w, 0, sizeof(*w));
	w->threshold = threshold;
	w->wall = wall;
	for (size_t i = 0; i < r->agg->ncalls && !w->kernel_data; i++)
		w->kernel_data = r->agg->calls[i].measured > 1;
	report_stacks(r, &t);
	if (node_weights(&x) < 0) {
		perror("scaler walk");
		exit(1);
	}
	nk = children(&x, NULL, kids);
	for (size_t i = 0; i < nk; i++)
		w->total_ns += kids[i].ns;
	x.min_ns = (int64_t)((long double)threshold * (long double)w->total_ns + 0.5L);
	if (x.min_ns < 1)
		x.min_ns = 1;
	choose(&x, &w->path, kids, nk);
	free(kids);
	free(x.ns);
	free(x.self_ns);
	free(x.blocked_ns);
	free(x.preempt_ns);
	report_stacks_free(&t);
}

int walk_dir(const char *dir, double threshold, int wall, struct walk *w, char *err,
	     size_t errlen)
{
	struct report r = { 0 };
	struct sc_profile prof;
	struct sc_model model;

	if (sc_profile_load(dir, &prof, err, errlen) < 0) {
		sc_profile_free(&prof);
		return -1;
	}
	sc_model_build(&model, &prof);
	r.out = stdout;
	r.p = &prof;
	r.model = &model;
	r.agg = &model.agg;
	r.timed = prof.timing_mode != SC_TIMING_NONE;
	report_select(&r);
	walk_run(&r, threshold, wall, w);
	report_release(&r);
	sc_model_free(&model);
	sc_profile_free(&prof);
	if (!r.timed) {
		snprintf(err, errlen, "%s was recorded with --timing=none: a walk needs times", dir);
		return -1;
	}
	return 0;
}

/* ---- output ------------------------------------------------------------ */

static void fmt_share(char *b, size_t n, double s)
{
	if (s * 100 >= 9.95)
		snprintf(b, n, "%.0f %%", s * 100);
	else
		snprintf(b, n, "%.1f %%", s * 100);
}

/* The deepest step of p at a level in [lo, hi], or NULL; *at its index. */
static const struct walk_step *deepest(const struct walk_path *p, enum walk_level lo,
				       enum walk_level hi, size_t before, size_t *at)
{
	for (size_t i = before; i-- > 0;)
		if (p->step[i].level >= lo && p->step[i].level <= hi) {
			if (at)
				*at = i;
			return &p->step[i];
		}
	return NULL;
}

/* ", 30 % of it blocked": a part of a call's time worth acting on (at
 * least a tenth of it); nothing for a part not measured (ns < 0). */
static void part(FILE *o, int64_t ns, int64_t of, const char *what)
{
	char pct[32];

	if (ns < 0 || of <= 0 || ns * 10 < of)
		return;
	fmt_share(pct, sizeof(pct), (double)ns / (double)of);
	fprintf(o, ", %s of it %s", pct, what);
}

/* ", and 1.2 s blocked besides": time spent off the CPU beside an
 * on-CPU time of `of`, when it is at least a tenth of it. */
static void besides(FILE *o, int64_t ns, int64_t of, const char *what)
{
	char t[32];

	if (ns <= 0 || ns * 10 < of)
		return;
	report_fmt_ns(t, sizeof(t), (long double)ns);
	fprintf(o, ", and %s %s besides", t, what);
}

/* What the shares are of. */
static const char *time_name(const struct walk *w)
{
	return w->wall ? "the time" : "the on-CPU time";
}

/* One path as a sentence: where its time is, in words a person acts on. */
static void sentence(FILE *o, const struct walk *w, const struct walk_path *p)
{
	char pct[32], pct2[32], thr[32], ns[32], avg[32], cnt[32];
	const struct walk_step *e = p->n ? &p->step[p->n - 1] : NULL;
	const struct walk_step *call, *outer, *k;
	size_t at = 0;

	snprintf(thr, sizeof(thr), "%g %%", w->threshold * 100);
	if (!e) {
		fprintf(o, "no process holds %s of %s: lower --threshold\n", thr, time_name(w));
		return;
	}
	fmt_share(pct, sizeof(pct), e->share);
	report_fmt_ns(ns, sizeof(ns), (long double)e->ns);
	call = deepest(p, WALK_API, WALK_FUNCTION, p->n, &at);
	if (!call) {
		if (e->level == WALK_COMPONENT) {
			fmt_share(pct, sizeof(pct), w->total_ns > 0 ? (double)e->self_ns /
				  (double)w->total_ns : 0);
			report_fmt_ns(ns, sizeof(ns), (long double)e->self_ns);
			fprintf(o, "%s of %s (%s) is %s's own code, and none of its calls "
				"holds %s: scaler walk --deeper patches its functions to look "
				"inside\n", pct, time_name(w), ns, e->name, thr);
		} else {
			fprintf(o, "no component holds %s of %s of %s: it is spread "
				"out; lower --threshold\n", thr, time_name(w), p->step[0].name);
		}
		return;
	}
	fmt_share(pct, sizeof(pct), call->share);
	report_fmt_ns(ns, sizeof(ns), (long double)call->ns);
	fprintf(o, "%s of %s (%s) is %s()", pct, time_name(w), ns, call->name);
	if (call->level == WALK_FUNCTION && strcmp(call->component, call->caller))
		fprintf(o, " of %s, called from %s", call->component, call->caller);
	else if (call->level == WALK_FUNCTION)
		fprintf(o, " of %s", call->component);
	else
		fprintf(o, " from %s", call->caller);
	if (call->calls) {
		report_fmt_count(cnt, sizeof(cnt), call->calls);
		report_fmt_ns(avg, sizeof(avg), (long double)call->ns / (long double)call->calls);
		fprintf(o, ", %s call%s of %s%s", cnt, call->calls == 1 ? "" : "s", avg,
			w->wall ? "" : " on CPU");
	}
	if (call->bytes > 0)
		fprintf(o, ", %.0Lf bytes per call", call->bytes);
	/* blocked, in the kernel, waiting for a CPU: each says what to act on
	 * (on-CPU: the kernel part of it, the others besides it) */
	if (w->wall) {
		part(o, call->wait_ns, call->ns, "blocked");
		part(o, call->kernel_ns, call->ns, "on CPU in the kernel");
		part(o, call->preempt_ns, call->ns, "preempted (runnable, waiting for a CPU)");
	} else {
		part(o, call->kernel_ns, call->ns, "in the kernel");
		besides(o, call->wait_ns, call->ns, "blocked");
		besides(o, call->off_preempt_ns, call->ns, "preempted (runnable, waiting for a CPU)");
	}
	outer = deepest(p, WALK_API, WALK_FUNCTION, at, NULL);
	if (outer)
		fprintf(o, ", inside %s() of %s", outer->name, outer->component);
	k = deepest(p, WALK_KERNEL, WALK_KERNEL, p->n, NULL);
	if (k) {
		fmt_share(pct2, sizeof(pct2), call->ns > 0 ? (double)k->ns / (double)call->ns : 0);
		fprintf(o, "; in the kernel %s of it is in %s", pct2, k->name);
	} else if (call->kernel_fn[0] && e == call) {
		fmt_share(pct2, sizeof(pct2), call->ns > 0 ? (double)call->kernel_fn_ns /
			  (double)call->ns : 0);
		fprintf(o, "; in the kernel %s of it is in %s", pct2, call->kernel_fn);
	} else if (!w->kernel_data && e == call) {
		fputs("; no kernel data in this profile (record with --kernel)", o);
	}
	fputc('\n', o);
}

static void steps(FILE *o, const struct walk_path *p, size_t from)
{
	for (size_t i = from; i < p->n; i++) {
		const struct walk_step *s = &p->step[i];
		int depth = 0;
		char ns[32];

		/* a thread group is beside the levels, not above them */
		for (size_t k = 0; k < i; k++)
			depth += p->step[k].level != WALK_THREADS;

		report_fmt_ns(ns, sizeof(ns), (long double)s->ns);
		fprintf(o, "  %5.1f%%  %9s  %-9s  %*s%s", s->share * 100, ns,
			walk_level_name(s->level), 2 * depth, "", s->name);
		if (s->level == WALK_API)
			fprintf(o, " (%s)", s->component);
		fputc('\n', o);
	}
}

void walk_text(FILE *o, const struct walk *w)
{
	char thr[32];

	sentence(o, w, &w->path);
	snprintf(thr, sizeof(thr), "%g %%", w->threshold * 100);
	fprintf(o, "\nthe walk (each step holds at least %s of %s):\n", thr, time_name(w));
	steps(o, &w->path, 0);
	for (size_t b = 0; b < w->nbranches; b++) {
		const struct walk_path *p = &w->branch[b];
		size_t same = 0;

		while (same < p->n && same < w->path.n &&
		       !strcmp(p->step[same].name, w->path.step[same].name) &&
		       p->step[same].level == w->path.step[same].level)
			same++;
		fputs("\nclose to it: ", o);
		sentence(o, w, p);
		steps(o, p, same);
	}
}

static void path_json(struct sc_json *j, const struct walk_path *p)
{
	sc_json_begin_array(j);
	for (size_t i = 0; i < p->n; i++) {
		sc_json_begin_object(j);
		sc_json_key(j, "level");
		sc_json_string(j, walk_level_name(p->step[i].level));
		sc_json_key(j, "name");
		sc_json_string(j, p->step[i].name);
		sc_json_key(j, "share");
		sc_json_share(j, p->step[i].share);
		sc_json_key(j, "ns");
		sc_json_int(j, p->step[i].ns);
		sc_json_end_object(j);
	}
	sc_json_end_array(j);
}

void walk_json(FILE *o, const struct walk *w)
{
	struct sc_json j;

	sc_json_init(&j, o);
	sc_json_begin_object(&j);
	sc_json_key(&j, "format");
	sc_json_string(&j, "scaler-walk");
	sc_json_key(&j, "version");
	sc_json_int(&j, 1);
	sc_json_key(&j, "time");
	sc_json_string(&j, w->wall ? "wall" : "on-cpu");
	sc_json_key(&j, "path");
	path_json(&j, &w->path);
	sc_json_key(&j, "branches");
	sc_json_begin_array(&j);
	for (size_t b = 0; b < w->nbranches; b++)
		path_json(&j, &w->branch[b]);
	sc_json_end_array(&j);
	sc_json_end_object(&j);
	fputc('\n', o);
}
