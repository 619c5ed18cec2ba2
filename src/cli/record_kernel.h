/*
 * record_kernel.h - `scaler record --kernel` (record_kernel.c): what the
 * runtime may sample, the line saying what cannot be, and the kernel
 * symbols file at the end.
 */
#ifndef SCALER_RECORD_KERNEL_H
#define SCALER_RECORD_KERNEL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* One `scaler:` line on stderr if kernel stacks cannot be sampled or
 * named here (perf_event_paranoid, kptr_restrict), nothing otherwise. */
void record_kernel_say(void);

/* 1 if a per-thread cpu-clock event sampling kernel stacks may be opened
 * here, else 0 with errno's value in *err. */
int kernel_sampling_allowed(int *err);

/* --kernel's sampling period in ns of CPU time when
 * SCALER_KERNEL_PERIOD_NS is not set (as src/runtime/perf.c's: 250 Hz),
 * and the values it may be set to. */
#define RECORD_KERNEL_PERIOD_NS 4000000u
#define RECORD_KERNEL_PERIOD_MIN 10000u
#define RECORD_KERNEL_PERIOD_MAX 1000000000u

/* With --kernel: opens a cpu-clock event per CPU sampling every period_ns
 * of CPU time, kept open until exit, and tells the runtime in SCALER_KCPU
 * (record_kcpu.c); else, where only per-thread events are allowed, says
 * so in one `scaler:` line. */
void record_kcpu_start(uint32_t period_ns);
/* The signed distance in ns of time t from the nearest multiple of
 * period (where record_kcpu_start puts each CPU's timer). */
int64_t record_kcpu_phase(int64_t t, int64_t period);
/* Where per-CPU events were opened by a user other than root: in the
 * command's process before its exec, waits until record_kcpu_release
 * has run in the recorder, which declares the command's pid (so its
 * descendants) the one that may take the events (Yama's ptrace scope 1),
 * not any process. Both do nothing otherwise. */
void record_kcpu_wait(void);
void record_kcpu_release(pid_t pid);

/* The run cgroup (record_cgroup.c): makes it and the BPF filter keeping
 * per-CPU samples to its tasks; 0, or -1 with why (nothing left made). */
int record_cgroup_make(char *why, size_t len);
/* Attaches the filter to a per-CPU event; 0 or -1 with errno. */
int record_cgroup_filter(int event_fd);
/* Its directory, "" when there is none. */
const char *record_cgroup_path(void);
/* In the command's process before its exec: moves it into the cgroup. */
void record_cgroup_enter(void);
/* After the command: moves what is left in it out and removes it. */
void record_cgroup_remove(void);

/* Names every kernel address the profile dir's .kst and .kso files hold, from
 * /proc/kallsyms, into dir/kallsyms (format.h, SC_KSYMS_FILE). */
void record_kernel_symbols(const char *dir);

/* With want (record --off-cpu): sets SCALER_SCHED_SWITCH, the id of the
 * sched_switch tracepoint whose samples give the runtime its off-CPU
 * stacks, when this process may sample it, else says in one `scaler:`
 * line why not; without, unsets it. */
void record_kernel_offcpu(int want);

#endif
