/*
 * report_kernel.c - an API's time below the system call (record --kernel),
 * for people: how its time splits into user code, on-CPU kernel, blocked
 * and preempted, and the kernel functions that hold it, for the text and
 * HTML views and for `scaler walk` (report.h).
 *
 * The profile has each call row's kernel functions with their inclusive
 * time, largest first, not the kernel's call graph. Three kinds of
 * function are plumbing, not the work a call asked for, and are told
 * apart by name and left out (glue): the way into and out of every system
 * call (the entry, the dispatch, the return to user space), what
 * interrupts one (an interrupt's or a fault's entry, softirq processing's
 * entry), and the scheduler's switch, by which a task leaves the CPU and
 * where it resumes (schedule and its variants, finish_task_switch): CPU
 * time sampled there is the switch itself, or, with per-thread sampling
 * timers that stop and restart at each switch, a sample deferred to the
 * moment the task is switched back in. What is left, largest first,
 * follows the call chain below the system call as far as inclusive times
 * can tell (a caller holds at least what its callees do; siblings of one
 * caller are not told from a callee).
 */
#include <string.h>

#include "report.h"

/*
 * Is kernel function name plumbing (the top says which)? A compiler's
 * local copy ("finish_task_switch.isra.0", "do_softirq.part.0") is its
 * function's.
 */
static int glue(const char *name)
{
	static const char *const names[] = {
		/* the way into and out of a system call */
		"do_syscall_64", "x64_sys_call", "__x64_sys_call", "syscall_exit_to_user_mode",
		"exit_to_user_mode_prepare", "exit_to_user_mode_loop", "irqentry_exit",
		"irqentry_exit_to_user_mode",
		/* what interrupts one */
		"__irq_exit_rcu", "irq_exit_rcu", "handle_softirqs", "__do_softirq", "do_softirq",
		"common_interrupt", "rcu_core", "rcu_core_si", "__sysvec_apic_timer_interrupt",
		"hrtimer_interrupt", "__hrtimer_run_queues",
		/* the scheduler's switch */
		"__schedule", "context_switch", "finish_task_switch", "__cond_resched",
		"_cond_resched",
	};
	static const char *const prefixes[] = {
		"entry_SYSCALL", "asm_", "sysvec_", "ret_from_",
		"schedule", "preempt_schedule", "io_schedule", "__switch_to",
	};
	size_t len = strcspn(name, ".");

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == len && !strncmp(name, names[i], len))
			return 1;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

int report_kernel_syscall(const char *name)
{
	return !strncmp(name, "__x64_sys_", 10) || !strncmp(name, "__ia32_sys_", 11) ||
	       !strncmp(name, "__do_sys_", 9) || !strncmp(name, "__se_sys_", 9) ||
	       !strncmp(name, "ksys_", 5);
}

/* Is kernel function name the system call of API api: "do_writev",
 * "__x64_sys_sendfile64" for writev, sendfile64? */
static int named_after(const char *name, const char *api)
{
	static const char *const prefixes[] = { "__x64_sys_", "__do_sys_", "ksys_", "do_" };

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])) &&
		    !strcmp(name + strlen(prefixes[i]), api))
			return 1;
	return 0;
}

/* report_kernel_chain of the n kernel functions f of a call of api. */
static size_t chain(const char *api, const struct sc_call_kfunc *f, size_t nf, size_t *idx,
		    size_t max)
{
	size_t n = 0, i = 0, sys;

	/* the system call: the function named after the API (where a
	 * preemption on the way out, its schedule sampled on CPU, holds more
	 * time than the call's own work), else one named like a system
	 * call, else the first below the glue */
	for (sys = 0; sys < nf && !named_after(f[sys].name, api); sys++)
		;
	if (sys == nf)
		for (sys = 0; sys < nf && !report_kernel_syscall(f[sys].name); sys++)
			;
	if (sys == nf)
		for (sys = 0; sys < nf && glue(f[sys].name); sys++)
			;
	if (sys == nf || !max)
		return 0;
	idx[n++] = sys;
	for (i = 0; i < nf && n < max; i++)
		if (i != sys && f[i].ns <= f[sys].ns && !glue(f[i].name) &&
		    !report_kernel_syscall(f[i].name))
			idx[n++] = i;
	return n;
}

size_t report_kernel_chain(const struct sc_call *c, size_t *idx, size_t max)
{
	return chain(c->api, c->kfuncs, c->nkfuncs, idx, max);
}

size_t report_kernel_off_chain(const struct sc_call *c, size_t *idx, size_t max)
{
	return chain(c->api, c->okfuncs, c->nokfuncs, idx, max);
}

void report_kernel_split(const struct sc_call *c, struct report_ksplit *s)
{
	int64_t rest = c->total_ns > 0 ? c->total_ns : 0;

	/* each part at most what is left of the call, so they add up */
	s->blocked = c->blocked_ns < rest ? (c->blocked_ns > 0 ? c->blocked_ns : 0) : rest;
	rest -= s->blocked;
	s->preempted = c->preempt_ns < rest ? (c->preempt_ns > 0 ? c->preempt_ns : 0) : rest;
	rest -= s->preempted;
	s->kernel = c->measured > 1 ? (c->kernel_ns < rest ? (c->kernel_ns > 0 ? c->kernel_ns : 0)
				       : rest) : 0;
	rest -= s->kernel;
	s->user = rest;
}

int report_kernel_shown(const struct sc_call *c)
{
	struct report_ksplit s;

	if (!c->measured || c->total_ns <= 0)
		return 0;
	report_kernel_split(c, &s);
	/* in long double: the parts add up to at most total_ns, whose
	 * hundredfold may not fit in 64 bits (a forged profile's) */
	return (long double)(s.kernel + s.blocked + s.preempted) * 100 >=
	       (long double)c->total_ns * REPORT_KERNEL_PCT;
}
