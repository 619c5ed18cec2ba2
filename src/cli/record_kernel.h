/*
 * record_kernel.h - `scaler record --kernel` (record_kernel.c): what the
 * runtime may sample, the line saying what cannot be, and the kernel
 * symbols file at the end.
 */
#ifndef SCALER_RECORD_KERNEL_H
#define SCALER_RECORD_KERNEL_H

/* One `scaler:` line on stderr if kernel stacks cannot be sampled or
 * named here (perf_event_paranoid, kptr_restrict), nothing otherwise. */
void record_kernel_say(void);

/* 1 if a per-thread cpu-clock event sampling kernel stacks may be opened
 * here, else 0 with errno's value in *err. */
int kernel_sampling_allowed(int *err);

/* With --kernel: opens a cpu-clock event per CPU, kept open until exit,
 * and tells the runtime in SCALER_KCPU (record_kcpu.c); else, where only
 * per-thread events are allowed, says so in one `scaler:` line. */
void record_kcpu_start(void);

/* Names every kernel address the profile dir's .kst and .kso files hold, from
 * /proc/kallsyms, into dir/kallsyms (format.h, SC_KSYMS_FILE). */
void record_kernel_symbols(const char *dir);

/* With want (record --off-cpu): sets SCALER_SCHED_SWITCH, the id of the
 * sched_switch tracepoint whose samples give the runtime its off-CPU
 * stacks, when this process may sample it, else says in one `scaler:`
 * line why not; without, unsets it. */
void record_kernel_offcpu(int want);

#endif
