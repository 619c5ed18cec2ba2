/*
 * record_kcpu.c - `scaler record --kernel`'s per-CPU sampling events: one
 * cpu-clock event per online CPU sampling kernel stacks, opened here once
 * for the whole profiled tree, whose rings the runtime of each process
 * maps and reads for its threads' samples (src/runtime/kcpu.c says how
 * and why: a per-thread event costs each context switch a timer restart).
 *
 * Per-CPU events see every task: they need root, CAP_PERFMON or
 * perf_event_paranoid <= 0. Refused, the runtime samples per thread as
 * before, and one line says so. Where a run cgroup can be made
 * (record_cgroup.c), each event keeps only the samples of the run's tasks
 * and the runtime keeps its rings across a change of user; else they hold
 * every task's and a process changing user withdraws them (kcpu.c). The
 * line says which. The descriptors stay open here
 * (close-on-exec: the command does not inherit them) until the recorder
 * exits; a process takes its own copies with pidfd_getfd, which needs the
 * right to ptrace the recorder, as the recorder's own user or root.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pidstart.h"
#include "record_kernel.h"

#define KCPU_PAGES 64           /* ring data pages per CPU: ~2 s of
				   samples at 500 Hz, newest kept */
#define KCPU_MAX 1024           /* as src/runtime/kcpu.c */
#define MAX_STACK 32
#define PERIOD_NS 2000000u      /* as src/runtime/perf.c: 500 Hz */

static int open_cpu(int cpu, uint64_t period, bool run_only)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = period;
	/* kernel time only, of running tasks; the runtime reads
	 * {pid, tid}, time, callchain (kcpu.c) */
	a.exclude_user = 1;
	a.exclude_idle = 1;
	a.exclude_hv = 1;
	a.exclude_callchain_user = 1;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN;
	a.sample_max_stack = MAX_STACK;
	a.write_backward = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	fd = (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0 && run_only && record_cgroup_filter(fd) < 0) {
		int err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

/* The online CPUs' numbers (sysfs: "0-3,6"), or -1. */
static int online_cpus(int *cpu, int max)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	char line[4096];
	int n = 0;

	if (!f)
		return -1;
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	for (char *p = line; *p && *p != '\n';) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;
		if (end == p)
			return -1;
		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		for (long c = lo; c <= hi && n < max; c++)
			cpu[n++] = (int)c;
		p = *end == ',' ? end + 1 : end;
	}
	return n;
}

/* Opens and maps every CPU's event into SCALER_KCPU's value, its scope
 * "run" (filtered to the run cgroup) or "all"; 0, or -1 with errno
 * (nothing left open). */
static int open_all(char *spec, size_t len, int *ncpu, bool run_only)
{
	static int cpu[KCPU_MAX], fd[KCPU_MAX];
	const char *kp = getenv("SCALER_KERNEL_PERIOD_NS");
	unsigned long period = kp ? strtoul(kp, NULL, 10) : 0;
	size_t ring = (size_t)sysconf(_SC_PAGESIZE) * (1 + KCPU_PAGES);
	int n = online_cpus(cpu, KCPU_MAX), i, err = 0;
	size_t at;

	if (period < 10000 || period > 1000000000)
		period = PERIOD_NS;             /* perf.c's bounds */
	if (n <= 0) {
		errno = ENOENT;
		return -1;
	}
	/* the pid with its start time: a process reading this after the
	 * recorder exited must not take another one's descriptors */
	at = (size_t)snprintf(spec, len, "%d@%llu:%zu:%s:", (int)getpid(),
			      (unsigned long long)sc_pid_start(getpid()), ring,
			      run_only ? "run" : "all");
	for (i = 0; i < n; i++) {
		void *m;

		fd[i] = open_cpu(cpu[i], period, run_only);
		if (fd[i] < 0) {
			err = errno;
			break;
		}
		/* read-only: overwrite mode, the runtime's mappings too */
		m = mmap(NULL, ring, PROT_READ, MAP_SHARED, fd[i], 0);
		if (m == MAP_FAILED) {
			err = errno;
			close(fd[i]);
			break;
		}
		at += (size_t)snprintf(spec + at, at < len ? len - at : 0, "%s%d=%d", i ? "," : "",
				       cpu[i], fd[i]);
	}
	if (i < n || at >= len) {
		while (i-- > 0)
			close(fd[i]);           /* and its mapping with the process */
		errno = err ? err : E2BIG;
		return -1;
	}
	*ncpu = n;
	return 0;
}

/* Opens the events filtered to a run cgroup where one can be made (and
 * *run_only), else unfiltered with why in why; 0, or -1 with errno. */
static int open_scoped(char *spec, size_t len, int *n, bool *run_only, char *why, size_t wlen)
{
	*run_only = false;
	if (getenv("SCALER_KCPU_ALL") && !strcmp(getenv("SCALER_KCPU_ALL"), "1"))
		snprintf(why, wlen, "SCALER_KCPU_ALL=1");       /* tests of the drop */
	else if (record_cgroup_make(why, wlen) == 0) {
		if (open_all(spec, len, n, true) == 0) {
			*run_only = true;
			return 0;
		}
		snprintf(why, wlen, "no BPF filter on a per-CPU event: %s", strerror(errno));
		record_cgroup_remove();
	}
	return open_all(spec, len, n, false);
}

/* Read end, write end; -1 when the command need not wait. */
static int gate[2] = { -1, -1 };

void record_kcpu_wait(void)
{
	char c;

	if (gate[0] < 0)
		return;
	close(gate[1]);
	while (read(gate[0], &c, 1) < 0 && errno == EINTR)
		;
	close(gate[0]);
}

void record_kcpu_release(pid_t pid)
{
	if (gate[0] < 0)
		return;
	/* EINVAL without Yama: nothing to declare */
	prctl(PR_SET_PTRACER, (unsigned long)pid, 0, 0, 0);
	close(gate[0]);
	if (write(gate[1], "", 1) < 0) {
		/* the command waits for the end of file instead */
	}
	close(gate[1]);
	gate[0] = gate[1] = -1;
}

void record_kcpu_start(void)
{
	static char spec[32 * KCPU_MAX];
	char why[512];
	int n = 0, err = 0;
	bool run_only;

	unsetenv("SCALER_KCPU");
	if (getenv("SCALER_PERF") && !strcmp(getenv("SCALER_PERF"), "off"))
		return;
	if (getenv("SCALER_KCPU_OFF") && !strcmp(getenv("SCALER_KCPU_OFF"), "1"))
		errno = EPERM;          /* tests of the fallback */
	else if (open_scoped(spec, sizeof(spec), &n, &run_only, why, sizeof(why)) == 0) {
		/* where Yama lets a process ptrace only its descendants, the
		 * profiled ones must reach their ancestor for its events: the
		 * command (and so its descendants) is declared after the fork,
		 * and waits at this gate until it is (record_kcpu_release) */
		if (geteuid() != 0 && pipe2(gate, O_CLOEXEC) < 0)
			gate[0] = gate[1] = -1;
		setenv("SCALER_KCPU", spec, 1);
		if (run_only)
			fprintf(stderr, "scaler: kernel stacks sampled per CPU (%d CPU%s), the run's "
				"tasks only (cgroup %s)\n", n, n == 1 ? "" : "s", record_cgroup_path());
		else
			fprintf(stderr, "scaler: kernel stacks sampled per CPU (%d CPU%s), every "
				"task's: a process that changes user samples per thread after (%s)\n",
				n, n == 1 ? "" : "s", why);
		return;
	}
	err = errno;
	int e2;
	if (kernel_sampling_allowed(&e2))
		fprintf(stderr, "scaler: kernel stacks sampled per thread, which costs each context "
			"switch (per-CPU events: %s; they need root, CAP_PERFMON or "
			"perf_event_paranoid 0)\n", strerror(err));
}
