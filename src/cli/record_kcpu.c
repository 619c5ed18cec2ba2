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
#include <sched.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pidstart.h"
#include "record_kernel.h"

#define KCPU_PAGES 64           /* ring data pages per CPU: ~4 s of
				   samples at 250 Hz, newest kept */
#define KCPU_MAX 1024           /* as src/runtime/kcpu.c */
#define MAX_STACK 32
#define ALIGN_TRIES 20          /* starts of a CPU's timer, at most */
#define ALIGN_NS 15000          /* close enough to the tick: +-15 us */
#define ALIGN_ALL_NS 300000000  /* all CPUs' tries, at most (then as is) */
#define ALIGN_MAX_PERIOD 20000000 /* longer periods: no tick to ride on at
				   * HZ 100 or more, and a try waits a period */

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
	a.disabled = 1;                 /* started by start_aligned */
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

static int64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* The signed distance of time t from the nearest multiple of period. */
int64_t record_kcpu_phase(int64_t t, int64_t period)
{
	int64_t d = ((t % period) + period) % period;
	return d > period / 2 ? d - period : d;
}

/*
 * Starts the disabled event fd of CPU cpu so that its timer fires on the
 * multiples of its period in CLOCK_MONOTONIC time, where the kernel's
 * own tick fires (its hrtimer runs on the multiples of 1/HZ: 4 ms at
 * HZ=250, 1 ms at HZ=1000): both then expire in one timer interrupt. In
 * a VM each interrupt of its own costs ~20 us of the guest's CPU (the
 * host emulates the timer), which at 250 Hz was 0.5-0.8 % of a
 * kernel-bound loop; one that rides on the tick costs the sample alone
 * (doc/performance.md).
 *
 * A cpu-clock event's timer starts, a full period away, when the event
 * is enabled (with period_left reset by PERF_EVENT_IOC_PERIOD), and moves
 * on by whole periods. So this thread, on that CPU, enables it just
 * before a multiple, reads how long the event has run since (its count
 * froze while disabled) to learn when the timer started, and tries again
 * at a later multiple (disabled, reset) while that is more than ALIGN_NS
 * off, leading by the least latency seen so far. Where the thread may not
 * run on the CPU, or every try misses (a loaded machine), the event runs
 * from wherever it started: a timer of its own, as before.
 */
static void start_aligned(int fd, int cpu, int64_t period, int64_t until)
{
	cpu_set_t one;
	int64_t lead = 5000;
	uint64_t p = (uint64_t)period;

	CPU_ZERO(&one);
	if (cpu < CPU_SETSIZE)
		CPU_SET(cpu, &one);
	if (period > ALIGN_MAX_PERIOD || cpu >= CPU_SETSIZE ||
	    sched_setaffinity(0, sizeof(one), &one) < 0) {
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		return;
	}
	for (int i = 0; i < ALIGN_TRIES && mono_ns() < until; i++) {
		uint64_t c0, c1;
		int64_t now = mono_ns(), at, on, started;

		if (ioctl(fd, PERF_EVENT_IOC_PERIOD, &p) < 0 || read(fd, &c0, 8) != 8)
			break;
		/* the next multiple at least 200 us away, less the lead:
		 * slept to within 100 us of it, spun the rest */
		at = (now + 200000 + lead) / period * period + period - lead;
		if (at > until)
			break;                  /* never past the tries' limit */
		struct timespec t = { (time_t)((at - 100000) / 1000000000),
				      (long)((at - 100000) % 1000000000) };
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR)
			;
		while ((now = mono_ns()) < at)
			;
		if (now > at + 2000)
			continue;               /* woken too late: the next one */
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		on = mono_ns();
		if (read(fd, &c1, 8) != 8)
			break;
		started = (on + mono_ns()) / 2 - (int64_t)(c1 - c0);
		int64_t off = record_kcpu_phase(started, period);
		if (off >= -ALIGN_NS && off <= ALIGN_NS)
			return;
		/* the least latency seen: most enables take about that */
		if (started - now >= 0 && (i == 0 || started - now < lead))
			lead = started - now;
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
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

/* Opens and maps every CPU's event, sampling every period ns of CPU
 * time, into SCALER_KCPU's value, its scope "run" (filtered to the run
 * cgroup) or "all"; 0, or -1 with errno (nothing left open). */
static int open_all(char *spec, size_t len, int *ncpu, bool run_only, uint32_t period)
{
	static int cpu[KCPU_MAX], fd[KCPU_MAX];
	size_t ring = (size_t)sysconf(_SC_PAGESIZE) * (1 + KCPU_PAGES);
	int n = online_cpus(cpu, KCPU_MAX), i, err = 0;
	size_t at;
	cpu_set_t mask;
	bool have_mask = sched_getaffinity(0, sizeof(mask), &mask) == 0;
	int64_t until = mono_ns() + ALIGN_ALL_NS;

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
		if (m != MAP_FAILED && have_mask)
			start_aligned(fd[i], cpu[i], (int64_t)period, until);
		else if (m != MAP_FAILED)
			ioctl(fd[i], PERF_EVENT_IOC_ENABLE, 0);
		if (m == MAP_FAILED) {
			err = errno;
			close(fd[i]);
			break;
		}
		at += (size_t)snprintf(spec + at, at < len ? len - at : 0, "%s%d=%d", i ? "," : "",
				       cpu[i], fd[i]);
	}
	if (have_mask)
		sched_setaffinity(0, sizeof(mask), &mask);
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
static int open_scoped(char *spec, size_t len, int *n, bool *run_only, char *why, size_t wlen,
		       uint32_t period)
{
	*run_only = false;
	if (getenv("SCALER_KCPU_ALL") && !strcmp(getenv("SCALER_KCPU_ALL"), "1"))
		snprintf(why, wlen, "SCALER_KCPU_ALL=1");       /* tests of the drop */
	else if (record_cgroup_make(why, wlen) == 0) {
		if (open_all(spec, len, n, true, period) == 0) {
			*run_only = true;
			return 0;
		}
		snprintf(why, wlen, "no BPF filter on a per-CPU event: %s", strerror(errno));
		record_cgroup_remove();
	}
	return open_all(spec, len, n, false, period);
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

void record_kcpu_start(uint32_t period_ns)
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
	else if (open_scoped(spec, sizeof(spec), &n, &run_only, why, sizeof(why),
				period_ns) == 0) {
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
