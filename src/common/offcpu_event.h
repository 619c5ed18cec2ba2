/*
 * offcpu_event.h - the perf event of `scaler record --off-cpu`, owned
 * once: the sched_switch tracepoint sampled at every hit with kernel
 * callchains and CLOCK_MONOTONIC times. The runtime opens it per thread
 * (src/runtime/offcpu.c); the recorder opens the same one first to learn
 * whether it may (src/cli/record_kernel.c).
 */
#ifndef SCALER_OFFCPU_EVENT_H
#define SCALER_OFFCPU_EVENT_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#define SC_OFFCPU_MAX_STACK 32  /* kernel frames asked for */

/* *a: the event for the tracepoint of id `id` (tracefs's
 * events/sched/sched_switch/id). */
static inline void sc_offcpu_attr(struct perf_event_attr *a, uint64_t id)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_TRACEPOINT;
	a->config = id;
	a->sample_period = 1;
	a->sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN;
	a->exclude_callchain_user = 1;
	a->sample_max_stack = SC_OFFCPU_MAX_STACK;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
}

#endif
