/*
 * record_kernel.h - `scaler record --kernel` (record_kernel.c): what the
 * runtime may sample, the line saying what cannot be, and the kernel
 * symbols file at the end.
 */
#ifndef SCALER_RECORD_KERNEL_H
#define SCALER_RECORD_KERNEL_H

/* One `scaler:` line on stderr if kernel stacks cannot be sampled or
 * named here (perf_event_paranoid, kptr_restrict), else one if off-CPU
 * stacks cannot (the sched_switch tracepoint), nothing otherwise; sets
 * SCALER_SCHED_SWITCH (the tracepoint's id) for the runtime when they
 * can, unsets it when not. */
void record_kernel_say(void);

/* Names every kernel address the profile dir's .kst and .kso files hold, from
 * /proc/kallsyms, into dir/kallsyms (format.h, SC_KSYMS_FILE). */
void record_kernel_symbols(const char *dir);

#endif
